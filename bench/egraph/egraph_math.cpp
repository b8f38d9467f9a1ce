// egraph_math --steps N: the egglog math micro-benchmark on smelt's e-graph.
// Each step searches every rule on the rebuilt e-graph, applies every match,
// rebuilds (no analysis, no explanations). The last line is machine-readable.
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "bench/egraph/math_rules.h"
#include "egraph/runner.h"

namespace {

double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

int usage_error(const char* program) {
  std::fprintf(stderr, "usage: %s --steps N [--verbose] [--no-hugepages]\n", program);
  return 2;
}

// With transparent huge pages in "madvise" mode (the Debian default), glibc
// backs large allocations with 2 MB pages only when asked. The e-graph's big
// flat arrays then fault in 512x fewer pages (about 20% of an 11-step run).
// Re-executes once with the tunable set, unless GLIBC_TUNABLES is already
// set or --no-hugepages was given. Returns the allocator setting in use.
const char* allocator_setting(char** argv, bool allow_hugepages) {
  if (const char* tunables = std::getenv("GLIBC_TUNABLES")) return tunables;
  if (!allow_hugepages) return "default";
  setenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1", 1);
  execv("/proc/self/exe", argv);
  unsetenv("GLIBC_TUNABLES");  // exec failed: run as is
  return "default";
}

}  // namespace

int main(int argc, char** argv) {
  using namespace smelt::egraph;
  long steps = -1;
  bool verbose = false;
  bool hugepages = true;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--steps") == 0 && i + 1 < argc) {
      char* end = nullptr;
      steps = std::strtol(argv[++i], &end, 10);
      if (*end != '\0' || steps < 0) return usage_error(argv[0]);
    } else if (std::strcmp(argv[i], "--verbose") == 0) {
      verbose = true;
    } else if (std::strcmp(argv[i], "--no-hugepages") == 0) {
      hugepages = false;
    } else {
      return usage_error(argv[0]);
    }
  }
  if (steps < 0) return usage_error(argv[0]);
  std::printf("allocator: %s\n", allocator_setting(argv, hugepages));

  EGraph graph;
  const std::vector<PatternRewrite> rules = math::benchmark_rules(graph.symbols());
  math::add_benchmark_roots(graph);
  graph.rebuild();

  RunnerLimits limits;
  limits.iterations = static_cast<std::size_t>(steps);
  limits.nodes = std::numeric_limits<std::size_t>::max();
  limits.seconds = std::numeric_limits<double>::infinity();
  limits.memory_bytes = std::numeric_limits<std::size_t>::max();
  const RunReport report = Runner(graph, limits).run(rules);
  if (verbose) std::fputs(report.summary().c_str(), stdout);

  const std::size_t nodes = graph.num_nodes();
  if (const auto expected = math::expected_nodes(static_cast<std::size_t>(steps)))
    std::printf("oracle: expected %zu e-nodes, got %zu: %s\n", *expected, nodes,
                *expected == nodes ? "OK" : "MISMATCH");
  std::printf("steps=%ld enodes=%zu eclasses=%zu seconds=%.3f search_s=%.3f apply_s=%.3f rebuild_s=%.3f "
              "peak_rss_mb=%.0f\n",
              steps, nodes, graph.num_classes(), report.total_s, report.search_s(), report.apply_s(),
              report.rebuild_s(), peak_rss_mb());
  const auto expected = math::expected_nodes(static_cast<std::size_t>(steps));
  return (expected && *expected != nodes) ? 1 : 0;
}
