#include "scenarios/key_suggestion.hpp"

#include <algorithm>
#include <cstddef>
#include <limits>

namespace clustersim::scenarios {
namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::size_t common_prefix(std::string_view a, std::string_view b) {
  std::size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

}  // namespace

std::optional<std::string_view> closest_key(std::string_view key, const std::vector<std::string_view>& allowed) {
  std::optional<std::string_view> best;
  std::ptrdiff_t best_score = std::numeric_limits<std::ptrdiff_t>::max();
  for (const auto candidate : allowed) {
    const std::size_t distance = edit_distance(key, candidate);
    const std::size_t prefix = common_prefix(key, candidate);
    const bool plausible = prefix >= 3 || distance <= std::max<std::size_t>(2, key.size() / 3);
    const auto score = static_cast<std::ptrdiff_t>(distance) - static_cast<std::ptrdiff_t>(prefix);
    if (plausible && score < best_score) {
      best_score = score;
      best = candidate;
    }
  }
  return best;
}

}  // namespace clustersim::scenarios
