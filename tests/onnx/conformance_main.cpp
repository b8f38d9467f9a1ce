// The ONNX backend conformance runner: every test directory under the given roots
// (default: Debian's libonnx-testdata node/, pytorch-converted/ and simple/) is
// imported and run on the reference interpreter and the compiled host path, and
// compared with the shipped outputs (smelt::run_onnx_test, the code `smelt test`
// uses). Prints one line per failure and skip, a table grouped by op, and last
// `N passed, M failed, K skipped`. Exit 1 when any test failed.
//
// With --expected-skips FILE (ctest passes tests/onnx/expected_skips.txt) every
// skip must be listed there with the reason it skips for, and every listed test
// that is walked must still skip for that reason: an importer regression that
// turns a passing test into a skip, or a fix that makes a listed test run, fails
// the run (exit 1) naming each difference, so the list is updated with the change.
//
//   onnx_conformance [--filter SUBSTRING] [--targets reference,host] [--verbose]
//                    [--expected-skips FILE] [ROOT...]
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "smelt/smelt.h"

namespace fs = std::filesystem;

namespace {

const char* kDefaultRoots[] = {"/usr/share/libonnx-testdata/data/node",
                               "/usr/share/libonnx-testdata/data/pytorch-converted",
                               "/usr/share/libonnx-testdata/data/simple"};

// Test directories larger than this (model and data) are skipped, so the run
// stays within minutes on two cores.
constexpr uintmax_t kMaxTestBytes = 64u << 20;

struct Tally {
  int passed = 0, failed = 0, skipped = 0;
  void add(smelt::OnnxTestStatus s) {
    (s == smelt::OnnxTestStatus::Passed ? passed : s == smelt::OnnxTestStatus::Failed ? failed : skipped)++;
  }
};

uintmax_t directory_bytes(const fs::path& dir) {
  uintmax_t bytes = 0;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) bytes += e.file_size();
  return bytes;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  size_t begin = 0;
  for (size_t end; (end = s.find(sep, begin)) != std::string::npos; begin = end + 1)
    parts.push_back(s.substr(begin, end - begin));
  parts.push_back(s.substr(begin));
  return parts;
}

// Runs one test in a child process, so that a crash in a compiled path fails that
// test instead of ending the run. The child reports status, op and reason on a pipe.
smelt::OnnxTestResult run_isolated(const fs::path& dir, const smelt::OnnxTestOptions& options) {
  smelt::OnnxTestResult result;
  result.name = result.op = dir.filename().string();
  int fds[2];
  if (::pipe(fds) != 0) return smelt::run_onnx_test(dir.string(), options);
  std::cout.flush();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    smelt::OnnxTestResult r = smelt::run_onnx_test(dir.string(), options);
    std::replace(r.reason.begin(), r.reason.end(), '\n', ' ');
    const std::string message = std::to_string(static_cast<int>(r.status)) + "\n" + r.op + "\n" + r.reason + "\n";
    for (size_t written = 0; written < message.size();) {
      const ssize_t n = ::write(fds[1], message.data() + written, message.size() - written);
      if (n <= 0) break;
      written += static_cast<size_t>(n);
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string message;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;) message.append(buffer, static_cast<size_t>(n));
  ::close(fds[0]);
  int wait_status = 0;
  ::waitpid(pid, &wait_status, 0);
  std::vector<std::string> lines = split(message, '\n');
  if (lines.size() < 3 || !WIFEXITED(wait_status)) {
    result.status = smelt::OnnxTestStatus::Failed;
    result.reason = WIFSIGNALED(wait_status) ? std::string("crashed: ") + ::strsignal(WTERMSIG(wait_status))
                                             : "the test process ended without a result";
    return result;
  }
  result.status = static_cast<smelt::OnnxTestStatus>(std::stoi(lines[0]));
  result.op = lines[1];
  result.reason = lines[2];
  return result;
}

// tests/onnx/expected_skips.txt: "ROOT/TEST REASON" per line, ROOT the last
// component of the root folder (node, pytorch-converted, simple), TEST the test
// directory's name and REASON its skip message as the runner prints it, less the
// test directory's path (which depends on the machine); '#' lines and blank
// lines are comments. Returns false (having said why) when the file is unusable.
bool read_expected_skips(const std::string& file, std::map<std::string, std::string>& skips) {
  std::ifstream in(file);
  if (!in) {
    std::cerr << file << ": cannot read the expected skips\n";
    return false;
  }
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.find(' ');
    const std::string key = line.substr(0, space);
    const std::string reason = space == std::string::npos ? "" : line.substr(line.find_first_not_of(' ', space));
    if (key.find('/') == std::string::npos || reason.empty()) {
      std::cerr << file << ":" << number << ": not \"ROOT/TEST REASON\": " << line << "\n";
      return false;
    }
    if (!skips.emplace(key, reason).second) {
      std::cerr << file << ":" << number << ": " << key << " is listed twice\n";
      return false;
    }
  }
  return true;
}

