#include "calibration/nccl_tests_log.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <map>
#include <regex>

#include <fmt/format.h>

#include "calibration/input_error.hpp"
#include "calibration/input_file.hpp"

namespace clustersim::calibration {
namespace {

using models::CollectiveOp;

constexpr std::array kAllOps{CollectiveOp::all_reduce, CollectiveOp::reduce_scatter, CollectiveOp::all_gather,
                             CollectiveOp::all_to_all, CollectiveOp::send_recv};

// A set of candidate collectives, one bit per CollectiveOp.
using OpSet = unsigned;
constexpr OpSet bit(CollectiveOp op) { return 1u << static_cast<unsigned>(op); }
constexpr OpSet kEveryOp = (1u << kAllOps.size()) - 1;
constexpr std::size_t kMaxLineLength = 4096;

std::string describe(OpSet set) {
  std::string names;
  for (const auto op : kAllOps) {
    if ((set & bit(op)) == 0) continue;
    if (!names.empty()) names += ", ";
    names += collective_name(op);
  }
  return names.empty() ? "none" : names;
}

int type_size(std::string_view type) {
  static const std::map<std::string_view, int> sizes = {
      {"int8", 1},  {"uint8", 1},  {"char", 1},   {"int32", 4},  {"uint32", 4},   {"int", 4},
      {"int64", 8}, {"uint64", 8}, {"half", 2},   {"float", 4},  {"double", 8},   {"bfloat16", 2},
      {"f8e4m3", 1}, {"f8e5m2", 1}, {"fp8_e4m3", 1}, {"fp8_e5m2", 1}};
  const auto it = sizes.find(type);
  return it == sizes.end() ? 0 : it->second;
}

bool all_digits(std::string_view word) {
  return !word.empty() && std::all_of(word.begin(), word.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A line that is meant as a table row, broken or not: its first word starts like a number
// ("1e-320", "-8", ".5"), or it has a row's shape with a data type in the third place ("true 2
// float sum -1 ..."). Other lines without "#" are chatter nccl-tests or its launcher prints (the
// "NCCL version" line, NCCL INFO lines, mpirun warnings such as "[host:pid] ...") and are skipped.
bool looks_like_row(const std::vector<std::string_view>& words) {
  const char first = words.front().front();
  if ((first >= '0' && first <= '9') || first == '-' || first == '+' || first == '.') return true;
  const std::size_t n = words.size();
  return (n == 13 || n == 11 || n == 9 || n == 7) && type_size(words[2]) > 0;
}

template <class T>
std::optional<T> to_number(std::string_view word) {
  T value{};
  const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), value);
  if (error != std::errc{} || end != word.data() + word.size()) return std::nullopt;
  return value;
}

class LogParser {
 public:
  LogParser(std::string_view text, const std::string& file) : lines_(split_lines(text)) { log_.file = file; }

  NcclTestsLog parse(std::optional<CollectiveOp> requested) {
    for (std::size_t i = 0; i < lines_.size(); ++i) parse_line(static_cast<int>(i + 1), lines_[i]);
    if (!saw_header_ && declared_line_ == 0) {
      fail(0, "not an nccl-tests log: no \"# nThread ...\" header line (a table published without it needs a \"# "
              "ranks: N on M nodes\" line)");
    }
    finish_ranks();
    if (log_.rows.empty()) fail(0, "no table rows (lines starting with the message size in bytes)");
    for (const auto& row : log_.rows) constrain_by_row(row);
    decide_op(requested);
    return std::move(log_);
  }

 private:
  [[noreturn]] void fail(int line, const std::string& rule) const { throw InputError(log_.file, line, rule); }

  void parse_line(int number, std::string_view raw) {
    const std::string_view line = trim(raw);
    if (line.empty()) return;
    // nccl-tests prints lines of about 130 characters; std::regex recurses once per character,
    // so an unbounded line could overflow the stack.
    if (line.size() > kMaxLineLength) {
      fail(number, fmt::format("a line of {} characters: longer than any nccl-tests line ({} at most)", line.size(),
                               kMaxLineLength));
    }
    find_command_name(number, line);
    if (line.starts_with('#')) {
      parse_comment(number, trim(line.substr(1)));
      return;
    }
    const auto words = split_words(line);
    if (looks_like_row(words)) {
      parse_row(number, words);
      return;
    }
    static const std::regex version(R"(NCCL version (\S+))");
    std::match_results<std::string_view::const_iterator> match;
    if (log_.nccl_version.empty() && std::regex_search(line.begin(), line.end(), match, version)) {
      log_.nccl_version = match[1].str();
    }
  }

