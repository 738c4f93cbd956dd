#pragma once
/// HTML tables for the reports: a <table> that wraps its cells to the page's width (instead of a
/// <pre> dump cut off at the page's edge). Not sortable: that needs script, and the pages carry
/// none (tests/tools/render/html_report_test.cpp).

#include <string>
#include <vector>

namespace clustersim::tools {

struct HtmlTable {
  std::string name{};                             // data-table
  std::vector<std::string> headers{};
  std::vector<std::vector<std::string>> rows{};   // text, escaped when rendered
  std::vector<bool> numeric{};                    // per column: right-aligned
};

std::string table_html(const HtmlTable& table);

}  // namespace clustersim::tools
