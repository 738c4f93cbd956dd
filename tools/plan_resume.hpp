#pragma once
/// `plan --resume FILE`: the plan's layout runs (planning/plan/plan_evaluation.hpp) round by
/// round, each round's step reports kept in a resume file
/// (tools/resume_file.hpp) bit for bit (tools/bit_record.hpp), so that a resumed plan prints exactly
/// what an uninterrupted one prints.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "models/step/step_model.hpp"
#include "planning/plan/plan_evaluation.hpp"
#include "tools/resume_file.hpp"

namespace clustersim::tools {


std::string step_reports_text(const std::vector<models::StepReport>& reports);
/// Throws CliError (naming `what`) when `text` is not what step_reports_text writes.
std::vector<models::StepReport> step_reports_from_text(std::string_view text, std::string_view what);

class PlanResumeStore : public planning::LayoutRunStore {
 public:
  /// `job` identifies the plan (scenario and options); the file is opened once the runs are counted.
  PlanResumeStore(std::string path, std::string job) : path_(std::move(path)), job_(std::move(job)) {}

  void rounds(std::size_t most) override;
  std::optional<std::vector<models::StepReport>> kept(std::size_t part) override;
  void keep(std::size_t part, const std::vector<models::StepReport>& reports) override;
  /// Removes the file (after the plan's output is written).
  void remove() const;

 private:
  std::string path_;
  std::string job_;
  std::optional<ResumeFile> file_;
};

}  // namespace clustersim::tools
