#include "handoff/import/yaml_subset.hpp"

#include <set>

#include <fmt/format.h>

namespace clustersim::handoff {

namespace {

struct Line {
  std::size_t number = 0;
  std::size_t indent = 0;
  std::string content;  // comment and trailing spaces removed
};

YamlError error(std::size_t line, std::string_view what) { return YamlError(fmt::format("line {}: {}", line, what)); }

// The line without its comment: a '#' at its start or after a space, outside quotes.
std::string strip_comment(const std::string& text) {
  char quote = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote) {
      if (c == '\'' && quote == '\'' && i + 1 < text.size() && text[i + 1] == '\'') ++i;  // '' inside ''
      else if (c == quote) quote = 0;
      else if (c == '\\' && quote == '"') ++i;
    } else if (c == '"' || c == '\'') {
      if (i == 0 || text[i - 1] == ' ' || text[i - 1] == '[' || text[i - 1] == ',' || text[i - 1] == ':' ||
          text[i - 1] == '-')
        quote = c;
    } else if (c == '#' && (i == 0 || text[i - 1] == ' ')) {
      return text.substr(0, i);
    }
  }
  return text;
}

std::string trim(std::string_view s) {
  std::size_t a = 0, b = s.size();
  while (a < b && s[a] == ' ') ++a;
  while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\r')) --b;
  return std::string(s.substr(a, b - a));
}

std::vector<Line> read_lines(std::string_view text) {
  std::vector<Line> lines;
  std::size_t number = 0;
  bool document_started = false;
  for (std::size_t pos = 0; pos <= text.size();) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    std::string raw(text.substr(pos, end - pos));
    ++number;
    pos = end + 1;
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    std::size_t indent = 0;
    while (indent < raw.size() && (raw[indent] == ' ' || raw[indent] == '\t')) {
      if (raw[indent] == '\t') throw error(number, "a tab in the indentation (YAML indents with spaces)");
      ++indent;
    }
    const std::string content = trim(strip_comment(raw.substr(indent)));
    if (content.empty()) {
      if (end == text.size()) break;
      continue;
    }
    if (content == "---" || content == "...") {
      if (document_started || content == "...") throw error(number, "several documents are not supported");
      document_started = true;
      continue;
    }
    document_started = true;
    lines.push_back({number, indent, content});
    if (end == text.size()) break;
  }
  return lines;
}

YamlNode scalar_node(std::string_view text, std::size_t line) {
  YamlNode node{.kind = YamlNode::Kind::scalar, .line = line};
  const std::string t = trim(text);
  if (t.empty()) return node;
  const char c = t.front();
  if (c == '&' || c == '*') throw error(line, "anchors and aliases are not supported");
  if (c == '!') throw error(line, "tags are not supported");
  if (c == '|' || c == '>') throw error(line, "block scalars (| and >) are not supported");
  if (c == '{') throw error(line, "flow mappings ({...}) are not supported");
  if (c == '"') {
    std::string out;
    std::size_t i = 1;
    for (; i < t.size() && t[i] != '"'; ++i) {
      if (t[i] == '\\' && i + 1 < t.size()) {
        const char e = t[++i];
        out += e == 'n' ? '\n' : e == 't' ? '\t' : e;
      } else {
        out += t[i];
      }
    }
    if (i + 1 != t.size()) throw error(line, "a double-quoted scalar must close at the end of its value");
    node.scalar = out;
    node.quoted = true;
    return node;
  }
  if (c == '\'') {
    std::string out;
    std::size_t i = 1;
    for (; i < t.size(); ++i) {
      if (t[i] == '\'') {
        if (i + 1 < t.size() && t[i + 1] == '\'') {
          out += '\'';
          ++i;
        } else {
          break;
        }
      } else {
        out += t[i];
      }
    }
    if (i + 1 != t.size()) throw error(line, "a single-quoted scalar must close at the end of its value");
    node.scalar = out;
    node.quoted = true;
    return node;
  }
  if (c == '[') {
    if (t.back() != ']') throw error(line, "a flow sequence must close with ] on its line");
    node.kind = YamlNode::Kind::sequence;
    const std::string inner = trim(std::string_view(t).substr(1, t.size() - 2));
    if (inner.find('[') != std::string::npos || inner.find('{') != std::string::npos)
      throw error(line, "nested flow collections are not supported");
    if (inner.empty()) return node;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= inner.size(); ++i) {
      if (i == inner.size() || inner[i] == ',') {
        node.items.push_back(scalar_node(std::string_view(inner).substr(start, i - start), line));
        start = i + 1;
      }
    }
    return node;
  }
  node.scalar = t;
  return node;
}

