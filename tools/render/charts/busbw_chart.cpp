#include "tools/render/charts/busbw_chart.hpp"

#include <filesystem>

#include <fmt/format.h>

#include "tools/render/charts/line_chart.hpp"
#include "tools/render/svg/palette.hpp"

namespace clustersim::tools::charts {

double measured_busbw_gbps(const calibration::NcclTestsRow& row) {
  double busbw = row.out_of_place.busbw_gb_per_s;
  if (row.in_place && row.in_place->time_us < row.out_of_place.time_us) busbw = row.in_place->busbw_gb_per_s;
  return busbw;
}

std::string busbw_svg(const NcclTestsRun& predicted, const calibration::NcclTestsLog* measured) {
  LineChart chart{.chart = "busbw",
                  .description = "Bus bandwidth against message size, predicted and measured",
                  .x_title = "message size (bytes, binary prefixes)",
                  .y_title = "bus bandwidth (GB/s)",
                  .x_scale = svg::Scale::log2,
                  .x_format = svg::bytes_label};
  Series p{.kind = "predicted",
           .label = fmt::format("predicted {} on {} x {} ({}, {} ranks)", calibration::collective_name(predicted.op),
                                predicted.nodes, predicted.gpu, predicted.fidelity, predicted.ranks),
           .colour = std::string(svg::blue),
           .markers = true};
  for (const auto& row : predicted.rows) p.points.emplace_back(static_cast<double>(row.size_bytes), row.busbw_gbps);
  chart.series.push_back(std::move(p));
  if (measured != nullptr) {
    Series m{.kind = "measured",
             .label = fmt::format("measured: {} ({} ranks, {} nodes)",
                                  std::filesystem::path(measured->file).filename().string(), measured->ranks,
                                  measured->nodes),
             .colour = std::string(svg::vermillion),
             .dashed = true,
             .markers = true};
    for (const auto& row : measured->rows) {
      if (row.size_bytes > 0) m.points.emplace_back(static_cast<double>(row.size_bytes), measured_busbw_gbps(row));
    }
    chart.series.push_back(std::move(m));
  }
  return line_chart_svg(chart);
}

}  // namespace clustersim::tools::charts
