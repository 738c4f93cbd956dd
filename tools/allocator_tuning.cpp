#include "tools/allocator_tuning.hpp"

#include <cstdlib>  // defines __GLIBC__ where the C library is glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace clustersim::tools {

void keep_freed_memory() {
#if defined(__GLIBC__)
  // Up to 256 MB free at the top of the heap stays mapped, and blocks below 32 MB (the most glibc
  // allows here) come from the heap rather than from mmap, whose every free is an munmap.
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
#endif
}

}  // namespace clustersim::tools
