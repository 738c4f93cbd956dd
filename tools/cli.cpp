#include "tools/cli.hpp"

#include <algorithm>
#include <exception>
#include <new>
#include <optional>
#include <sstream>

#include <boost/program_options/errors.hpp>

#include "tools/command.hpp"
#include "tools/commands.hpp"
#include "tools/file_output.hpp"

#ifndef CLUSTERSIM_VERSION
#error "CLUSTERSIM_VERSION must be defined by the build (CMakeLists.txt)"
#endif

namespace clustersim::tools {
namespace {

constexpr std::string_view version_line = "clustersim " CLUSTERSIM_VERSION;

void print_help(std::ostream& out) {
  out << version_line << ": simulates LLM training steps on GPU clusters\n\n"
      << "Usage: clustersim <command> [options]\n"
      << "       clustersim <command> --help\n\n"
      << "Commands:\n";
  std::size_t width = 0;
  for (const auto& command : commands()) width = std::max(width, command.name.size());
  for (const auto& command : commands()) {
    out << "  " << command.name << std::string(width - command.name.size() + 3, ' ')
        << command.summary << '\n';
  }
  out << "\nOptions:\n"
      << "  -h, --help   show this help\n"
      << "  --version    print the version\n";
}

std::string known_commands() {
  std::string names;
  for (const auto& command : commands()) {
    if (!names.empty()) names += ", ";
    names += command.name;
  }
  return names;
}

// One line, whatever the message holds, so callers can rely on `head -1` of stderr.
int fail(std::ostream& err, std::string message) {
  std::replace(message.begin(), message.end(), '\n', ' ');
  err << "clustersim: error: " << message << '\n';
  return 2;
}

}  // namespace

int run_cli(std::span<const std::string> args, std::ostream& out, std::ostream& err) {
  if (args.empty()) return fail(err, "no command given (see clustersim --help)");
  const std::string& first = args.front();
  if (first == "--help" || first == "-h" || first == "help") {
    print_help(out);
    return 0;
  }
  if (first == "--version") {
    out << version_line << '\n';
    return 0;
  }
  const auto& table = commands();
  const auto command = std::find_if(table.begin(), table.end(),
                                    [&](const Command& c) { return c.name == first; });
  if (command == table.end()) {
    std::string message(first.starts_with('-') ? "unknown option '" : "unknown command '");
    message.append(first).append("' (commands: ").append(known_commands());
    return fail(err, message.append("; see clustersim --help)"));
  }

  // Buffered, so a command that fails half-way leaves stdout empty.
  std::ostringstream buffer;
  try {
    const int code = command->run(args.subspan(1), buffer);
    // An output file named "-" takes the report's place on stdout (tools/file_output.hpp).
    if (std::optional<std::string> file = take_standard_output_file()) {
      if (std::find(args.begin(), args.end(), "--json") != args.end()) {
        return fail(err, std::string(command->name) + ": an output file is \"-\" (standard output), where --json "
                         "prints the report: name a file, or leave out --json");
      }
      out << *file;
    } else {
      out << buffer.str();
    }
    out.flush();
    return code;
  } catch (const boost::program_options::error& error) {
    return fail(err, std::string(command->name) + ": " + error.what() + " (see clustersim " +
                         std::string(command->name) + " --help)");
  } catch (const std::bad_alloc&) {
    // The input bounds should make this unreachable; if not, say what happened in words. What
    // the command held is freed by now, so the message itself can be built.
    return fail(err, std::string(command->name) +
                         ": ran out of memory (the inputs ask for more than this machine can allocate)");
  } catch (const std::exception& error) {
    return fail(err, error.what());
  }
}

}  // namespace clustersim::tools
