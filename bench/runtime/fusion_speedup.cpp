// Fused vs unfused, measured side by side in one run: compiles a graph twice
// (smelt::compile with fusion on and off), checks both against the reference
// interpreter, runs each `--reps` times alternating between the two, and
// prints the median times and the ratio.
//   fusion_speedup [FILE] [--reps N] [--threads N] [--target host|cuda|hip]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ir/tensor_compare.h"
#include "smelt/smelt.h"

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

int usage() {
  std::fprintf(stderr, "usage: fusion_speedup [FILE.sg] [--reps N] [--threads N] [--target host|cuda|hip]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string file = std::string(SMELT_SOURCE_DIR) + "/examples/mlir_dot_slice.sg";
  int reps = 20;
  smelt::CompileOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if ((arg == "--reps" || arg == "--threads" || arg == "--target") && i + 1 >= argc) return usage();
    if (arg == "--reps") reps = std::atoi(argv[++i]);
    else if (arg == "--threads") options.threads = static_cast<unsigned>(std::atoi(argv[++i]));
    else if (arg == "--target") {
      auto target = smelt::parse_target(argv[++i]);
      if (!target) return usage();
      options.target = *target;
    } else if (arg.rfind("--", 0) == 0) return usage();
    else file = arg;
  }
  if (reps < 1) return usage();

  try {
    const smelt::ir::Graph g = smelt::load_graph(file);
    const std::vector<smelt::ir::HostTensor> inputs = smelt::random_inputs(g, 1);
    const smelt::ir::Reference want = smelt::reference(g, inputs);
    smelt::CompileOptions unfused_options = options;
    unfused_options.fusion = false;
    smelt::Program fused = smelt::compile(g, options);
    smelt::Program unfused = smelt::compile(g, unfused_options);
    for (auto* p : {&fused, &unfused}) {
      const std::string mismatch = smelt::ir::compare_outputs(want, p->run(inputs));
      if (!mismatch.empty()) {
        std::fprintf(stderr, "%s: %s differs from the reference: %s\n", file.c_str(),
                     p == &fused ? "fused" : "unfused", mismatch.c_str());
        return 1;
      }
    }
    // Alternate single reps so both see the same machine load.
    std::vector<double> fused_s, unfused_s;
    fused.benchmark(inputs, 1);
    unfused.benchmark(inputs, 1);
    for (int r = 0; r < reps; ++r) {
      fused_s.push_back(fused.benchmark(inputs, 1).front());
      unfused_s.push_back(unfused.benchmark(inputs, 1).front());
    }
    const double f = median(fused_s), u = median(unfused_s);
    std::printf("%s on %s, %d reps each (median, min), outputs checked against the reference\n", file.c_str(),
                fused.device().c_str(), reps);
    std::printf("%-8s %8s %12s %12s %16s %14s\n", "program", "kernels", "median us", "min us", "predicted us",
                "arena bytes");
    std::printf("%-8s %8zu %12.1f %12.1f %16.1f %14zu\n", "unfused", unfused.kernels().kernels.size(), u * 1e6,
                *std::min_element(unfused_s.begin(), unfused_s.end()) * 1e6, unfused.fusion().predicted_us_after,
                unfused.peak_bytes_after());
    std::printf("%-8s %8zu %12.1f %12.1f %16.1f %14zu\n", "fused", fused.kernels().kernels.size(), f * 1e6,
                *std::min_element(fused_s.begin(), fused_s.end()) * 1e6, fused.fusion().predicted_us_after,
                fused.peak_bytes_after());
    std::printf("speedup (unfused / fused, medians): %.2fx\n", u / f);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
