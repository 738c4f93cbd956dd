#pragma once
/// Reading a raw calibration input (a log or a JSON-lines file) into memory, line by line.
/// Limitations: whole files in memory (raw results are kilobytes to a few megabytes), at most
/// scenarios::kMaxInputFileBytes (64 MiB) each.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace clustersim::calibration {

/// The file's bytes; throws InputError "<path>: <rule>" when it is missing, a directory, cannot
/// be read or is over the size limit (scenarios/bounded_input.hpp).
std::string read_input_file(const std::filesystem::path& path);

/// The lines of `text` without their "\n" or "\r\n"; a final line without a newline counts.
std::vector<std::string_view> split_lines(std::string_view text);

/// `text` without leading and trailing blanks (spaces, tabs).
std::string_view trim(std::string_view text);

/// The blank-separated words of `line`.
std::vector<std::string_view> split_words(std::string_view line);

}  // namespace clustersim::calibration
