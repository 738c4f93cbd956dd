#pragma once
/// Runs body(i) for i in [0, n) on `jobs` threads. Each index runs exactly once and writes only
/// its own result slot, so results come out in index order whatever the thread count.
/// Threads take the next index from a shared counter, which balances layouts of very different
/// cost better than fixed slices. The first exception thrown stops the remaining work and is
/// rethrown here.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace clustersim::planning {

template <class Body>
void parallel_for(std::size_t n, unsigned jobs, Body&& body) {
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&] {
    for (std::size_t i = next++; i < n && !failed; i = next++) {
      try {
        body(i);
      } catch (...) {
        const std::lock_guard lock(error_mutex);
        if (!error) error = std::current_exception();
        failed = true;
      }
    }
  };
  const unsigned threads = static_cast<unsigned>(std::min<std::size_t>(std::max(1u, jobs), n));
  if (threads <= 1) {
    work();
  } else {
    std::vector<std::jthread> pool;
    pool.reserve(threads);
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work);
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace clustersim::planning