  void parse_comment(int number, std::string_view body) {
    if (body.starts_with("nThread")) {
      parse_header(number, body);
    } else if (body.starts_with("Rank")) {
      parse_rank(number, body);
    } else if (body.starts_with("ranks:")) {
      parse_declared_ranks(number, body);
    } else if (body.starts_with("Avg bus bandwidth")) {
      const auto colon = body.find(':');
      const auto value = colon == std::string_view::npos ? std::nullopt : to_number<double>(trim(body.substr(colon + 1)));
      if (!value) fail(number, "\"# Avg bus bandwidth : x\" without a number after the colon");
      log_.avg_busbw_gb_per_s = *value;
    } else if (body.starts_with("Out of bounds values")) {
      const auto colon = body.find(':');
      const auto words = split_words(colon == std::string_view::npos ? std::string_view{} : body.substr(colon + 1));
      const auto count = words.empty() ? std::nullopt : to_number<std::int64_t>(words.front());
      if (!count) fail(number, "\"# Out of bounds values : n OK\" without a count");
      if (*count != 0) fail(number, fmt::format("{} out-of-bounds values: the run failed validation", *count));
    }
  }

  void parse_header(int number, std::string_view body) {
    if (saw_header_) fail(number, "a second \"# nThread\" header: one run per file");
    saw_header_ = true;
    const auto words = split_words(body);
    auto int_after = [&](std::size_t i) -> int {
      if (i + 1 >= words.size()) fail(number, fmt::format("\"{}\" without a value in the header", words[i]));
      const auto value = to_number<int>(words[i + 1]);
      if (!value) fail(number, fmt::format("header value of \"{}\" is \"{}\", not an integer", words[i], words[i + 1]));
      return *value;
    };
    for (std::size_t i = 0; i < words.size(); ++i) {
      if (words[i] == "nThread") log_.threads = int_after(i);
      else if (words[i] == "nGpus") log_.gpus_per_thread = int_after(i);
      else if (words[i] == "iters:") {
        const std::string_view previous = i > 0 ? words[i - 1] : "";
        if (previous == "warmup") log_.warmup_iters = int_after(i);
        else if (previous != "agg") log_.iters = int_after(i);
      }
    }
  }

  void parse_rank(int number, std::string_view body) {
    // "Rank  0 Group  0 Pid 295203 on node005 device  0 [0x18] NVIDIA H100 80GB HBM3"; old
    // versions have no "Group".
    static const std::regex rank(
        R"(^Rank\s+(\d+)\s+(?:Group\s+\d+\s+)?Pid\s+\d+\s+on\s+(\S+)\s+device\s+(\d+)\s+\[[^\]]*\]\s*(.*)$)");
    std::match_results<std::string_view::const_iterator> match;
    if (!std::regex_match(body.begin(), body.end(), match, rank)) {
      fail(number, "rank line is not \"#  Rank r [Group g] Pid p on HOST device d [bus] NAME\"");
    }
    const auto index = to_number<std::int64_t>(match[1].str());
    if (!index || *index > 1'000'000) fail(number, "rank number out of range");
    if (!rank_hosts_.emplace(*index, match[2].str()).second) fail(number, fmt::format("rank {} listed twice", *index));
    rank_lines_[*index] = number;
    if (*index == 0) log_.device_name = std::string(trim(match[4].str()));
  }

  // "ranks: 16 on 2 nodes": the layout of a table published without its header and Rank lines
  // (a README's excerpt), stated by whoever transcribed it from the run's description.
  void parse_declared_ranks(int number, std::string_view body) {
    static const std::regex declared(R"(^ranks:\s*(\d+)\s+on\s+(\d+)\s+nodes?\s*$)");
    std::match_results<std::string_view::const_iterator> match;
    if (!std::regex_match(body.begin(), body.end(), match, declared)) {
      fail(number, "a ranks line is \"# ranks: N on M nodes\"");
    }
    if (declared_line_ != 0) fail(number, fmt::format("a second ranks line (the first on line {})", declared_line_));
    const auto ranks = to_number<std::int64_t>(match[1].str());
    const auto nodes = to_number<std::int64_t>(match[2].str());
    if (!ranks || !nodes || *nodes < 1 || *ranks < *nodes || *ranks > 1'000'000 || *ranks % *nodes != 0) {
      fail(number, "ranks must be a whole multiple of the nodes, each at least 1 (one million ranks at most)");
    }
    declared_line_ = number;
    declared_ranks_ = *ranks;
    declared_nodes_ = *nodes;
  }

