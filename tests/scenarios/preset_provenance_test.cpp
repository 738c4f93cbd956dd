// Which fields of a preset section the file or a --set wrote is part of the Scenario
// (explicit_preset_fields): --print-scenario writes them, a reload keeps them, and a --set of
// another preset keeps them while the new preset supplies the rest (issue 22). The figures
// are the preset files' (scenarios/presets/gpus/h100-sxm.json, h200-sxm.json; models/llama3-*.json).

#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "scenarios/scenario_io.hpp"

namespace clustersim::scenarios {
namespace {

// The H100 preset with one field written beside it, at the preset's own value (989 TFLOP/s).
constexpr std::string_view h100_with_own_bf16 = R"({"model": {"preset": "llama3-70b"},
  "cluster": {"gpu": {"preset": "h100-sxm", "bf16_tflops": 989}, "num_gpus": 256}})";

// Every field of the H100 and Llama 3 70B presets spelled out, as a scenario printed before
// provenance was kept (or written by hand) has them.
constexpr std::string_view fully_spelled_out = R"({
  "model": {"preset": "llama3-70b", "layers": 80, "hidden": 8192, "ffn_hidden": 28672, "heads": 64,
            "kv_heads": 8, "vocab": 128256, "mlp": "swiglu", "tied_embeddings": false, "dropout": 0},
  "cluster": {"gpu": {"preset": "h100-sxm", "bf16_tflops": 989, "fp8_tflops": 1979, "hbm_gb": 85.0,
                      "hbm_tb_per_s": 3.35, "nvlink_gb_per_s": 450, "power_w": 700},
              "num_gpus": 256}})";

TEST_CASE("provenance: the fields a file writes beside a preset are explicit, the preset's are not") {
  const Scenario s = load_scenario_text(h100_with_own_bf16, "s.json");
  CHECK(s.explicit_preset_fields == std::set<std::string>{"/cluster/gpu/bf16_tflops"});
  CHECK(default_scenario().explicit_preset_fields.empty());  // "gpu": "h100-sxm", "model": {"preset": ...}
  // A --set writes explicitly too.
  CHECK(default_scenario({"cluster.gpu.hbm_gb=85", "model.layers=80"}).explicit_preset_fields ==
        std::set<std::string>{"/cluster/gpu/hbm_gb", "/model/layers"});
  // A section replaced whole by a --set has only what the new object writes.
  const Scenario replaced = load_scenario_text(h100_with_own_bf16, "s.json", {R"(cluster.gpu={"preset": "h200-sxm"})"});
  CHECK(replaced.explicit_preset_fields.empty());
  CHECK(replaced.cluster.gpu.hbm_bytes == 150.1e9);
  // Without a preset every field is the file's own anyway: nothing to record.
  const Scenario custom = load_scenario_text(R"({"model": {"preset": "llama3-70b"},
    "cluster": {"gpu": {"bf16_tflops": 500, "fp8_tflops": 0, "hbm_gb": 40, "hbm_tb_per_s": 1.5,
                        "nvlink_gb_per_s": 300, "power_w": 400}, "num_gpus": 256}})",
                                             "s.json");
  CHECK(custom.explicit_preset_fields.empty());
}

TEST_CASE("provenance: --set of another GPU preset keeps the explicit 989 and takes the H200's HBM") {
  for (const std::string assignment : {"cluster.gpu=h200-sxm", "cluster.gpu.preset=h200-sxm"}) {
    CAPTURE(assignment);
    std::vector<std::string> notes;
    const Scenario s = load_scenario_text(h100_with_own_bf16, "s.json", {assignment}, LayoutCheck::own_layout, &notes);
    CHECK(s.cluster.gpu.name == "h200-sxm");
    CHECK(s.cluster.gpu.bf16_flops_per_s == 989e12);
    CHECK(s.cluster.gpu.hbm_bytes == 150.1e9);         // h200-sxm.json: hbm_gb 150.1 (141 GB HBM3e as CUDA counts it)
    CHECK(s.cluster.gpu.hbm_bytes_per_s == 4.8e12);    // h200-sxm.json: hbm_tb_per_s 4.8
    CHECK(s.explicit_preset_fields == std::set<std::string>{"/cluster/gpu/bf16_tflops"});
    CHECK(notes.empty());  // 989 is the H200's figure too: keeping it changes nothing
  }
  // A kept field whose old preset value differs from the new one's stays the file's, with a note.
  std::vector<std::string> notes;
  const Scenario slow = load_scenario_text(R"({"model": {"preset": "llama3-70b"},
    "cluster": {"gpu": {"preset": "h100-sxm", "hbm_tb_per_s": 3.35}, "num_gpus": 256}})",
                                           "s.json", {"cluster.gpu=h200-sxm"}, LayoutCheck::own_layout, &notes);
  CHECK(slow.cluster.gpu.hbm_bytes_per_s == 3.35e12);
  CHECK(slow.cluster.gpu.hbm_bytes == 150.1e9);
  CHECK(notes == std::vector<std::string>{"s.json: /cluster/gpu/hbm_tb_per_s = 3.35 is kept from the file "
                                          "(h100-sxm's own value); remove it to take h200-sxm's 4.8"});
}

