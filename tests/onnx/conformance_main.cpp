// The ONNX backend conformance runner: every test directory under the given roots
// (default: Debian's libonnx-testdata node/, pytorch-converted/ and simple/) is
// imported and run on the reference interpreter and the compiled host path, and
// compared with the shipped outputs (smelt::run_onnx_test, the code `smelt test`
// uses). Prints one line per failure and skip, a table grouped by op, and last
// `N passed, M failed, K skipped`. Exit 1 when any test failed.
//
//   onnx_conformance [--filter SUBSTRING] [--targets reference,host] [--verbose] [ROOT...]
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
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

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> roots;
  std::string filter;
  bool verbose = false;
  smelt::OnnxTestOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--filter" && i + 1 < argc) {
      filter = argv[++i];
    } else if (arg == "--targets" && i + 1 < argc) {
      options.targets = split(argv[++i], ',');
    } else if (arg == "--verbose") {
      verbose = true;
    } else if (arg.rfind("--", 0) == 0) {
      std::cerr << "usage: onnx_conformance [--filter SUBSTRING] [--targets reference,host] [--verbose] [ROOT...]\n";
      return 2;
    } else {
      roots.push_back(arg);
    }
  }
  if (roots.empty()) roots.assign(std::begin(kDefaultRoots), std::end(kDefaultRoots));

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
    }
    std::cout << "\n" << root << "\n";
    std::printf("  %-36s %7s %7s %7s\n", "op", "passed", "failed", "skipped");
    for (const auto& [op, tally] : by_op)
      std::printf("  %-36s %7d %7d %7d\n", op.c_str(), tally.passed, tally.failed, tally.skipped);
    std::printf("  %-36s %7d %7d %7d\n\n", "(all)", in_root.passed, in_root.failed, in_root.skipped);
  }
  std::cout << total.passed << " passed, " << total.failed << " failed, " << total.skipped << " skipped\n";
  return total.failed == 0 ? 0 : 1;
}