  void finish_ranks() {
    if (rank_hosts_.empty()) {
      if (declared_line_ == 0) fail(0, "no \"#  Rank r ... on HOST device d\" lines: cannot tell the number of ranks");
      log_.ranks = declared_ranks_;
      log_.nodes = declared_nodes_;
      log_.gpus_per_node = declared_ranks_ / declared_nodes_;
      return;
    }
    std::int64_t expected = 0;
    for (const auto& [index, host] : rank_hosts_) {
      if (index != expected) fail(0, fmt::format("rank {} is missing (ranks must run from 0 to n-1)", expected));
      ++expected;
      if (std::find(log_.hosts.begin(), log_.hosts.end(), host) == log_.hosts.end()) log_.hosts.push_back(host);
    }
    log_.ranks = expected;
    log_.nodes = static_cast<std::int64_t>(log_.hosts.size());
    std::map<std::string, std::int64_t> per_host;
    for (const auto& [index, host] : rank_hosts_) ++per_host[host];
    for (const auto& [host, count] : per_host) {
      if (count * log_.nodes != log_.ranks) {
        fail(rank_lines_.rbegin()->second,
             fmt::format("{} ranks on host {} but {} ranks over {} hosts: the fit needs the same number on each",
                         count, host, log_.ranks, log_.nodes));
      }
    }
    log_.gpus_per_node = log_.ranks / log_.nodes;
    if (declared_line_ != 0 && (declared_ranks_ != log_.ranks || declared_nodes_ != log_.nodes)) {
      fail(declared_line_, fmt::format("declares {} ranks on {} nodes but the Rank lines list {} on {}", declared_ranks_,
                                       declared_nodes_, log_.ranks, log_.nodes));
    }
  }

  void parse_row(int number, const std::vector<std::string_view>& words) {
    // 13 fields: size count type redop root, then time algbw busbw #wrong out of place and in
    // place; 9 without the in-place half; 11 and 7 likewise in old all_gather logs (no redop, root).
    const std::size_t n = words.size();
    if (n != 13 && n != 9 && n != 11 && n != 7) {
      fail(number, fmt::format("table row has {} fields; expected 13 (size count type redop root, then time algbw "
                               "busbw #wrong out of place and in place), or 9, 11 or 7 in shorter layouts",
                               n));
    }
    const bool has_op_columns = n == 13 || n == 9;
    NcclTestsRow row;
    row.line = number;
    auto integer = [&](std::size_t i, std::string_view what) {
      const auto value = to_number<std::int64_t>(words[i]);
      if (!value) fail(number, fmt::format("{} is \"{}\", not an integer", what, words[i]));
      return *value;
    };
    auto count_of = [&](std::size_t i, std::string_view what) {
      if (!all_digits(words[i])) fail(number, fmt::format("{} is \"{}\", not a whole number", what, words[i]));
      return integer(i, what);
    };
    row.size_bytes = count_of(0, "size (bytes)");
    row.count = count_of(1, "count (elements)");
    // nccl-tests prints "0 0 float ..." for a zero-byte call; any other row has elements.
    if ((row.count == 0) != (row.size_bytes == 0)) {
      fail(number, fmt::format("count {} with size {} bytes: only a zero-byte row has count 0", row.count,
                               row.size_bytes));
    }
    row.type = std::string(words[2]);
    if (type_size(row.type) == 0) fail(number, fmt::format("unknown data type \"{}\"", row.type));
    std::size_t next = 3;
    if (has_op_columns) {
      row.redop = std::string(words[3]);
      row.root = integer(4, "root");
      if (row.root >= 0) {
        fail(number, fmt::format("root {}: rooted collectives (broadcast, reduce, gather, scatter) are not supported",
                                 row.root));
      }
      next = 5;
    }
    row.out_of_place = timing(number, words, next, has_op_columns);
    if (n == 13 || n == 11) row.in_place = timing(number, words, next + 4, has_op_columns);
    if (!log_.rows.empty() && row.size_bytes < log_.rows.back().size_bytes) {
      fail(number, fmt::format("size {} after {}: sizes must not decrease (one table per file)", row.size_bytes,
                               log_.rows.back().size_bytes));
    }
    log_.rows.push_back(std::move(row));
  }

