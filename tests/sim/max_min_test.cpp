#include "sim/max_min.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "tests/sim/xorshift.hpp"

using clustersim::sim::MaxMinSolver;

TEST_CASE("sharing: a flow over two links is held to the tighter one") {
  // Links A = 10 B/s, B = 4 B/s; f1 crosses A and B, f2 crosses A only.
  // Max-min saturates B first at level 4: f1 = 4; f2 gets what A has left, 6.
  MaxMinSolver s;
  const auto a = s.add_link(10);
  const auto b = s.add_link(4);
  const std::vector<std::uint32_t> f1{a, b}, f2{a};
  s.add_flow(f1);
  s.add_flow(f2);
  const auto& r = s.solve();
  CHECK(r[0] == doctest::Approx(4));
  CHECK(r[1] == doctest::Approx(6));
}

TEST_CASE("sharing: weights split a link in proportion") {
  // One 12 B/s link, weights 1 and 3: the fill level stops at 12 / (1 + 3) = 3, so 3 and 9.
  MaxMinSolver s;
  const std::vector<std::uint32_t> l{s.add_link(12)};
  s.add_flow(l, 1.0);
  s.add_flow(l, 3.0);
  const auto& r = s.solve();
  CHECK(r[0] == doctest::Approx(3));
  CHECK(r[1] == doctest::Approx(9));
}

TEST_CASE("sharing: a capped flow leaves its unused share to the others") {
  // One 10 B/s link, three flows, one capped at 1: the capped one freezes at 1,
  // the other two split the remaining 9 evenly: 4.5 each.
  MaxMinSolver s;
  const std::vector<std::uint32_t> l{s.add_link(10)};
  s.add_flow(l, 1.0, 1.0);
  s.add_flow(l);
  s.add_flow(l);
  const auto& r = s.solve();
  CHECK(r[0] == doctest::Approx(1));
  CHECK(r[1] == doctest::Approx(4.5));
  CHECK(r[2] == doctest::Approx(4.5));
}

TEST_CASE("sharing: the bottleneck moves as the fill level rises") {
  // Links: L1 = 3, L2 = 10, L3 = 8. Flows: a over L1 and L2; b over L2 and L3; c over L2; d over L3.
  // Fill levels at which each link would saturate:
  //   L1: 3 / 1 = 3;  L2: 10 / 3 = 3.33;  L3: 8 / 2 = 4.  First L1 saturates at level 3: a = 3.
  //   L2 has 10 - 3*3 = 1 left for b and c (weight 2): +0.5; L3 has 8 - 2*3 = 2 left (b, d): +1.
  //   L2 saturates next at level 3.5: b = c = 3.5.  L3 then has 8 - 3.5 - 3.5 = 1 left for d alone:
  //   d = 4.5.  The binding link moved L1 -> L2 -> L3.
  MaxMinSolver s;
  const auto l1 = s.add_link(3), l2 = s.add_link(10), l3 = s.add_link(8);
  const std::vector<std::uint32_t> a{l1, l2}, b{l2, l3}, c{l2}, d{l3};
  s.add_flow(a);
  s.add_flow(b);
  s.add_flow(c);
  s.add_flow(d);
  const auto& r = s.solve();
  CHECK(r[0] == doctest::Approx(3));
  CHECK(r[1] == doctest::Approx(3.5));
  CHECK(r[2] == doctest::Approx(3.5));
  CHECK(r[3] == doctest::Approx(4.5));
}

TEST_CASE("sharing: a flow over no link gets its cap, clear() starts a new problem") {
  MaxMinSolver s;
  s.add_flow({}, 1.0, 7.0);
  CHECK(s.solve()[0] == doctest::Approx(7));
  s.clear();
  const std::vector<std::uint32_t> l{s.add_link(2)};
  s.add_flow(l);
  CHECK(s.flow_count() == 1);
  CHECK(s.solve()[0] == doctest::Approx(2));
}

TEST_CASE("sharing: random problems meet the definition of weighted max-min fairness") {
  // Bertsekas & Gallager's characterisation, checked independently of how the solver fills:
  // no link carries more than its capacity, and every flow is either at its cap or crosses a
  // saturated link on which no flow has a larger rate per unit of weight.
  clustersim::test::Xorshift64 next(7);
  MaxMinSolver s;
  for (int problem = 0; problem < 50; ++problem) {
    s.clear();
    const auto links = static_cast<std::uint32_t>(1 + next() % 40);
    const auto flows = static_cast<std::uint32_t>(1 + next() % 120);
    std::vector<double> capacity(links);
    for (auto& c : capacity) {
      c = 1.0 + static_cast<double>(next() % 1000);
      s.add_link(c);
    }
    std::vector<std::vector<std::uint32_t>> routes(flows);
    std::vector<double> weight(flows), cap(flows);
    for (std::uint32_t f = 0; f < flows; ++f) {
      const std::uint32_t hops = 1 + next() % 4;
      for (std::uint32_t h = 0; h < hops; ++h) {
        const auto l = static_cast<std::uint32_t>(next() % links);
        if (std::find(routes[f].begin(), routes[f].end(), l) == routes[f].end()) routes[f].push_back(l);
      }
      weight[f] = 0.5 + static_cast<double>(next() % 4);
      cap[f] = next() % 3 == 0 ? 1.0 + static_cast<double>(next() % 200) : std::numeric_limits<double>::infinity();
      s.add_flow(routes[f], weight[f], cap[f]);
    }
    const std::vector<double> rate = s.solve();
    std::vector<double> load(links, 0.0);
    for (std::uint32_t f = 0; f < flows; ++f)
      for (std::uint32_t l : routes[f]) load[l] += rate[f];
    for (std::uint32_t l = 0; l < links; ++l) CHECK(load[l] <= capacity[l] * (1.0 + 1e-9));
    for (std::uint32_t f = 0; f < flows; ++f) {
      CAPTURE(problem);
      CAPTURE(f);
      CHECK(rate[f] <= cap[f] * (1.0 + 1e-9));
      if (rate[f] >= cap[f] * (1.0 - 1e-9)) continue;
      bool bottlenecked = false;
      for (std::uint32_t l : routes[f]) {
        if (load[l] < capacity[l] * (1.0 - 1e-9)) continue;
        bool largest = true;
        for (std::uint32_t g = 0; g < flows; ++g)
          if (std::find(routes[g].begin(), routes[g].end(), l) != routes[g].end() &&
              rate[g] / weight[g] > rate[f] / weight[f] * (1.0 + 1e-9))
            largest = false;
        bottlenecked = bottlenecked || largest;
      }
      CHECK(bottlenecked);
    }
  }
}
