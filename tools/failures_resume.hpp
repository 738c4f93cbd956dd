#pragma once
/// `failures --resume FILE`: the study's Monte Carlo batches (the main runs, the checkpoint
/// interval sweep, each storage option) are the chunks of a resume file (tools/resume_file.hpp);
/// their statistics are kept bit for bit (every double as its IEEE-754 bits in hex, so NaN and
/// infinities survive), which makes a resumed study print exactly what an uninterrupted one prints.

#include <string>
#include <string_view>

#include "models/run/interval_sweep.hpp"
#include "models/run/monte_carlo.hpp"

namespace clustersim::tools {

std::string statistics_text(const models::RunStatistics& stats);
/// Throws CliError (naming `what`) when `text` is not what statistics_text writes.
models::RunStatistics statistics_from_text(std::string_view text, std::string_view what);

std::string interval_sweep_text(const models::IntervalSweep& sweep);
models::IntervalSweep interval_sweep_from_text(std::string_view text, std::string_view what);

}  // namespace clustersim::tools
