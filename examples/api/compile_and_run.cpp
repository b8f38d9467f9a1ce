// Build a graph in C++, compile it for the host, run it, and compare with the
// reference interpreter. README.md quotes this file; tests/runtime builds and runs it.
#include <cstdio>

#include "smelt/smelt.h"

int main() {
  smelt::Graph g("silu_slices");
  auto h = input(g, "h", smelt::DType::F32, {64, 256});  // builder functions, found by argument
  auto s = slice_axis(h, /*axis=*/1, /*start=*/0, /*stop=*/128);
  g.add_output(mul(s, sigmoid(s)));  // shape-checked as it is built

  // Fuse (equality saturation + cost-driven extraction), lower with LLVM, load.
  smelt::Program prog = smelt::compile(g);  // CompileOptions: target, threads, limits, ...
  const std::vector<smelt::HostTensor> inputs = smelt::random_inputs(g, /*seed=*/1);
  const std::vector<smelt::HostTensor> outs = prog.run(inputs);

  // The reference interpreter is the oracle: each element within its dtype's tolerance
  // of the size of the terms that produced it (smelt::reference's error scales).
  const std::string mismatch = smelt::compare_outputs(smelt::reference(g, inputs), outs);
  const std::vector<double> seconds = prog.benchmark(inputs, /*reps=*/10);
  std::printf("%zu kernel(s) on %s, %.1f us per run: %s\n", prog.kernels().kernels.size(), prog.device().c_str(),
              seconds.back() * 1e6, mismatch.empty() ? "matches the reference" : mismatch.c_str());
  return mismatch.empty() ? 0 : 1;
}
