// The pipeline split a job gives (parallelism.layers_per_chunk) against the even split: each chunk
// runs its own layers, and the chunks at the two ends, which also hold the embedding and the loss,
// may hold no layer at all (Megatron-Core's --account-for-embedding/loss-in-pipeline-split).
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "models/step/pipeline_schedule.hpp"
#include "models/step/step_model.hpp"
#include "tests/models/step/step_fixtures.hpp"

using namespace clustersim::models;

namespace {

bool has_note(const StepReport& report, const std::string& what) {
  return std::any_of(report.notes.begin(), report.notes.end(),
                     [&](const std::string& n) { return n.find(what) != std::string::npos; });
}

}  // namespace

TEST_CASE("pipeline split: the job's split replaces the even one, chunk by chunk") {
  // Llama 3 70B's 80 layers on 4 stages: the even split gives 20 a stage; the job's moves the
  // first stage's layers to the others and leaves it the embedding alone. With free links a
  // chunk's pass is its layers' passes plus, at the ends, the embedding's or the output layer's, so
  // with F one layer's forward and E the embedding's (both from the even split's plan):
  //   even: stage 0 = 20 F + E, stage 1 = 20 F;   job's: stage 0 = E, stage 1 = 27 F.
  StepInputs even = test::llama70b_on_256();
  even.cluster.ideal_network = true;
  StepInputs split = even;
  split.parallelism.layers_per_chunk = {0, 27, 27, 26};
  CHECK(chunk_layers(80, even.parallelism) == split_layers(80, 4, 1));
  CHECK(chunk_layers(80, split.parallelism) == std::vector<std::int64_t>{0, 27, 27, 26});

  const StepPlan a = plan_step(even), b = plan_step(split);
  const double layer_forward = a.stages[1].chunks[0].forward_s / 20.0;
  const double embedding_forward = a.stages[0].chunks[0].forward_s - 20.0 * layer_forward;
  CHECK(embedding_forward > 0.0);
  CHECK(b.stages[0].chunks[0].layers == 0);
  CHECK(b.stages[0].chunks[0].forward_s == doctest::Approx(embedding_forward).epsilon(1e-9));
  CHECK(b.stages[1].chunks[0].forward_s == doctest::Approx(27.0 * layer_forward).epsilon(1e-9));
  CHECK(b.stages[3].chunks[0].forward_s ==
        doctest::Approx(a.stages[3].chunks[0].forward_s + 6.0 * layer_forward).epsilon(1e-9));

  // The report: the split as given, and the first stage holds the embedding's parameters only.
  const StepReport r = step_report(split);
  CHECK(r.layers_per_chunk == std::vector<std::int64_t>{0, 27, 27, 26});
  CHECK(has_note(r, "parallelism.layers_per_chunk"));
  const StepReport e = step_report(even);
  CHECK(r.memory_per_stage[0].parameters < e.memory_per_stage[0].parameters / 10.0);
  CHECK(r.memory_per_stage[1].parameters > e.memory_per_stage[1].parameters);
  // Stage 1 now carries the pipeline: the step is longer than the even split's.
  CHECK(r.times.step_time_s > e.times.step_time_s);
}

TEST_CASE("pipeline split: Llama 3 405B one layer a chunk, the embedding and the loss alone at the ends") {
  // 126 layers on 16 stages x 8 chunks = 128 chunks: the first holds only the embedding, the last
  // only the loss. pp x vp exceeds the layers, which only the job's split allows.
  StepInputs in = test::llama70b_on_256();
  in.model.layers = 126;
  in.model.hidden = 16384;
  in.model.ffn_hidden = 53248;
  in.model.heads = 128;
  in.cluster.num_gpus = 8192;
  in.parallelism = {.tp = 8, .pp = 16, .dp = 64, .vp = 8, .sp = true, .zero = 1};
  in.training = {.seq_len = 8192, .micro_batch = 1, .global_batch = 2048, .schedule = Schedule::interleaved};
  in.comm = default_comm_profile(in.cluster);
  in.parallelism.layers_per_chunk.assign(128, 1);
  in.parallelism.layers_per_chunk.front() = 0;
  in.parallelism.layers_per_chunk.back() = 0;
  CHECK_NOTHROW(check_layout(in));
  const StepReport r = step_report(in);
  CHECK(r.times.step_time_s > 0.0);
  // Every stage holds 8 layers but the first and the last, 7.
  const StepPlan plan = plan_step(in);
  for (std::size_t s = 0; s < plan.stages.size(); ++s) {
    std::int64_t layers = 0;
    for (const ChunkCosts& c : plan.stages[s].chunks) layers += c.layers;
    CHECK(layers == (s == 0 || s + 1 == plan.stages.size() ? 7 : 8));
  }

  // Without the job's split the same pp x vp is refused, naming the key that allows it.
  in.parallelism.layers_per_chunk.clear();
  CHECK_THROWS_WITH_AS(check_layout(in), doctest::Contains("parallelism.layers_per_chunk may leave"), LayoutError);
}