TEST_CASE("provenance: print, read, print is byte-identical with an explicit field at the preset's value") {
  const Scenario loaded = load_scenario_text(h100_with_own_bf16, "s.json");
  const std::string printed = to_json(loaded);
  CHECK(printed.find("\"bf16_tflops\": 989") != std::string::npos);
  CHECK(printed.find("hbm_gb") == std::string::npos);  // the preset's alone
  const Scenario reread = load_scenario_text(printed, "printed.json");
  CHECK(reread == loaded);
  CHECK(reread.explicit_preset_fields == loaded.explicit_preset_fields);
  CHECK(to_json(reread) == printed);
  // The same through a --set, and for the model section.
  const Scenario set = default_scenario({"model.layers=80", "cluster.gpu.power_w=700"});
  const std::string set_printed = to_json(set);
  CHECK(set_printed.find("\"layers\": 80") != std::string::npos);
  CHECK(set_printed.find("\"power_w\": 700") != std::string::npos);
  CHECK(set_printed.find("\"hidden\"") == std::string::npos);
  CHECK(load_scenario_text(set_printed, "printed.json") == set);
  CHECK(to_json(load_scenario_text(set_printed, "printed.json")) == set_printed);
}

TEST_CASE("provenance: a fully spelled-out file keeps the old preset's figures, one note per differing field") {
  std::vector<std::string> notes;
  const Scenario s =
      load_scenario_text(fully_spelled_out, "old.json", {"cluster.gpu=h200-sxm"}, LayoutCheck::own_layout, &notes);
  CHECK(s.cluster.gpu.hbm_bytes == 85.0e9);
  CHECK(s.cluster.gpu.hbm_bytes_per_s == 3.35e12);
  // H100 and H200 differ in HBM capacity and bandwidth only; the other four are the same figures.
  CHECK(notes == std::vector<std::string>{
                     "old.json: /cluster/gpu/hbm_gb = 85 is kept from the file (h100-sxm's own value); "
                     "remove it to take h200-sxm's 150.1",
                     "old.json: /cluster/gpu/hbm_tb_per_s = 3.35 is kept from the file (h100-sxm's own value); "
                     "remove it to take h200-sxm's 4.8"});
  // Llama 3 8B against 70B: 32 layers, 4096 hidden, 14336 FFN, 32 heads; kv_heads, vocab and the rest alike.
  notes.clear();
  const Scenario m = load_scenario_text(fully_spelled_out, "old.json", {"model.preset=llama3-8b", "parallelism.tp=4"},
                                        LayoutCheck::own_layout, &notes);
  CHECK(m.model.layers == 80);
  REQUIRE(notes.size() == 4);
  CHECK(notes[0] == "old.json: /model/layers = 80 is kept from the file (llama3-70b's own value); "
                    "remove it to take llama3-8b's 32");
  CHECK(notes[1].starts_with("old.json: /model/hidden = 8192 is kept"));
  CHECK(notes[2].starts_with("old.json: /model/ffn_hidden = 28672 is kept"));
  CHECK(notes[3].ends_with("remove it to take llama3-8b's 32"));
  CHECK(notes[3].starts_with("old.json: /model/heads = 64 is kept"));
  // No note without a change of preset, nor for a field the --sets themselves write.
  notes.clear();
  load_scenario_text(fully_spelled_out, "old.json", {"cluster.gpu=h100-sxm", "parallelism.tp=4"},
                     LayoutCheck::own_layout, &notes);
  load_scenario_text(fully_spelled_out, "old.json", {"cluster.gpu.hbm_gb=85", "cluster.gpu.hbm_tb_per_s=3.35",
                                                     "cluster.gpu=h200-sxm"},
                     LayoutCheck::own_layout, &notes);
  CHECK(notes.empty());
}

}  // namespace
}  // namespace clustersim::scenarios
