/// The clustersim program: hands its arguments to the command-line dispatcher.

#include <iostream>
#include <string>
#include <vector>

#include "tools/allocator_tuning.hpp"
#include "tools/cli.hpp"

int main(int argc, char** argv) {
  clustersim::tools::keep_freed_memory();
  const std::vector<std::string> args(argv + 1, argv + argc);
  return clustersim::tools::run_cli(args, std::cout, std::cerr);
}
