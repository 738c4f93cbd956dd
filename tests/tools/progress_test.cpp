#include "tools/progress.hpp"

#include <doctest/doctest.h>

#include <sstream>

namespace clustersim::tools {
namespace {

TEST_CASE("progress: the line gives done / total, the rate and the time left") {
  // 250 of 1000 in 5 s: 50 per second, 750 left take 15 s.
  CHECK(progress_line("sweep", "layouts", 250, 1000, 5.0) == "sweep: 250/1000 layouts  50/s  15 s left");
  // 30 of 100 in 60 s: 0.5 per second, 70 left take 140 s = 2 min 20 s.
  CHECK(progress_line("plan", "layouts", 30, 100, 60.0) == "plan: 30/100 layouts  0.5/s  2 min 20 s left");
  CHECK(progress_line("plan", "layouts", 0, 100, 1.0) == "plan: 0/100 layouts  starting");
}

TEST_CASE("progress: nothing is written when disabled, or before the delay") {
  std::ostringstream err;
  {
    Progress progress("sweep", "layouts", 10, false, err, 0.0);
    for (int i = 0; i < 10; ++i) progress.advance();
  }
  {
    Progress progress("sweep", "layouts", 10, true, err, 3600.0);
    for (int i = 0; i < 10; ++i) progress.advance();
  }
  CHECK(err.str().empty());
}

TEST_CASE("progress: an enabled line is drawn in place and erased at the end") {
  std::ostringstream err;
  {
    Progress progress("sweep", "layouts", 4, true, err, 0.0);
    progress.advance(4);  // the last item is always drawn
  }
  const std::string text = err.str();
  CHECK(text.starts_with("\rsweep: 4/4 layouts"));
  CHECK(text.find('\n') == std::string::npos);
  CHECK(text.ends_with("\r"));  // blanked out, cursor back at the start of the line
}

}  // namespace
}  // namespace clustersim::tools
