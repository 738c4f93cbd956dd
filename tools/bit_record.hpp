#pragma once
/// Kept results of resume files (tools/resume_file.hpp) as text that reads back bit for bit:
/// whitespace-separated 64-bit words in hex, a double as its IEEE-754 bits (NaN and infinities
/// survive), a string as its length and its bytes in hex. Reading throws CliError naming what was
/// read when the text is not what was written.

#include <bit>
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "tools/command.hpp"

namespace clustersim::tools {

class BitRecordWriter {
 public:
  void word(std::uint64_t value) { text_ += fmt::format("{:x} ", value); }
  void number(double value) { word(std::bit_cast<std::uint64_t>(value)); }
  void count(std::int64_t value) { word(static_cast<std::uint64_t>(value)); }
  void flag(bool value) { word(value ? 1 : 0); }
  void text(std::string_view value) {
    word(value.size());
    for (const char c : value) text_ += fmt::format("{:02x}", static_cast<unsigned char>(c));
    text_ += ' ';
  }
  std::string take() { return std::move(text_); }

 private:
  std::string text_;
};

class BitRecordReader {
 public:
  BitRecordReader(std::string_view text, std::string_view what) : text_(text), what_(what) {}

  std::uint64_t word() {
    skip_spaces();
    std::uint64_t value = 0;
    const char* first = text_.data() + pos_;
    const auto [end, error] = std::from_chars(first, text_.data() + text_.size(), value, 16);
    if (error != std::errc{} || end == first) fail();
    pos_ = static_cast<std::size_t>(end - text_.data());
    return value;
  }
  double number() { return std::bit_cast<double>(word()); }
  std::int64_t count() { return static_cast<std::int64_t>(word()); }
  bool flag() {
    const std::uint64_t value = word();
    if (value > 1) fail();
    return value == 1;
  }
  std::string text() {
    const std::uint64_t size = word();
    skip_spaces();
    if (size > (text_.size() - pos_) / 2) fail();
    std::string value;
    for (std::uint64_t i = 0; i < size; ++i, pos_ += 2) {
      unsigned byte = 0;
      const char* first = text_.data() + pos_;
      const auto [end, error] = std::from_chars(first, first + 2, byte, 16);
      if (error != std::errc{} || end != first + 2) fail();
      value += static_cast<char>(byte);
    }
    return value;
  }
  /// A count of items to follow, each at least one word: more than the text could hold is malformed.
  std::size_t items() {
    const std::uint64_t n = word();
    if (n > text_.size()) fail();
    return static_cast<std::size_t>(n);
  }
  void finish() {
    skip_spaces();
    if (pos_ != text_.size()) fail();
  }
  [[noreturn]] void fail() const { throw CliError("--resume: " + std::string(what_) + " is malformed"); }

 private:
  void skip_spaces() {
    while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
  }

  std::string_view text_;
  std::string_view what_;
  std::size_t pos_ = 0;
};

}  // namespace clustersim::tools
