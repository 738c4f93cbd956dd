// The TOML subset reader on torchtitan's real llama3_70b.toml (tests/handoff/data/
// README_torchtitan_deepspeed.md), its errors, and the writer read back.

#include "handoff/toml/toml_subset.hpp"

#include <doctest/doctest.h>

#include "scenarios/bounded_input.hpp"

namespace clustersim::handoff {
namespace {

using Json = nlohmann::ordered_json;

std::string toml_data(const std::string& name) {
  return scenarios::read_input_file_bounded(std::string(CLUSTERSIM_SOURCE_DIR) + "/tests/handoff/data/" + name);
}

std::string toml_error_of(std::string_view text) {
  try {
    parse_toml_subset(text, "t.toml");
  } catch (const TomlError& e) {
    return e.what();
  }
  return "";
}

TEST_CASE("toml subset: torchtitan's llama3_70b.toml") {
  const Json doc = parse_toml_subset(toml_data("torchtitan_llama3_70b.toml"), "llama3_70b.toml");
  // Values as the file writes them (read by hand).
  CHECK(doc["job"]["description"] == "Llama 3 70B training");
  CHECK(doc["model"]["name"] == "llama3");
  CHECK(doc["model"]["flavor"] == "70B");
  CHECK(doc["optimizer"]["lr"].get<double>() == doctest::Approx(1.5e-4));
  CHECK(doc["optimizer"]["eps"].get<double>() == doctest::Approx(1e-8));
  CHECK(doc["training"]["local_batch_size"] == 8);
  CHECK(doc["training"]["seq_len"] == 8192);
  CHECK(doc["training"]["max_norm"].get<double>() == 1.0);
  CHECK(doc["training"]["max_norm"].is_number_float());
  CHECK(doc["parallelism"]["data_parallel_shard_degree"] == -1);
  CHECK(doc["parallelism"]["tensor_parallel_degree"] == 8);
  CHECK(doc["profiling"]["enable_profiling"] == true);
  CHECK(doc["checkpoint"]["enable"] == false);
  CHECK(doc["checkpoint"]["async_mode"] == "disabled");  // a comment follows the value on its line
  CHECK(doc["activation_checkpoint"]["mode"] == "full");
  CHECK(doc["compile"]["enable"] == false);  // written "enable=false", without spaces
  CHECK(doc["compile"]["components"] == Json::array({"model", "loss"}));
  CHECK(doc["quantize"]["linear"]["float8"]["filter_fqns"] == Json::array({"output"}));
  CHECK(doc["validation"]["steps"] == 1200);
  // Tables in file order.
  std::vector<std::string> tables;
  for (const auto& [k, v] : doc.items()) tables.push_back(k);
  CHECK(tables.front() == "job");
  CHECK(tables.back() == "validation");
}

TEST_CASE("toml subset: dotted keys, literal strings, escapes, numbers, multi-line arrays") {
  const Json doc = parse_toml_subset("a.b = 1\n"
                                     "[t]\n"
                                     "s = 'C:\\path'\n"
                                     "e = \"q\\\"\\u00e9\\n\"\n"
                                     "big = 1_000_000\n"
                                     "neg = -3\n"
                                     "exp = 5e+22\n"
                                     "f = -0.5\n"
                                     "arr = [\n  [1, 2],  # first\n  [3],\n]\n"
                                     "\"quoted key\" = true\n",
                                     "t.toml");
  CHECK(doc["a"]["b"] == 1);
  CHECK(doc["t"]["s"] == "C:\\path");
  CHECK(doc["t"]["e"] == "q\"\xc3\xa9\n");
  CHECK(doc["t"]["big"] == 1000000);
  CHECK(doc["t"]["neg"] == -3);
  CHECK(doc["t"]["exp"].get<double>() == 5e22);
  CHECK(doc["t"]["f"].get<double>() == -0.5);
  CHECK(doc["t"]["arr"] == Json::parse("[[1, 2], [3]]"));
  CHECK(doc["t"]["quoted key"] == true);
}

TEST_CASE("toml subset: what it does not read is an error naming the line and the rule") {
  CHECK(toml_error_of("[a]\nx = {y = 1}\n") == "t.toml:2: inline tables are not supported (TOML subset: write the table as [name])");
  CHECK(toml_error_of("[[runs]]\n") == "t.toml:1: arrays of tables [[...]] are not supported (TOML subset: [table] headers only)");
  CHECK(toml_error_of("x = \"\"\"long\"\"\"\n") == "t.toml:1: multi-line strings are not supported (TOML subset: one-line strings)");
  CHECK(toml_error_of("\n\nd = 1979-05-27\n") == "t.toml:3: '1979-05-27': dates and times are not supported (TOML subset: no date-time values)");
  CHECK(toml_error_of("h = 0xff\n").starts_with("t.toml:1: '0xff': hexadecimal"));
  CHECK(toml_error_of("x = inf\n") == "t.toml:1: inf and nan are not supported (TOML subset: finite numbers)");
  CHECK(toml_error_of("x = 1\nx = 2\n") == "t.toml:2: key 'x' defined twice (a key is defined once)");
  CHECK(toml_error_of("[a]\n[a]\n") == "t.toml:2: table [a] defined twice (a table is defined once)");
  CHECK(toml_error_of("x = \"open\n") == "t.toml:1: string not closed on its line (one-line strings end with their quote)");
  CHECK(toml_error_of("x = yes\n") == "t.toml:1: 'yes' is not a value (a value is a string, number, boolean or array; strings are quoted)");
  CHECK(toml_error_of("x = 1 2\n") == "t.toml:1: unexpected '2' after a value (one key = value or [table] per line)");
  CHECK(toml_error_of("x = [1, 2\n") == "t.toml:2: array not closed (arrays end with ']')");
  CHECK(toml_error_of("x = 012\n") == "t.toml:1: '012': leading zeros are not allowed (TOML numbers)");
}

TEST_CASE("toml writer: what it writes reads back the same, floats staying floats") {
  const Json doc = Json::parse(R"({"top": 1, "job": {"s": "a \"b\"\n", "f": 2.0, "g": 1.5e-4, "b": false, "l": [1, 2]},
                                   "quantize": {"linear": {"float8": {"recipe_name": "tensorwise"}}}})",
                               nullptr, true, false);
  const std::string text = write_toml(Json(doc), {"header line"});
  CHECK(text ==
        "# header line\n"
        "top = 1\n"
        "\n[job]\n"
        "s = \"a \\\"b\\\"\\n\"\n"
        "f = 2.0\n"
        "g = 0.00015\n"
        "b = false\n"
        "l = [1, 2]\n"
        "\n[quantize.linear.float8]\n"
        "recipe_name = \"tensorwise\"\n");
  const Json back = parse_toml_subset(text, "w.toml");
  CHECK(back["job"]["f"].is_number_float());
  CHECK(back.dump() == Json(doc).dump());
  // Arrays of arrays one inner array a line, read back the same.
  const Json nested = Json::parse(R"({"p": {"parts": [["a", "b"], ["c"]]}})");
  CHECK(write_toml(nested) == "[p]\nparts = [\n  [\"a\", \"b\"],\n  [\"c\"],\n]\n");
  CHECK(parse_toml_subset(write_toml(nested), "n.toml") == nested);
  CHECK_THROWS_AS(write_toml(Json::parse(R"({"a": null})")), std::invalid_argument);
}

}  // namespace
}  // namespace clustersim::handoff
