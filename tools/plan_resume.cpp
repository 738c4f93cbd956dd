#include "tools/plan_resume.hpp"

#include <filesystem>

#include "tools/bit_record.hpp"

namespace clustersim::tools {
namespace {

// Every field is kept; a new one must be added here too, or a resumed plan would print it as zero.
static_assert(sizeof(models::StageTimes) == 8 * sizeof(double), "StageTimes changed: keep its new fields");
static_assert(sizeof(models::MemoryBreakdown) == 11 * sizeof(double), "MemoryBreakdown changed: keep its new fields");
static_assert(sizeof(models::StepTimes) == 4 * sizeof(double) + sizeof(std::vector<models::StageTimes>),
              "StepTimes changed: keep its new fields");
static_assert(sizeof(models::StepReport) == sizeof(models::StepTimes) + 8 * sizeof(double) +
                                                sizeof(std::vector<std::int64_t>) +
                                                sizeof(std::vector<models::MemoryBreakdown>) +
                                                2 * sizeof(std::vector<std::string>),
              "StepReport changed: keep its new fields");

void write_report(BitRecordWriter& w, const models::StepReport& r) {
  const models::StepTimes& t = r.times;
  for (const double x : {t.step_time_s, t.bubble_fraction, t.exposed_comm_fraction, t.compute_fraction}) w.number(x);
  w.count(static_cast<std::int64_t>(t.stages.size()));
  for (const auto& s : t.stages) {
    for (const double x : {s.compute_s, s.exposed_comm_s, s.bubble_s, s.tp_comm_s, s.pp_comm_s, s.dp_comm_s, s.cp_comm_s, s.ep_comm_s}) {
      w.number(x);
    }
  }
  w.count(r.micro_batches);
  w.count(static_cast<std::int64_t>(r.layers_per_chunk.size()));
  for (const std::int64_t layers : r.layers_per_chunk) w.count(layers);
  for (const double x : {r.tokens_per_s, r.tokens_per_s_per_gpu, r.model_tflops_per_gpu, r.mfu, r.hfu}) w.number(x);
  w.count(static_cast<std::int64_t>(r.memory_per_stage.size()));
  for (const auto& m : r.memory_per_stage) {
    for (const double x : {m.parameters, m.weights_bytes, m.gradients_bytes, m.optimizer_bytes, m.activations_bytes,
                           m.other_bytes, m.cuda_context_bytes, m.nccl_bytes, m.workspace_bytes, m.fragmentation_bytes,
                           m.total_bytes}) {
      w.number(x);
    }
  }
  w.count(r.peak_memory_stage);
  w.flag(r.fits_in_memory);
  w.count(static_cast<std::int64_t>(r.notes.size()));
  for (const auto& note : r.notes) w.text(note);
  w.count(static_cast<std::int64_t>(r.failed_links.size()));
  for (const auto& link : r.failed_links) w.text(link);
}

models::StepReport read_report(BitRecordReader& r) {
  models::StepReport report;
  models::StepTimes& t = report.times;
  for (double* x : {&t.step_time_s, &t.bubble_fraction, &t.exposed_comm_fraction, &t.compute_fraction}) *x = r.number();
  t.stages.resize(r.items());
  for (auto& s : t.stages) {
    for (double* x : {&s.compute_s, &s.exposed_comm_s, &s.bubble_s, &s.tp_comm_s, &s.pp_comm_s, &s.dp_comm_s, &s.cp_comm_s, &s.ep_comm_s}) {
      *x = r.number();
    }
  }
  report.micro_batches = r.count();
  report.layers_per_chunk.resize(r.items());
  for (auto& layers : report.layers_per_chunk) layers = r.count();
  for (double* x : {&report.tokens_per_s, &report.tokens_per_s_per_gpu, &report.model_tflops_per_gpu, &report.mfu,
                    &report.hfu}) {
    *x = r.number();
  }
  report.memory_per_stage.resize(r.items());
  for (auto& m : report.memory_per_stage) {
    for (double* x : {&m.parameters, &m.weights_bytes, &m.gradients_bytes, &m.optimizer_bytes, &m.activations_bytes,
                      &m.other_bytes, &m.cuda_context_bytes, &m.nccl_bytes, &m.workspace_bytes, &m.fragmentation_bytes,
                      &m.total_bytes}) {
      *x = r.number();
    }
  }
  report.peak_memory_stage = r.count();
  report.fits_in_memory = r.flag();
  report.notes.resize(r.items());
  for (auto& note : report.notes) note = r.text();
  report.failed_links.resize(r.items());
  for (auto& link : report.failed_links) link = r.text();
  return report;
}

}  // namespace

std::string step_reports_text(const std::vector<models::StepReport>& reports) {
  BitRecordWriter w;
  w.count(static_cast<std::int64_t>(reports.size()));
  for (const auto& report : reports) write_report(w, report);
  return w.take();
}

std::vector<models::StepReport> step_reports_from_text(std::string_view text, std::string_view what) {
  BitRecordReader r(text, what);
  std::vector<models::StepReport> reports(r.items());
  for (auto& report : reports) report = read_report(r);
  r.finish();
  return reports;
}

void PlanResumeStore::rounds(std::size_t most) { file_.emplace(path_, job_, most); }

std::optional<std::vector<models::StepReport>> PlanResumeStore::kept(std::size_t round) {
  const std::string* text = file_ ? file_->find(round) : nullptr;
  if (text == nullptr) return std::nullopt;
  return step_reports_from_text(*text, "round " + std::to_string(round));
}

void PlanResumeStore::keep(std::size_t round, const std::vector<models::StepReport>& reports) {
  if (file_) file_->add(round, step_reports_text(reports));
}

void PlanResumeStore::remove() const {
  std::error_code ignored;
  std::filesystem::remove(path_, ignored);
}

}  // namespace clustersim::tools
