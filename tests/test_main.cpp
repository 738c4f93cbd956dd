#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

// ctest runs each test case on its own, selected by name (doctest_discover_tests). A name the
// selection cannot carry (CMake splits names at ';') would select nothing, and a run of nothing
// passes: such a test could never fail. So a run whose filters select no test case fails.
namespace {

int selected_test_cases = -1;

struct SelectedTestCases : doctest::IReporter {
  explicit SelectedTestCases(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats& stats) override {
    selected_test_cases = static_cast<int>(stats.numTestCasesPassingFilters);
  }
  void test_case_start(const doctest::TestCaseData&) override {}
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};

}  // namespace

REGISTER_LISTENER("selected_test_cases", 1, SelectedTestCases);

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  const int result = context.run();
  if (context.shouldExit() || result != 0) return result;  // a query (--help, --list-*, --count) or a failure
  if (selected_test_cases == 0) {
    std::fprintf(stderr, "clustersim_tests: no test case matches the filters\n");
    return 1;
  }
  return result;
}
