#pragma once
/// A chart's legend: one entry per kind of mark actually drawn. Each entry carries
/// data-legend="KIND", and what it stands for carries data-kind="KIND", so that a check can tell
/// that every entry names something on the chart. A chart adds an entry when it draws the first
/// mark of a kind (Legend::use), never from a fixed list.

#include <string>
#include <string_view>
#include <vector>

namespace clustersim::tools::svg {

enum class Swatch { box, line, dashed_line, circle, square, triangle, diamond, hatch };

struct LegendEntry {
  std::string kind;   // data-kind of the marks it stands for
  std::string label;  // what the reader sees
  std::string fill;   // a colour or url(#pattern)
  Swatch swatch = Swatch::box;
};

class Legend {
 public:
  /// Adds the entry unless its kind is there already.
  void use(LegendEntry entry);
  bool has(std::string_view kind) const;
  const std::vector<LegendEntry>& entries() const { return entries_; }
  /// Entries in rows from (x, y), wrapping at x + width; `height` gets the rows' height.
  std::string render(double x, double y, double width, double* height = nullptr) const;
  /// The height render() takes at `width`.
  double height(double width) const;

 private:
  std::vector<LegendEntry> entries_;
};

/// A marker shape centred on (cx, cy), radius r: the topology markers of the Pareto chart.
std::string marker(Swatch shape, double cx, double cy, double r, std::string_view fill,
                   std::string_view attributes);

}  // namespace clustersim::tools::svg
