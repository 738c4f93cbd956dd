#pragma once
/// Process-wide settings of the C library's allocator, for the programs (clustersim and its
/// benchmarks) to call from main: code that may run inside another program must not change its
/// host's allocator.

namespace clustersim::tools {

/// Keeps freed memory in the process instead of handing it back to the kernel at every free.
/// A sweep simulates thousands of layouts, each building and dropping a task graph of up to a few
/// MB; glibc trimmed the top of its heap after each (above 128 KB free) and the next layout faulted
/// the same pages back in: about 650 page faults for every 60 layouts of the benchmark sweep.
void keep_freed_memory();

}  // namespace clustersim::tools
