#include "tools/render/table.hpp"

#include "tools/render/svg/elements.hpp"

namespace clustersim::tools {

std::string table_html(const HtmlTable& table) {
  const auto numeric = [&](std::size_t c) { return c < table.numeric.size() && table.numeric[c]; };
  std::string out = "<div class=\"table-wrap\"><table class=\"data\" data-table=\"" +
                    svg::html_escape(table.name) + "\"><thead><tr>";
  for (std::size_t c = 0; c < table.headers.size(); ++c) {
    out += numeric(c) ? "<th class=\"num\">" : "<th>";
    out += svg::html_escape(table.headers[c]) + "</th>";
  }
  out += "</tr></thead><tbody>";
  for (const auto& row : table.rows) {
    out += "<tr>";
    for (std::size_t c = 0; c < row.size(); ++c) {
      out += numeric(c) ? "<td class=\"num\">" : "<td>";
      out += svg::html_escape(row[c]) + "</td>";
    }
    out += "</tr>";
  }
  out += "</tbody></table></div>";
  return out;
}

}  // namespace clustersim::tools
