#include "handoff/import/megatron_lm_script.hpp"

#include <cctype>
#include <map>
#include <optional>
#include <regex>
#include <stdexcept>

#include <fmt/format.h>

#include "handoff/frameworks/whole_integer.hpp"

namespace clustersim::handoff {

namespace {

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::vector<std::string> split_whitespace(std::string_view text) {
  std::vector<std::string> out;
  std::string cur;
  for (const char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!cur.empty()) out.push_back(std::move(cur)), cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

// The shell state the script builds: variables, arrays, exported variables.
struct Shell {
  std::map<std::string, std::string> vars{};
  std::map<std::string, std::vector<std::string>> arrays{};
  std::map<std::string, std::string> exported{};
  std::vector<std::string> notes{};
};

struct Words {
  std::vector<std::string> words{};
  bool closed_array = false;  // stopped at an unquoted ')'
};

class WordSplitter {
 public:
  WordSplitter(const Shell& shell, std::size_t line) : shell_(shell), line_(line) {}

  // Splits `text` into words as bash would after expansion; with stop_at_paren, an unquoted ')'
  // ends the words (the end of an array).
  Words split(std::string_view text, bool stop_at_paren) {
    Words out;
    for (std::size_t i = 0; i < text.size();) {
      const char c = text[i];
      if (c == '\\' && i + 1 < text.size()) {
        append(std::string(1, text[i + 1]), true);
        i += 2;
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        finish();
        ++i;
      } else if (c == '#' && !started_) {
        break;  // a comment runs to the end of the line
      } else if (c == ')' && stop_at_paren) {
        out.closed_array = true;
        break;
      } else if (c == '\'') {
        const std::size_t end = text.find('\'', i + 1);
        if (end == std::string_view::npos) throw error("unterminated ' quote");
        append(std::string(text.substr(i + 1, end - i - 1)), true);
        i = end + 1;
      } else if (c == '"') {
        std::size_t j = i + 1;
        std::string inner;
        while (j < text.size() && text[j] != '"') {
          if (text[j] == '\\' && j + 1 < text.size()) {
            inner += text[j + 1];
            j += 2;
          } else if (text[j] == '$') {
            inner += expand(text, j);
          } else {
            inner += text[j++];
          }
        }
        if (j >= text.size()) throw error("unterminated \" quote");
        append(inner, true);
        i = j + 1;
      } else if (c == '$') {
        append(expand(text, i), false);
      } else {
        append(std::string(1, c), true);
        ++i;
      }
    }
    finish();
    out.words = std::move(words_);
    return out;
  }

 private:
  std::invalid_argument error(std::string_view what) const {
    return std::invalid_argument(fmt::format("line {}: {}", line_, what));
  }

  // Adds text to the current word; unquoted expansion results split at whitespace.
  void append(const std::string& text, bool literal) {
    if (literal) {
      cur_ += text;
      started_ = true;
      return;
    }
    bool first = true;
    const bool leading_space = !text.empty() && std::isspace(static_cast<unsigned char>(text.front()));
    if (leading_space) finish();
    for (const std::string& field : split_whitespace(text)) {
      if (!first) finish();
      cur_ += field;
      started_ = true;
      first = false;
    }
    if (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) finish();
  }

  void finish() {
    if (started_) words_.push_back(std::move(cur_));
    cur_.clear();
    started_ = false;
  }

  // Expands the $-expression at text[i], advancing i past it.
  std::string expand(std::string_view text, std::size_t& i) {
    if (text.substr(i).starts_with("$((")) {
      const std::size_t end = text.find("))", i + 3);
      if (end == std::string_view::npos) throw error("unterminated $(( arithmetic");
      const std::string inner = WordSplitter(shell_, line_).expand_all(text.substr(i + 3, end - i - 3));
      i = end + 2;
      return arithmetic(inner);
    }
    if (text.substr(i).starts_with("$(")) {  // command substitution: kept as written
      const std::size_t end = text.find(')', i);
      const std::size_t stop = end == std::string_view::npos ? text.size() : end + 1;
      std::string kept(text.substr(i, stop - i));
      i = stop;
      return kept;
    }
    if (i + 1 < text.size() && text[i + 1] == '{') {
      const std::size_t end = text.find('}', i + 2);
      if (end == std::string_view::npos) throw error("unterminated ${");
      const std::string body(text.substr(i + 2, end - i - 2));
      i = end + 1;
      if (body.ends_with("[@]") || body.ends_with("[*]")) {
        const auto it = shell_.arrays.find(body.substr(0, body.size() - 3));
        std::string joined;
        if (it != shell_.arrays.end())
          for (const std::string& e : it->second) joined += (joined.empty() ? "" : " ") + e;
        return joined;
      }
      const std::size_t op = body.find(":-");
      const std::string name = op == std::string::npos ? body : body.substr(0, op);
      const auto it = shell_.vars.find(name);
      if (it != shell_.vars.end() && !it->second.empty()) return it->second;
      if (op == std::string::npos) return "";
      // The default is a word of its own: quotes removed, expansions done.
      std::string joined;
      for (const std::string& w : WordSplitter(shell_, line_).split(body.substr(op + 2), false).words)
        joined += (joined.empty() ? "" : " ") + w;
      return joined;
    }
    std::size_t j = i + 1;
    if (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) {
      i = j + 1;  // a positional parameter: not given here
      return "";
    }
    while (j < text.size() && is_name_char(text[j])) ++j;
    if (j == i + 1) {
      ++i;
      return "$";
    }
    const std::string name(text.substr(i + 1, j - i - 1));
    i = j;
    const auto it = shell_.vars.find(name);
    return it == shell_.vars.end() ? "" : it->second;
  }

 public:
  // All expansions of `text` as one string (for defaults and arithmetic).
  std::string expand_all(std::string_view text) {
    std::string out;
    for (std::size_t i = 0; i < text.size();) {
      if (text[i] == '$') out += expand(text, i);
      else out += text[i++];
    }
    return out;
  }

 private:
  // Integer arithmetic of + - * / over whole numbers, left to right with * and / first.
  std::string arithmetic(const std::string& expression) const {
    std::int64_t value = 0;
    std::size_t i = 0;
    const auto number = [&]() -> std::int64_t {
      while (i < expression.size() && std::isspace(static_cast<unsigned char>(expression[i]))) ++i;
      std::size_t j = i;
      while (j < expression.size() && std::isdigit(static_cast<unsigned char>(expression[j]))) ++j;
      const auto parsed = whole_integer(std::string_view(expression).substr(i, j - i));
      if (!parsed) throw error(fmt::format("arithmetic '{}': only whole numbers and + - * / are read", expression));
      const std::int64_t n = *parsed;
      i = j;
      while (i < expression.size() && std::isspace(static_cast<unsigned char>(expression[i]))) ++i;
      return n;
    };
    value = number();
    std::int64_t sum = 0;
    char sign = '+';
    // Bash's arithmetic wraps at 64 bits; a launch script's sizes never come near, so an overflow is
    // an error to name rather than a number to pass on.
    const auto overflow = [&] { return error(fmt::format("arithmetic '{}': past 64-bit integers", expression)); };
    const auto add_term = [&] {
      if (__builtin_add_overflow(sum, sign == '+' ? value : -value, &sum)) throw overflow();
    };
    while (i < expression.size()) {
      const char op = expression[i++];
      const std::int64_t n = number();
      if (op == '*') {
        if (__builtin_mul_overflow(value, n, &value)) throw overflow();
      } else if (op == '/') {
        value = n == 0 ? 0 : value / n;
      } else if (op == '+' || op == '-') {
        add_term();
        sign = op;
        value = n;
      } else {
        throw error(fmt::format("arithmetic '{}': only whole numbers and + - * / are read", expression));
      }
    }
    add_term();
    return std::to_string(sum);
  }

  const Shell& shell_;
  std::size_t line_;
  std::vector<std::string> words_{};
  std::string cur_{};
  bool started_ = false;
};

struct LogicalLine {
  std::string text;
  std::size_t number = 0;  // 1-based, of its first physical line
};

std::vector<LogicalLine> logical_lines(std::string_view text) {
  std::vector<LogicalLine> lines;
  std::string cur;
  std::size_t number = 1, start = 1;
  bool continuing = false;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    std::string line(text.substr(pos, end - pos));
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!continuing) start = number;
    const bool continues = !line.empty() && line.back() == '\\';
    if (continues) line.pop_back();
    cur += line;
    if (continues) {
      cur += ' ';
      continuing = true;
    } else {
      lines.push_back({cur, start});
      cur.clear();
      continuing = false;
    }
    ++number;
    if (end == text.size()) break;
    pos = end + 1;
  }
  if (!cur.empty()) lines.push_back({cur, start});
  return lines;
}

std::optional<std::pair<std::string, std::string>> assignment(const std::string& word) {
  const std::size_t eq = word.find('=');
  if (eq == std::string::npos || eq == 0) return std::nullopt;
  for (std::size_t i = 0; i < eq; ++i)
    if (!is_name_char(word[i]) || (i == 0 && std::isdigit(static_cast<unsigned char>(word[i])))) return std::nullopt;
  return std::pair{word.substr(0, eq), word.substr(eq + 1)};
}

// A condition's words (expanded, quotes removed) evaluated as string tests; nullopt when it holds
// anything else.
std::optional<bool> evaluate_condition(const std::vector<std::string>& words) {
  std::optional<bool> result;
  std::string joiner = "||";
  for (std::size_t i = 0; i < words.size();) {
    if (words[i] == "||" || words[i] == "&&") {
      joiner = words[i++];
      continue;
    }
    if (words[i] != "[[" && words[i] != "[") return std::nullopt;
    const std::string close = words[i] == "[[" ? "]]" : "]";
    std::size_t j = i + 1;
    while (j < words.size() && words[j] != close) ++j;
    if (j >= words.size()) return std::nullopt;
    const std::vector<std::string> test(words.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                                        words.begin() + static_cast<std::ptrdiff_t>(j));
    bool value = false;
    if (test.size() == 3 && (test[1] == "==" || test[1] == "=")) value = test[0] == test[2];
    else if (test.size() == 3 && test[1] == "!=") value = test[0] != test[2];
    else if (test.size() == 2 && test[0] == "-z") value = test[1].empty();
    else if (test.size() == 2 && test[0] == "-n") value = !test[1].empty();
    else if (test.size() == 1 && test[0] == "-z") value = true;  // `-z ""`: the empty word vanished
    else return std::nullopt;
    result = !result ? value : (joiner == "||" ? (*result || value) : (*result && value));
    i = j + 1;
  }
  return result;
}

struct Branch {
  bool active = true;       // this branch's lines run
  bool taken = false;       // some branch of this if has run
  bool parent_active = true;
};

bool looks_like_arguments_block(std::string_view text) {
  static const std::regex line(R"(^\s*[a-z_][a-z0-9_]* \.{2,} .*$)");
  int count = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    if (std::regex_match(std::string(text.substr(pos, end - pos)), line)) ++count;
    pos = end + 1;
  }
  return count >= 3;
}