// "key: value" -> key, value (value may be empty); nullopt when the line is no mapping entry.
bool split_entry(const std::string& content, std::string& key, std::string& value, std::size_t line) {
  std::size_t colon = std::string::npos;
  if (content.front() == '"' || content.front() == '\'') {
    const std::size_t close = content.find(content.front(), 1);
    if (close == std::string::npos) throw error(line, "a quoted key must close");
    key = content.substr(1, close - 1);
    colon = content.find(':', close);
    if (colon != close + 1) return false;
  } else {
    for (std::size_t i = 0; i < content.size(); ++i)
      if (content[i] == ':' && (i + 1 == content.size() || content[i + 1] == ' ')) {
        colon = i;
        break;
      }
    if (colon == std::string::npos) return false;
    key = trim(std::string_view(content).substr(0, colon));
  }
  value = trim(std::string_view(content).substr(colon + 1));
  return true;
}

class Parser {
 public:
  explicit Parser(std::vector<Line> lines) : lines_(std::move(lines)) {}

  YamlNode document() {
    if (lines_.empty()) return YamlNode{.kind = YamlNode::Kind::mapping};
    YamlNode root = block(lines_[0].indent);
    if (i_ < lines_.size()) throw error(lines_[i_].number, "this line is indented less than the document's first");
    return root;
  }

 private:
  bool is_item(const Line& l) const { return l.content == "-" || l.content.starts_with("- "); }

  YamlNode block(std::size_t indent) {
    return is_item(lines_[i_]) ? sequence(indent) : mapping(indent);
  }

  YamlNode sequence(std::size_t indent) {
    YamlNode node{.kind = YamlNode::Kind::sequence, .line = lines_[i_].number};
    while (i_ < lines_.size() && lines_[i_].indent == indent && is_item(lines_[i_])) {
      const Line& l = lines_[i_];
      const std::string value = trim(std::string_view(l.content).substr(1));
      std::string k, v;
      if (value.empty() || value.starts_with("- ") || (!value.starts_with('"') && !value.starts_with('\'') &&
                                                       split_entry(value, k, v, l.number)))
        throw error(l.number, "a sequence item that is a mapping or a sequence is not supported");
      node.items.push_back(scalar_node(value, l.number));
      ++i_;
    }
    return node;
  }

  YamlNode mapping(std::size_t indent) {
    YamlNode node{.kind = YamlNode::Kind::mapping, .line = lines_[i_].number};
    std::set<std::string> keys;
    while (i_ < lines_.size() && lines_[i_].indent == indent) {
      const Line& l = lines_[i_];
      if (is_item(l)) throw error(l.number, "a sequence item where a mapping entry was expected");
      std::string key, value;
      if (!split_entry(l.content, key, value, l.number))
        throw error(l.number, fmt::format("expected 'key: value', got '{}'", l.content));
      if (!keys.insert(key).second) throw error(l.number, fmt::format("duplicate key '{}'", key));
      ++i_;
      YamlNode child;
      if (!value.empty()) {
        child = scalar_node(value, l.number);
      } else if (i_ < lines_.size() && (lines_[i_].indent > indent || (lines_[i_].indent == indent && is_item(lines_[i_])))) {
        child = block(lines_[i_].indent);
      } else {
        child = YamlNode{.kind = YamlNode::Kind::scalar, .line = l.number};  // null
      }
      node.entries.emplace_back(key, std::move(child));
    }
    if (i_ < lines_.size() && lines_[i_].indent > indent)
      throw error(lines_[i_].number, "unexpected indentation");
    return node;
  }

  std::vector<Line> lines_;
  std::size_t i_ = 0;
};

void flatten(const YamlNode& node, const std::string& path, std::vector<std::pair<std::string, std::string>>& out) {
  switch (node.kind) {
    case YamlNode::Kind::mapping:
      for (const auto& [key, child] : node.entries) flatten(child, path.empty() ? key : path + "." + key, out);
      break;
    case YamlNode::Kind::sequence: {
      std::string text = "[";
      for (std::size_t i = 0; i < node.items.size(); ++i) text += (i ? ", " : "") + node.items[i].scalar;
      out.emplace_back(path, text + "]");
      break;
    }
    case YamlNode::Kind::scalar: out.emplace_back(path, node.scalar); break;
  }
}

}  // namespace

YamlNode parse_yaml(std::string_view text) { return Parser(read_lines(text)).document(); }

std::vector<std::pair<std::string, std::string>> flatten_yaml(const YamlNode& root) {
  std::vector<std::pair<std::string, std::string>> out;
  flatten(root, "", out);
  return out;
}

std::string yaml_scalar(std::string_view value) {
  const bool plain = !value.empty() && value.find_first_of(":#{}[]&*!|>'\"%@`,") == std::string_view::npos &&
                     value.front() != '-' && value.front() != ' ' && value.back() != ' ';
  if (plain) return std::string(value);
  std::string out = "\"";
  for (const char c : value) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace clustersim::handoff
