// The YAML subset reader: a real Megatron-Bridge overrides file, and what it refuses, by line.
#include "handoff/import/yaml_subset.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <map>

namespace clustersim::handoff::yaml_subset_test {
namespace {

std::string data(const std::string& name) {
  const std::string path = std::string(CLUSTERSIM_SOURCE_DIR) + "/tests/handoff/data/" + name;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  REQUIRE(f != nullptr);
  std::string text;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, f)) > 0;) text.append(buffer, n);
  std::fclose(f);
  return text;
}

std::map<std::string, std::string> flat(std::string_view text) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : flatten_yaml(parse_yaml(text))) out[k] = v;
  return out;
}

TEST_CASE("yaml subset: Megatron-Bridge's Llama 3.2 1B tutorial overrides, comments and all") {
  // tests/handoff/data/README.md: tutorials/recipes/llama/conf/llama32_1b_pretrain.yaml @067f987.
  const auto f = flat(data("megatron_bridge_llama32_1b_pretrain.yaml"));
  CHECK(f.size() == 21);  // the scalars the file sets (counted by hand); its commented-out keys are comments
  CHECK(f.at("dataset.seq_length") == "4096");
  CHECK(f.at("train.train_iters") == "100");
  CHECK(f.at("train.global_batch_size") == "8");
  CHECK(f.at("train.micro_batch_size") == "1");
  CHECK(f.at("optimizer.lr") == "0.0003");
  CHECK(f.at("scheduler.lr_decay_style") == "cosine");
  CHECK(f.at("checkpoint.save") == "./checkpoints/llama32_1b");
  CHECK(f.at("model.seq_length") == "4096");
  CHECK(f.at("model.tensor_model_parallel_size") == "1");
  CHECK(f.at("model.context_parallel_size") == "1");
  CHECK(f.at("logger.tensorboard_dir") == "./logs/llama32_1b");
  CHECK(f.at("rng.seed") == "1234");
  CHECK_FALSE(f.contains("logger.wandb_project"));
}

TEST_CASE("yaml subset: quotes, sequences, nulls and nesting") {
  const auto f = flat("---\na:\n  b: 'it''s # not a comment'\n  c: \"x: y\"  # a comment\n  d:\n  e: [1, 2, 3]\n"
                      "list:\n- one\n- \"two\"\nz: ~\n");
  CHECK(f.at("a.b") == "it's # not a comment");
  CHECK(f.at("a.c") == "x: y");
  CHECK(f.at("a.d") == "");
  CHECK(f.at("a.e") == "[1, 2, 3]");
  CHECK(f.at("list") == "[one, two]");
  CHECK(f.at("z") == "~");
  CHECK(yaml_scalar("Et*6|t*6L") == "\"Et*6|t*6L\"");
  CHECK(flat("k: " + yaml_scalar("Et*6|t*6L")).at("k") == "Et*6|t*6L");
}

TEST_CASE("yaml subset: what it does not read is an error naming the line") {
  CHECK_THROWS_WITH_AS(parse_yaml("a:\n\tb: 1\n"), "line 2: a tab in the indentation (YAML indents with spaces)", YamlError);
  CHECK_THROWS_WITH_AS(parse_yaml("a: &x 1\n"), "line 1: anchors and aliases are not supported", YamlError);
  CHECK_THROWS_WITH_AS(parse_yaml("a: |\n  text\n"), "line 1: block scalars (| and >) are not supported", YamlError);
  CHECK_THROWS_WITH_AS(parse_yaml("a: {b: 1}\n"), "line 1: flow mappings ({...}) are not supported", YamlError);
  CHECK_THROWS_WITH_AS(parse_yaml("a: 1\nb: 2\na: 3\n"), "line 3: duplicate key 'a'", YamlError);
  CHECK_THROWS_WITH_AS(parse_yaml("a:\n- b: 1\n"), "line 2: a sequence item that is a mapping or a sequence is not supported",
                       YamlError);
  CHECK_THROWS_WITH_AS(parse_yaml("a: 1\n  b: 2\n"), "line 2: unexpected indentation", YamlError);
  CHECK_THROWS_WITH_AS(parse_yaml("just text\n"), "line 1: expected 'key: value', got 'just text'", YamlError);
  CHECK_THROWS_WITH_AS(parse_yaml("a: 1\n---\nb: 2\n"), "line 2: several documents are not supported", YamlError);
}

}  // namespace
}  // namespace clustersim::handoff::yaml_subset_test