  NcclTestsTiming timing(int number, const std::vector<std::string_view>& words, std::size_t first,
                         bool wrong_is_count) {
    static constexpr std::array names{"time", "algbw", "busbw"};
    std::array<double, 3> values{};
    for (std::size_t i = 0; i < 3; ++i) {
      const auto value = to_number<double>(words[first + i]);
      if (!value || !std::isfinite(*value) || *value < 0.0) {
        fail(number, fmt::format("{} is \"{}\", not a non-negative number", names[i], words[first + i]));
      }
      values[i] = *value;
    }
    if (values[0] <= 0.0) fail(number, "time must be > 0 us");
    const std::string_view wrong = words[first + 3];
    if (wrong_is_count && wrong != "N/A") {
      const auto count = to_number<std::int64_t>(wrong);
      if (!count) fail(number, fmt::format("#wrong is \"{}\", not a count or N/A", wrong));
      if (*count != 0) fail(number, fmt::format("{} wrong elements: the collective returned wrong results", *count));
    }
    return {.time_us = values[0], .algbw_gb_per_s = values[1], .busbw_gb_per_s = values[2]};
  }

  void find_command_name(int number, std::string_view line) {
    static const std::regex binary(R"(\b(all_reduce|all_gather|reduce_scatter|alltoall|sendrecv)_perf\b)");
    static const std::regex declared(R"(^#\s*collective:\s*(\S+)\s*$)");
    std::match_results<std::string_view::const_iterator> match;
    std::optional<CollectiveOp> found;
    if (std::regex_search(line.begin(), line.end(), match, binary)) {
      found = parse_collective_name(match[1].str());
    } else if (std::regex_match(line.begin(), line.end(), match, declared)) {
      found = parse_collective_name(match[1].str());
      if (!found) fail(number, fmt::format("unknown collective \"{}\"", match[1].str()));
    }
    if (!found) return;
    if (named_op_ && *named_op_ != *found) {
      fail(number, fmt::format("names {} but line {} names {}: one collective per file", collective_name(*found),
                               named_line_, collective_name(*named_op_)));
    }
    if (!named_op_) named_line_ = number;
    named_op_ = found;
  }

  // Narrows the candidate collectives by what one table row shows.
  void constrain_by_row(const NcclTestsRow& row) {
    OpSet allowed = kEveryOp;
    std::string why;
    if (row.count > 0) {
      const std::int64_t bytes = row.count * type_size(row.type);
      if (row.size_bytes == bytes) {
        allowed &= bit(CollectiveOp::all_reduce) | bit(CollectiveOp::send_recv);
        if (log_.ranks == 1) allowed = kEveryOp;
        why = "size = count x type size";
      } else if (row.size_bytes == bytes * log_.ranks) {
        allowed &= bit(CollectiveOp::all_gather) | bit(CollectiveOp::reduce_scatter) | bit(CollectiveOp::all_to_all);
        why = "size = count x type size x ranks";
      } else {
        fail(row.line, fmt::format("size {} is neither count x type size ({}) nor that x {} ranks", row.size_bytes,
                                   bytes, log_.ranks));
      }
    }
    if (row.redop == "none") {
      allowed &= bit(CollectiveOp::all_gather) | bit(CollectiveOp::all_to_all);
      why += (why.empty() ? "" : ", ") + std::string("redop none");
    } else if (!row.redop.empty()) {
      allowed &= bit(CollectiveOp::all_reduce) | bit(CollectiveOp::reduce_scatter) | bit(CollectiveOp::send_recv);
      why += (why.empty() ? "" : ", ") + fmt::format("redop {}", row.redop);
    }
    // busbw / algbw is the bus factor; two printed decimals make it exact enough above 1 GB/s.
    const NcclTestsTiming& t = row.out_of_place;
    if (t.algbw_gb_per_s >= 1.0 && log_.ranks > 1) {
      const double ratio = t.busbw_gb_per_s / t.algbw_gb_per_s;
      OpSet by_factor = 0;
      for (const auto op : kAllOps) {
        if (std::abs(ratio / models::bus_factor(op, log_.ranks) - 1.0) <= 0.02) by_factor |= bit(op);
      }
      allowed &= by_factor;
      why += fmt::format(", busbw/algbw = {:.3f}", ratio);
    }
    if ((candidates_ & allowed) == 0) {
      fail(row.line, fmt::format("this row ({}) allows {} but the rows before allow {}", why, describe(allowed),
                                 describe(candidates_)));
    }
    candidates_ &= allowed;
  }

