#pragma once
// Headless Chromium for the browser check: found, or installed with apt-get where that is possible,
// and run once per report on a copy of the page with the measuring script (browser_probe.js)
// appended. Chromium that is there but fails to render is an error, not a reason to skip.

#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/tools/cli_runner.hpp"

namespace clustersim::test {

// The page width the rules are checked at: a laptop browser window that is not maximised.
constexpr int kBrowserWindowWidthPx = 1000;
constexpr int kBrowserWindowHeightPx = 800;
// A report renders in a few seconds; this only stops a hung browser from hanging the suite.
constexpr int kChromiumTimeoutS = 120;

inline bool have_chromium() { return std::system("command -v chromium >/dev/null 2>&1") == 0; }

// The last `lines` lines of `text`, each on a line of its own after the message they end.
inline std::string tail_lines(const std::string& text, int lines) {
  std::size_t at = text.size();
  while (at > 0 && text[at - 1] == '\n') --at;
  const std::size_t end = at;
  while (lines-- > 0 && at > 0) {
    const std::size_t newline = text.rfind('\n', at - 1);
    if (newline == std::string::npos) {
      at = 0;
      break;
    }
    at = newline;
  }
  std::string tail = text.substr(at, end - at);
  return tail.empty() || tail.front() == '\n' ? tail : "\n" + tail;
}

// Chromium's stderr without its complaints about a missing D-Bus, which a container never has and
// which say nothing about why a page failed.
inline std::string without_dbus_noise(const std::string& text) {
  std::istringstream lines(text);
  std::string out, line;
  while (std::getline(lines, line)) {
    if (line.find("dbus/") == std::string::npos) out += line + "\n";
  }
  return out;
}

/// Finds `chromium`, installing Debian's package when it is missing and this process may
/// (root, or passwordless sudo, with apt-get). Returns nothing when it is there; otherwise why it
/// cannot be had here, for the skip message.
inline std::optional<std::string> ensure_chromium() {
  static const std::optional<std::string> why_not = []() -> std::optional<std::string> {
    if (have_chromium()) return std::nullopt;
    if (std::system("command -v apt-get >/dev/null 2>&1") != 0) {
      return "chromium is not installed and there is no apt-get to install it (not a Debian system)";
    }
    std::string sudo;
    if (::geteuid() != 0) {
      if (std::system("sudo -n true >/dev/null 2>&1") != 0) {
        return "chromium is not installed, and this is neither root nor allowed passwordless sudo to run "
               "`apt-get install -y chromium`";
      }
      sudo = "sudo -n ";
    }
    // The package lists may be stale or absent (a fresh container): installed after an update. The
    // font is the one tools/check installs (tools/script_common.sh, CLUSTERSIM_CHECK_PACKAGES).
    const std::string install = sudo + "env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium fonts-dejavu-core";
    Outcome outcome = run_shell(install);
    if (outcome.exit_code != 0) outcome = run_shell(sudo + "apt-get update -q && " + install);
    if (outcome.exit_code != 0 || !have_chromium()) {
      return "chromium is not installed and `apt-get install -y chromium` failed (exit " +
             std::to_string(outcome.exit_code) + "):" + tail_lines(outcome.out + outcome.err, 3);
    }
    return std::nullopt;
  }();
  return why_not;
}

/// Whether a missing browser must fail the test rather than skip it: in CI, which installs it.
inline bool browser_required() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && *ci != '\0' && std::string(ci) != "false" && std::string(ci) != "0";
}

/// Whether the browser check can run here: Chromium found or installed. Otherwise a missing
/// browser fails the test in CI and skips it, saying why, anywhere else.
inline bool chromium_or_skip() {
  const auto why_not = ensure_chromium();
  if (!why_not) return true;
  if (browser_required()) FAIL_CHECK("the browser check cannot run in CI (CI is set): " << *why_not);
  else MESSAGE("skipped the browser check: " << *why_not);
  return false;
}

/// Renders `html_path` in headless Chromium at the check's window size, with browser_probe.js
/// appended, and returns what the probe measured. Any failure (Chromium exits non-zero, times
/// out, or the page holds no probe result) fails the current test with Chromium's last words.
inline std::optional<nlohmann::json> probe_in_chromium(const std::string& html_path) {
  const std::string probe = read_text(std::string(CLUSTERSIM_SOURCE_DIR) + "/tests/tools/render/browser_probe.js");
  REQUIRE_MESSAGE(!probe.empty(), "tests/tools/render/browser_probe.js is missing or empty");
  std::string html = read_text(html_path);
  const std::size_t body_end = html.rfind("</body>");
  REQUIRE_MESSAGE(body_end != std::string::npos, html_path << " has no </body>");
  html.insert(body_end, "<script>\n" + probe + "</script>\n");
  const TempDir dir;
  const std::string copy = dir / "probed.html";
  std::ofstream(copy) << html;
  const std::string command = "timeout " + std::to_string(kChromiumTimeoutS) +
                              " chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage "
                              "--user-data-dir='" + (dir / "profile") + "' --window-size=" +
                              std::to_string(kBrowserWindowWidthPx) + "," + std::to_string(kBrowserWindowHeightPx) +
                              " --dump-dom 'file://" + copy + "'";
  const Outcome outcome = run_shell(command);
  if (outcome.exit_code != 0) {
    FAIL_CHECK("chromium --headless failed on " << html_path << " (exit " << outcome.exit_code
                                                 << std::string(outcome.exit_code == 124 ? ", timed out" : "")
                                                 << "):" << tail_lines(without_dbus_noise(outcome.err), 5));
    return std::nullopt;
  }
  // The probe's own source holds the element's id too: its result is the last occurrence.
  const std::string marker = "<script type=\"application/json\" id=\"browser-probe\">";
  const std::size_t begin = outcome.out.rfind(marker);
  const std::size_t end = begin == std::string::npos ? begin : outcome.out.find("</script>", begin);
  if (end == std::string::npos) {
    FAIL_CHECK("chromium rendered " << html_path << " but the probe wrote no result (a script error?):"
                                    << tail_lines(without_dbus_noise(outcome.err), 5));
    return std::nullopt;
  }
  return nlohmann::json::parse(outcome.out.substr(begin + marker.size(), end - begin - marker.size()));
}

}  // namespace clustersim::test