// A skip's reason without the test directory's path: "model.onnx: node #0 ...".
std::string portable_reason(const std::string& reason, const fs::path& dir) {
  const std::string prefix = dir.string() + "/";
  return reason.rfind(prefix, 0) == 0 ? reason.substr(prefix.size()) : reason;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> roots;
  std::string filter;
  bool verbose = false;
  std::string expected_skips_file;
  smelt::OnnxTestOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--filter" && i + 1 < argc) {
      filter = argv[++i];
    } else if (arg == "--targets" && i + 1 < argc) {
      options.targets = split(argv[++i], ',');
    } else if (arg == "--verbose") {
      verbose = true;
    } else if (arg == "--expected-skips" && i + 1 < argc) {
      expected_skips_file = argv[++i];
    } else if (arg.rfind("--", 0) == 0) {
      std::cerr << "usage: onnx_conformance [--filter SUBSTRING] [--targets reference,host] [--verbose] "
                   "[--expected-skips FILE] [ROOT...]\n";
      return 2;
    } else {
      roots.push_back(arg);
    }
  }
  if (roots.empty()) roots.assign(std::begin(kDefaultRoots), std::end(kDefaultRoots));
  std::map<std::string, std::string> expected_skips;  // "node/test_acos" -> its reason
  if (!expected_skips_file.empty() && !read_expected_skips(expected_skips_file, expected_skips)) return 2;
  // Each difference from the expected skips, as one line naming the test.
  std::vector<std::string> differences;
  int listed_walked = 0;

  std::cout << "targets:";
  for (const std::string& t : options.targets) std::cout << " " << t;
  std::cout << "\n";
  Tally total;
  for (const std::string& root : roots) {
    if (!fs::is_directory(root)) {
      std::cerr << root << ": not a directory (is libonnx-testdata installed?)\n";
      return 1;
    }
    std::vector<fs::path> dirs;
    for (const fs::directory_entry& e : fs::directory_iterator(root))
      if (e.is_directory() && e.path().filename().string().find(filter) != std::string::npos) dirs.push_back(e.path());
    std::sort(dirs.begin(), dirs.end());
    fs::path root_path = fs::path(root).lexically_normal();
    if (!root_path.has_filename()) root_path = root_path.parent_path();  // ".../node/"
    const std::string root_name = root_path.filename().string();          // the list's ROOT
    std::set<std::string> walked;  // "ROOT/TEST" of every test walked under this root
    std::map<std::string, Tally> by_op;
    Tally in_root;
    for (const fs::path& dir : dirs) {
      smelt::OnnxTestResult result;
      if (directory_bytes(dir) > kMaxTestBytes) {
        result.name = result.op = dir.filename().string();
        result.status = smelt::OnnxTestStatus::Skipped;
        result.reason = "larger than 64 MiB (kept out of the conformance run for time)";
      } else {
        result = run_isolated(dir, options);
      }
      by_op[result.op].add(result.status);
      in_root.add(result.status);
      total.add(result.status);
      if (result.status != smelt::OnnxTestStatus::Passed || verbose)
        std::cout << smelt::onnx_test_status_name(result.status) << " " << result.name
                  << (result.reason.empty() ? "" : ": " + result.reason) << "\n";
      std::cout.flush();
      if (expected_skips_file.empty()) continue;
      const std::string key = root_name + "/" + dir.filename().string();
      walked.insert(key);
      const auto listed = expected_skips.find(key);
      const bool skipped = result.status == smelt::OnnxTestStatus::Skipped;
      const std::string reason = portable_reason(result.reason, dir);
      if (listed != expected_skips.end()) ++listed_walked;
      if (skipped && listed == expected_skips.end())
        differences.push_back("skipped but not listed: " + key + " " + reason);
      else if (skipped && listed->second != reason)
        differences.push_back("skipped for another reason: " + key + " " + reason + " (listed: " + listed->second + ")");
      else if (!skipped && listed != expected_skips.end())
        differences.push_back("listed but " + std::string(smelt::onnx_test_status_name(result.status)) + ": " + key +
                              " (remove its line)");
    }
    // A listed test that is not there at all (the test data changed) no longer skips either.
    for (const auto& [key, reason] : expected_skips)
      if (key.rfind(root_name + "/", 0) == 0 && key.find(filter, root_name.size() + 1) != std::string::npos &&
          !walked.count(key))
        differences.push_back("listed but not found under " + root + ": " + key + " (remove its line)");
    std::cout << "\n" << root << "\n";
    std::printf("  %-36s %7s %7s %7s\n", "op", "passed", "failed", "skipped");
    for (const auto& [op, tally] : by_op)
      std::printf("  %-36s %7d %7d %7d\n", op.c_str(), tally.passed, tally.failed, tally.skipped);
    std::printf("  %-36s %7d %7d %7d\n\n", "(all)", in_root.passed, in_root.failed, in_root.skipped);
  }
  if (!expected_skips_file.empty()) {
    if (differences.empty()) {
      std::cout << "expected skips: every skip is listed in " << expected_skips_file << " with its reason, and all "
                << listed_walked << " listed tests walked skip\n";
    } else {
      std::cout << "expected skips: " << differences.size() << " difference(s) from " << expected_skips_file
                << "; update the list (a new skip may be an importer regression: check it first)\n";
      for (const std::string& line : differences) std::cout << "  " << line << "\n";
    }
  }
  std::cout << total.passed << " passed, " << total.failed << " failed, " << total.skipped << " skipped\n";
  return total.failed == 0 && differences.empty() ? 0 : 1;
}
