#include <doctest/doctest.h>

#include <string>

#include "calibration/input_error.hpp"
#include "calibration/nccl_tests_log.hpp"
#include "tests/calibration/calibration_fixtures.hpp"

namespace {

using clustersim::calibration::InputError;
using clustersim::calibration::parse_nccl_tests_log;
using clustersim::calibration::read_nccl_tests_log;
using clustersim::calibration::test::data_path;
using clustersim::calibration::test::nccl_log;
using clustersim::models::CollectiveOp;

// The error a parse throws, or "" if it succeeds.
std::string parse_error(const std::string& text) {
  try {
    parse_nccl_tests_log(text, "log.txt");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// 8 ranks on one host. Rows computed by hand: 8 MiB in 100 us is algbw 8388608 / 100e-6 / 1e9 =
// 83.89 GB/s; busbw multiplies by the bus factor: 2 x 7/8 = 1.75 for all-reduce (146.81), 7/8 for
// all-gather, reduce-scatter and all-to-all (73.40), 1 for send/recv. nccl-tests prints the per-rank
// count: 8388608 / 4 B = 2097152 floats for all-reduce and send/recv, / 8 ranks = 262144 otherwise.
const std::string all_reduce_row = "     8388608       2097152     float     sum      -1   100.00   83.89  146.81      0   100.00   83.89  146.81      0";
const std::string send_recv_row = "     8388608       2097152     float     sum      -1   100.00   83.89   83.89      0   100.00   83.89   83.89      0";
const std::string all_gather_row = "     8388608        262144     float    none      -1   100.00   83.89   73.40      0   100.00   83.89   73.40      0";
const std::string reduce_scatter_row = "     8388608        262144     float     sum      -1   100.00   83.89   73.40      0   100.00   83.89   73.40      0";

TEST_CASE("nccl-tests log: the single-node H100 log of nccl-tests #290") {
  const auto log = read_nccl_tests_log(data_path("h100_1n8g_allreduce_nccl-tests-290.txt"));
  // Header: "# nThread 1 nGpus 8 ... warmup iters: 5 iters: 2"; 8 ranks on node005.
  CHECK(log.threads == 1);
  CHECK(log.gpus_per_thread == 8);
  CHECK(log.warmup_iters == 5);
  CHECK(log.iters == 2);
  CHECK(log.ranks == 8);
  CHECK(log.nodes == 1);
  CHECK(log.gpus_per_node == 8);
  REQUIRE(log.hosts.size() == 1);
  CHECK(log.hosts[0] == "node005");
  CHECK(log.device_name == "NVIDIA H100 80GB HBM3");
  CHECK(log.nccl_version.empty());
  // float, sum, size = count x 4 and busbw / algbw = 382.99 / 218.85 = 1.75: all-reduce.
  CHECK(log.op == CollectiveOp::all_reduce);
  CHECK(log.op_evidence == "table columns");
  REQUIRE(log.rows.size() == 6);
  CHECK(log.rows[0].size_bytes == 134217728);
  CHECK(log.rows[0].count == 33554432);
  CHECK(log.rows[0].type == "float");
  CHECK(log.rows[0].redop == "sum");
  CHECK(log.rows[0].root == -1);
  CHECK(log.rows[0].out_of_place.time_us == doctest::Approx(613.3));
  CHECK(log.rows[0].out_of_place.busbw_gb_per_s == doctest::Approx(382.99));
  CHECK(log.rows[0].line == 16);
  REQUIRE(log.rows[5].in_place.has_value());
  CHECK(log.rows[5].size_bytes == 4294967296);
  CHECK(log.rows[5].in_place->busbw_gb_per_s == doctest::Approx(476.53));
  // Out of place 15870 us, in place 15773 us: the faster counts.
  CHECK(log.rows[5].best_time_us() == doctest::Approx(15773.0));
  REQUIRE(log.avg_busbw_gb_per_s.has_value());
  CHECK(*log.avg_busbw_gb_per_s == doctest::Approx(439.369));
}

TEST_CASE("nccl-tests log: the 2-node log of nccl-tests #309, with MPI chatter between the lines") {
  const auto log = read_nccl_tests_log(data_path("h100_2n16g_ib-ndr_allreduce_nccl-tests-309.txt"));
  CHECK(log.ranks == 16);
  CHECK(log.nodes == 2);
  CHECK(log.gpus_per_node == 8);
  REQUIRE(log.hosts.size() == 2);
  CHECK(log.hosts[0] == "bm-h100-01");
  CHECK(log.hosts[1] == "bm-h100-02");
  CHECK(log.nccl_version == "2.26.2+cuda12.8");
  CHECK(log.op == CollectiveOp::all_reduce);
  REQUIRE(log.rows.size() == 32);  // 8 B to 16 GiB, powers of two
  CHECK(log.rows.front().size_bytes == 8);
  CHECK(log.rows.front().out_of_place.time_us == doctest::Approx(68.52));
  CHECK(log.rows.front().best_time_us() == doctest::Approx(24.70));  // the in-place run
  CHECK(log.rows.back().size_bytes == 17179869184);
  CHECK(log.rows.back().out_of_place.busbw_gb_per_s == doctest::Approx(469.21));
  CHECK(*log.avg_busbw_gb_per_s == doctest::Approx(139.56));
}

TEST_CASE("nccl-tests log: the 8-node log of nccl-tests #309") {
  const auto log = read_nccl_tests_log(data_path("h100_8n64g_ib400_allreduce_default_nccl-tests-309.txt"));
  CHECK(log.ranks == 64);
  CHECK(log.nodes == 8);
  CHECK(log.gpus_per_node == 8);
  CHECK(log.hosts[7] == "b3a57cc9");
  CHECK(log.op == CollectiveOp::all_reduce);  // busbw / algbw = 2 x 63/64 = 1.969
  REQUIRE(log.rows.size() == 14);
  // The 8 MiB out-of-place run was disturbed (1272.4 us); the in-place one was not (321.4 us).
  CHECK(log.rows[3].size_bytes == 8388608);
  CHECK(log.rows[3].best_time_us() == doctest::Approx(321.4));
  CHECK(*log.avg_busbw_gb_per_s == doctest::Approx(183.055));
}

TEST_CASE("nccl-tests log: the table's columns tell the collectives apart") {
  CHECK(parse_nccl_tests_log(nccl_log(8, 8, {all_reduce_row}), "x").op == CollectiveOp::all_reduce);
  CHECK(parse_nccl_tests_log(nccl_log(8, 8, {send_recv_row}), "x").op == CollectiveOp::send_recv);
  CHECK(parse_nccl_tests_log(nccl_log(8, 8, {reduce_scatter_row}), "x").op == CollectiveOp::reduce_scatter);
  // All-gather and all-to-all print the same columns: only a name decides.
  CHECK(parse_error(nccl_log(8, 8, {all_gather_row})).find("all_gather, all_to_all fit the table") != std::string::npos);
  CHECK(parse_nccl_tests_log(nccl_log(8, 8, {all_gather_row}, "# ./build/all_gather_perf -b 8M -e 8M -g 1\n"), "x").op ==
        CollectiveOp::all_gather);
  CHECK(parse_nccl_tests_log(nccl_log(8, 8, {all_gather_row}, "# ./build/alltoall_perf -b 8M -e 8M -g 1\n"), "x").op ==
        CollectiveOp::all_to_all);
  CHECK(parse_nccl_tests_log(nccl_log(8, 8, {all_gather_row}, "# collective: all_to_all\n"), "x").op ==
        CollectiveOp::all_to_all);
  const auto given = parse_nccl_tests_log(nccl_log(8, 8, {all_gather_row}), "x", CollectiveOp::all_gather);
  CHECK(given.op == CollectiveOp::all_gather);
  CHECK(given.op_evidence == "given by the caller");
  // 16 ranks on 2 hosts: nodes and ranks per node come from the host names. Reduce-scatter of
  // 8 MiB over 16 ranks: count 8388608 / 4 / 16 = 131072, busbw 83.89 x 15/16 = 78.65.
  const auto two = parse_nccl_tests_log(
      nccl_log(16, 8, {"     8388608        131072     float     sum      -1   100.00   83.89   78.65      0   100.00   83.89   78.65      0"}),
      "x");
  CHECK(two.op == CollectiveOp::reduce_scatter);
  CHECK(two.nodes == 2);
  CHECK(two.gpus_per_node == 8);
}

TEST_CASE("nccl-tests log: malformed input names the file, the line and the rule") {
  // Line 14 is the first table row: nThread, "#", "# Using devices", 8 rank lines, "#", header.
  CHECK(parse_error(nccl_log(8, 8, {all_reduce_row.substr(0, all_reduce_row.rfind(' '))})) ==
        "log.txt:14: table row has 12 fields; expected 13 (size count type redop root, then time algbw busbw #wrong "
        "out of place and in place), or 9, 11 or 7 in shorter layouts");
  std::string bad_time = all_reduce_row;
  bad_time.replace(bad_time.find("100.00"), 6, "abc");
  CHECK(parse_error(nccl_log(8, 8, {bad_time})) == "log.txt:14: time is \"abc\", not a non-negative number");
  std::string wrong = all_reduce_row;
  wrong.replace(wrong.rfind('0'), 1, "3");
  CHECK(parse_error(nccl_log(8, 8, {wrong})) == "log.txt:14: 3 wrong elements: the collective returned wrong results");
  std::string bad_count = all_reduce_row;
  bad_count.replace(bad_count.find("2097152"), 7, "2097153");
  CHECK(parse_error(nccl_log(8, 8, {bad_count})).starts_with("log.txt:14: size 8388608 is neither count x type size"));
  CHECK(parse_error("# Using devices\n   8   2   float   sum   -1   10.0   0.00   0.00   0\n") ==
        "log.txt: not an nccl-tests log: no \"# nThread ...\" header line (a table published without it needs a \"# "
        "ranks: N on M nodes\" line)");
  CHECK(parse_error(nccl_log(8, 8, {all_reduce_row}, "# ./all_gather_perf -g 8\n")) ==
        "log.txt:1: names all_gather but the table's columns allow only all_reduce");
  std::string gap = nccl_log(8, 8, {all_reduce_row});
  gap.erase(gap.find("#  Rank 1 "), gap.find("#  Rank 2 ") - gap.find("#  Rank 1 "));
  CHECK(parse_error(gap) == "log.txt: rank 1 is missing (ranks must run from 0 to n-1)");
  CHECK(parse_error(nccl_log(8, 8, {})) == "log.txt: no table rows (lines starting with the message size in bytes)");
}

TEST_CASE("nccl-tests log: a table published without its header reads with a stated layout") {
  // The all-gather row of 16 ranks (reduce-scatter's sizes with redop none), as a README shows it:
  // no "# nThread" header, no Rank lines.
  const std::string row =
      "     8388608        131072     float    none      -1   100.00   83.89   78.65      0   100.00   83.89   78.65      0";
  const std::string table = "# all_gather_perf -b 1K -e 8G\n" + row + "\n# Avg bus bandwidth    : 78.65\n";
  CHECK(parse_error(table).find("no \"# nThread ...\" header line") != std::string::npos);
  const auto log = parse_nccl_tests_log("# ranks: 16 on 2 nodes\n" + table, "x");
  CHECK(log.op == CollectiveOp::all_gather);
  CHECK(log.ranks == 16);
  CHECK(log.nodes == 2);
  CHECK(log.gpus_per_node == 8);
  CHECK(log.hosts.empty());
  REQUIRE(log.rows.size() == 1);
  CHECK(log.rows[0].best_time_us() == doctest::Approx(100.0));
  // The count column must agree with the stated ranks: 8388608 B / 4 B / 16 = 131072.
  CHECK(parse_error("# ranks: 8 on 1 node\n" + table).starts_with("log.txt:3: size 8388608 is neither count x type size"));
  CHECK(parse_error("# ranks: 16 on 3 nodes\n" + table) ==
        "log.txt:1: ranks must be a whole multiple of the nodes, each at least 1 (one million ranks at most)");
  CHECK(parse_error("# ranks: sixteen\n" + table) == "log.txt:1: a ranks line is \"# ranks: N on M nodes\"");
  CHECK(parse_error("# ranks: 16 on 2 nodes\n# ranks: 16 on 2 nodes\n" + table) ==
        "log.txt:2: a second ranks line (the first on line 1)");
  // Beside Rank lines, the stated layout must be theirs.
  CHECK(parse_error(nccl_log(16, 8, {row}, "# ranks: 16 on 4 nodes\n")) ==
        "log.txt:1: declares 16 ranks on 4 nodes but the Rank lines list 16 on 2");
  CHECK(parse_nccl_tests_log(nccl_log(16, 8, {row}, "# ranks: 16 on 2 nodes\n# collective: all_gather\n"), "x")
            .hosts.size() == 2);
}

TEST_CASE("nccl-tests log: a line that looks like a row and is broken is an error, not skipped") {
  const auto with_first = [](std::string_view size, std::string_view count) {
    std::string row = all_reduce_row;
    row.replace(row.find("8388608"), 7, size);
    row.replace(row.find("2097152"), 7, count);
    return row;
  };
  CHECK(parse_error(nccl_log(8, 8, {with_first("true", "2097152")})) ==
        "log.txt:14: size (bytes) is \"true\", not a whole number");
  CHECK(parse_error(nccl_log(8, 8, {with_first("1e-320", "2097152")})) ==
        "log.txt:14: size (bytes) is \"1e-320\", not a whole number");
  CHECK(parse_error(nccl_log(8, 8, {with_first("-8388608", "2097152")})) ==
        "log.txt:14: size (bytes) is \"-8388608\", not a whole number");
  CHECK(parse_error(nccl_log(8, 8, {with_first("8388608", "0")})) ==
        "log.txt:14: count 0 with size 8388608 bytes: only a zero-byte row has count 0");
  CHECK(parse_error(nccl_log(8, 8, {with_first("8388608", "2.5")})) ==
        "log.txt:14: count (elements) is \"2.5\", not a whole number");
  // nccl-tests' own zero-byte row, and the chatter around a real table, still parse.
  const std::string zero = "           0             0     float     sum      -1     5.00    0.00    0.00      0     5.00    0.00    0.00      0";
  const auto log = parse_nccl_tests_log(
      nccl_log(8, 8, {zero, all_reduce_row}, "NCCL version 2.21.5+cuda12.4\n[host0:1234] mpirun warning\n"), "x");
  CHECK(log.rows.size() == 2);
  CHECK(log.rows[0].size_bytes == 0);
}

}  // namespace