// Megatron-LM's printed `arguments` block: one "name ..... value" line per parsed argument.
MegatronScript read_arguments_block(std::string_view text) {
  static const std::regex line(R"(^\s*([a-z_][a-z0-9_]*) \.{2,} (.*?)\s*$)");
  MegatronScript script;
  std::map<std::string, std::string> values;
  std::vector<std::string> order;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    std::smatch m;
    const std::string s(text.substr(pos, end - pos));
    if (std::regex_match(s, m, line)) {
      if (!values.contains(m[1])) order.push_back(m[1]);
      values[m[1]] = m[2];
    }
    pos = end + 1;
  }
  const bool has_vp = values.contains("virtual_pipeline_model_parallel_size") &&
                      values["virtual_pipeline_model_parallel_size"] != "None";
  for (const std::string& name : order) {
    const std::string& v = values[name];
    if (name == "world_size") {
      const auto world = whole_integer(v);
      if (!world || *world < 1) throw std::invalid_argument(fmt::format("world_size must be a positive whole number, got '{}'", v));
      script.arguments.world_size = *world;
      continue;
    }
    // Derived by validate_args, or the printed form of a flag of another name.
    if (name == "rank" || name == "local_rank" || name == "data_parallel_size" ||
        name == "transformer_pipeline_model_parallel_size" || name == "params_dtype")
      continue;
    if (has_vp && (name == "num_layers_per_virtual_pipeline_stage" || name == "num_virtual_stages_per_pipeline_rank"))
      continue;
    if (name == "gradient_accumulation_fusion") {
      if (v == "False") script.arguments.flags.emplace_back("--no-gradient-accumulation-fusion", "");
      continue;
    }
    if (v == "None" || v == "False" || v == "[]") continue;
    std::string flag = "--" + name;
    for (char& c : flag) c = c == '_' ? '-' : c;
    if (name == "fp8") flag = "--fp8-format";
    if (name == "virtual_pipeline_model_parallel_size") flag = "--num-virtual-stages-per-pipeline-rank";
    if (name == "num_moe_experts") flag = "--num-experts";
    script.arguments.flags.emplace_back(flag, v == "True" ? "" : v);
  }
  script.notes.push_back("read as Megatron-LM's printed arguments block: False and None values are flags not given");
  return script;
}