  void decide_op(std::optional<CollectiveOp> requested) {
    OpSet set = candidates_;
    std::string evidence = "table columns";
    if (named_op_) {
      if ((set & bit(*named_op_)) == 0) {
        fail(named_line_, fmt::format("names {} but the table's columns allow only {}", collective_name(*named_op_),
                                      describe(set)));
      }
      set = bit(*named_op_);
      evidence = fmt::format("command name on line {}", named_line_);
    }
    if (requested) {
      if ((set & bit(*requested)) == 0) {
        fail(0, fmt::format("the collective was given as {} but the log allows only {}", collective_name(*requested),
                            describe(set)));
      }
      set = bit(*requested);
      evidence = "given by the caller";
    }
    const auto single = std::find_if(kAllOps.begin(), kAllOps.end(), [&](CollectiveOp op) { return set == bit(op); });
    if (single == kAllOps.end()) {
      fail(0, fmt::format("cannot tell which collective this is ({} fit the table): name it (calibrate "
                          "--collective) or keep the *_perf command line in the log",
                          describe(set)));
    }
    log_.op = *single;
    log_.op_evidence = evidence;
  }

  std::vector<std::string_view> lines_;
  NcclTestsLog log_;
  bool saw_header_ = false;
  int declared_line_ = 0;  // the "# ranks:" line; 0: none
  std::int64_t declared_ranks_ = 0;
  std::int64_t declared_nodes_ = 0;
  std::map<std::int64_t, std::string> rank_hosts_;
  std::map<std::int64_t, int> rank_lines_;
  std::optional<CollectiveOp> named_op_;
  int named_line_ = 0;
  OpSet candidates_ = kEveryOp;
};

}  // namespace

std::string_view collective_name(models::CollectiveOp op) {
  switch (op) {
    case CollectiveOp::all_reduce: return "all_reduce";
    case CollectiveOp::reduce_scatter: return "reduce_scatter";
    case CollectiveOp::all_gather: return "all_gather";
    case CollectiveOp::all_to_all: return "all_to_all";
    case CollectiveOp::send_recv: return "send_recv";
  }
  return "all_reduce";
}

std::optional<models::CollectiveOp> parse_collective_name(std::string_view name) {
  if (name.ends_with("_perf")) name.remove_suffix(5);
  static const std::map<std::string_view, CollectiveOp> names = {
      {"all_reduce", CollectiveOp::all_reduce},     {"allreduce", CollectiveOp::all_reduce},
      {"reduce_scatter", CollectiveOp::reduce_scatter}, {"reducescatter", CollectiveOp::reduce_scatter},
      {"all_gather", CollectiveOp::all_gather},     {"allgather", CollectiveOp::all_gather},
      {"all_to_all", CollectiveOp::all_to_all},     {"alltoall", CollectiveOp::all_to_all},
      {"send_recv", CollectiveOp::send_recv},       {"sendrecv", CollectiveOp::send_recv}};
  const auto it = names.find(name);
  return it == names.end() ? std::nullopt : std::optional(it->second);
}

double NcclTestsRow::best_time_us() const {
  return in_place ? std::min(out_of_place.time_us, in_place->time_us) : out_of_place.time_us;
}

NcclTestsLog parse_nccl_tests_log(std::string_view text, const std::string& file,
                                  std::optional<models::CollectiveOp> op) {
  return LogParser(text, file).parse(op);
}

NcclTestsLog read_nccl_tests_log(const std::filesystem::path& path, std::optional<models::CollectiveOp> op) {
  return parse_nccl_tests_log(read_input_file(path), path.string(), op);
}

bool is_nccl_tests_marker_line(std::string_view line) {
  const auto body = trim(line);
  if (!body.starts_with('#')) return false;
  const auto comment = trim(body.substr(1));
  return comment.starts_with("nThread") || comment.starts_with("ranks:");
}

bool looks_like_nccl_tests_log(std::string_view text) {
  const auto lines = split_lines(text);
  return std::any_of(lines.begin(), lines.end(), is_nccl_tests_marker_line);
}

}  // namespace clustersim::calibration