// pretrain_gpt.py's words as flags: "--flag value", "--flag=value", a switch, or a flag with
// several values (joined by spaces).
void add_flags(const std::vector<std::string>& words, std::size_t from, MegatronArguments& arguments) {
  for (std::size_t i = from; i < words.size();) {
    const std::string& w = words[i];
    if (!w.starts_with("--")) {
      ++i;  // a stray word (a positional the script takes): not an argument of Megatron-LM's
      continue;
    }
    const std::size_t eq = w.find('=');
    if (eq != std::string::npos) {
      arguments.flags.emplace_back(w.substr(0, eq), w.substr(eq + 1));
      ++i;
      continue;
    }
    std::string value;
    std::size_t j = i + 1;
    while (j < words.size() && !words[j].starts_with("--")) value += (value.empty() ? "" : " ") + words[j++];
    arguments.flags.emplace_back(w, value);
    i = j;
  }
}

std::int64_t launcher_count(const std::string& flag, const std::string& value, std::size_t line) {
  if (const auto n = whole_integer(value); n && *n > 0) return *n;
  throw std::invalid_argument(fmt::format("line {}: {} must be a positive whole number, got '{}'", line, flag, value));
}

void read_launcher(const std::vector<std::string>& words, std::size_t script_index, std::size_t line,
                   MegatronScript& script) {
  for (std::size_t i = 0; i < script_index; ++i) {
    std::string w = words[i], value;
    const std::size_t eq = w.find('=');
    if (eq != std::string::npos && w.starts_with("--")) {
      value = w.substr(eq + 1);
      w = w.substr(0, eq);
    } else if (i + 1 < script_index) {
      value = words[i + 1];
    }
    if (w == "--nnodes") script.nnodes = launcher_count("--nnodes", value, line);
    if (w == "--nproc-per-node" || w == "--nproc_per_node") script.nproc_per_node = launcher_count(w, value, line);
  }
}

}  // namespace

MegatronScript read_megatron_script(std::string_view text) {
  if (looks_like_arguments_block(text)) return read_arguments_block(text);
  MegatronScript script;
  Shell shell;
  std::vector<Branch> branches;
  const auto active = [&] { return branches.empty() || branches.back().active; };
  bool any_arguments = false;
  const std::vector<LogicalLine> lines = logical_lines(text);
  for (std::size_t k = 0; k < lines.size(); ++k) {
    const LogicalLine& line = lines[k];
    static const std::regex array_start(R"(^\s*([A-Za-z_][A-Za-z0-9_]*)(\+?)=\((.*)$)");
    std::smatch m;
    if (std::regex_match(line.text, m, array_start)) {
      const std::string name = m[1];
      const bool append = m[2] == "+";
      std::vector<std::string> items;
      Words w = WordSplitter(shell, line.number).split(std::string(m[3]), true);
      items.insert(items.end(), w.words.begin(), w.words.end());
      while (!w.closed_array) {
        if (++k >= lines.size()) throw std::invalid_argument(fmt::format("line {}: array {} has no closing ')'", line.number, name));
        w = WordSplitter(shell, lines[k].number).split(lines[k].text, true);
        items.insert(items.end(), w.words.begin(), w.words.end());
      }
      if (!active()) continue;
      auto& array = shell.arrays[name];
      if (!append) array.clear();
      array.insert(array.end(), items.begin(), items.end());
      continue;
    }
    std::vector<std::string> words = WordSplitter(shell, line.number).split(line.text, false).words;
    if (words.empty()) continue;
    const std::string& first = words.front();
    if (first == "if" || first == "elif") {
      std::vector<std::string> condition(words.begin() + 1, words.end());
      while (!condition.empty() && (condition.back() == "then" || condition.back() == ";")) condition.pop_back();
      if (!condition.empty() && condition.back().ends_with(";")) condition.back().pop_back();
      if (!condition.empty() && condition.back().empty()) condition.pop_back();
      std::optional<bool> value = evaluate_condition(condition);
      if (!value) {
        script.notes.push_back(fmt::format("line {}: a condition that is not a string test is taken as false", line.number));
        value = false;
      }
      if (first == "if") {
        const bool parent = active();
        branches.push_back({.active = parent && *value, .taken = *value, .parent_active = parent});
      } else if (!branches.empty()) {
        Branch& b = branches.back();
        b.active = b.parent_active && !b.taken && *value;
        b.taken = b.taken || *value;
      }
      continue;
    }
    if (first == "else") {
      if (!branches.empty()) {
        Branch& b = branches.back();
        b.active = b.parent_active && !b.taken;
        b.taken = true;
      }
      continue;
    }
    if (first == "fi") {
      if (!branches.empty()) branches.pop_back();
      continue;
    }
    if (!active()) continue;
    const bool exported = first == "export";
    std::size_t i = exported ? 1 : 0;
    std::map<std::string, std::string> prefix;
    for (; i < words.size(); ++i) {
      const auto a = assignment(words[i]);
      if (!a) break;
      prefix[a->first] = a->second;
    }
    if (i == words.size()) {  // only assignments: shell variables
      for (const auto& [name, value] : prefix) {
        shell.vars[name] = value;
        if (exported) shell.exported[name] = value;
      }
      continue;
    }
    std::size_t script_index = words.size();
    for (std::size_t j = i; j < words.size(); ++j)
      if (words[j].ends_with(".py")) {
        script_index = j;
        break;
      }
    if (script_index < words.size()) {
      for (const auto& [name, value] : prefix) shell.exported[name] = value;
      read_launcher(std::vector<std::string>(words.begin() + static_cast<std::ptrdiff_t>(i), words.end()),
                    script_index - i, line.number, script);
      add_flags(words, script_index + 1, script.arguments);
      any_arguments = true;
    } else if (words[i].starts_with("--")) {
      add_flags(words, i, script.arguments);  // a bare arguments file or command line
      any_arguments = true;
    }
  }
  if (!any_arguments || script.arguments.flags.empty())
    throw std::invalid_argument("no Megatron-LM arguments: expected a launcher line running a .py script, a line of "
                                "--flags, or Megatron-LM's printed arguments block");
  script.arguments.env = shell.exported;
  if (script.nnodes > 0 && script.nproc_per_node > 0) script.arguments.world_size = script.nnodes * script.nproc_per_node;
  return script;
}

}  // namespace clustersim::handoff
