// host_speed: smelt's host code against the machine's own yardsticks, measured
// side by side in one run (not a test; see the README):
//  (a) a fused elementwise chain y = relu(x*a + b) over 64M f32, JIT-compiled by
//      smelt, against a STREAM triad a[i] = b[i] + s*c[i] written in C++
//      (-O3 -march=native), both as bytes read + written per second;
//  (b) smelt's tiled matmul against OpenBLAS cblas_sgemm at 1024^3, GFLOP/s.
// Each on 1 and 2 threads (std::threads claiming contiguous chunks of the
// parallel units); every number is the best of --reps runs.
//   host_speed [--reps N] [--elements N] [--size N]
#include <cblas.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "ir/builder.h"
#include "fusion/kernelize.h"
#include "lower/lower.h"

extern "C" void openblas_set_num_threads(int threads);

namespace {

struct Options {
  int reps = 5;
  int64_t elements = int64_t{64} << 20;
  int64_t size = 1024;
};

double seconds_of(const std::function<void()>& fn) {
  const auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Best times of two contenders, their runs alternating so that a change in
// the machine's load hits both alike.
std::pair<double, double> best_seconds(int reps, const std::function<void()>& first,
                                       const std::function<void()>& second) {
  first();  // warm-up: page faults, JIT'ed code and caches
  second();
  double best_first = 1e30, best_second = 1e30;
  for (int r = 0; r < reps; ++r) {
    best_first = std::min(best_first, seconds_of(first));
    best_second = std::min(best_second, seconds_of(second));
  }
  return {best_first, best_second};
}

std::string load_average() {
  double load[3] = {0, 0, 0};
  if (getloadavg(load, 3) != 3) return "unknown";
  char text[64];
  std::snprintf(text, sizeof text, "%.2f %.2f %.2f", load[0], load[1], load[2]);
  return text;
}

// Runs fn(begin, end) over [0, units) on `threads` threads, which claim
// contiguous chunks until none is left, so a core slowed by other work does
// not hold the rest up. Four chunks per thread is how runtime/'s pool cuts
// them; one thread makes one call.
void split(int64_t units, int threads, const std::function<void(int64_t, int64_t)>& fn, int chunks_per_thread = 4) {
  const int64_t chunks = threads == 1 ? 1 : std::min<int64_t>(units, int64_t{chunks_per_thread} * threads);
  std::atomic<int64_t> next{0};
  auto work = [&] {
    for (int64_t c = next++; c < chunks; c = next++) fn(units * c / chunks, units * (c + 1) / chunks);
  };
  std::vector<std::thread> workers;
  for (int t = 1; t < threads; ++t) workers.emplace_back(work);
  work();
  for (std::thread& w : workers) w.join();
}

// Float buffers of a program, allocated and filled: inputs random, constants
// from their values, outputs zero.
struct ProgramBuffers {
  std::vector<std::vector<float>> storage;
  std::vector<void*> pointers;
};

ProgramBuffers allocate(const smelt::kernel::KernelProgram& program, uint64_t seed) {
  ProgramBuffers buffers;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (const smelt::kernel::Buffer& b : program.buffers) {
    if (b.type.dtype != smelt::ir::DType::F32) throw std::runtime_error("buffer " + b.name + " is not f32");
    std::vector<float> data(static_cast<size_t>(smelt::ir::numel(b.type.shape)), 0.0f);
    if (b.kind == smelt::kernel::BufferKind::kInput)
      for (float& v : data) v = uniform(rng);
    if (b.kind == smelt::kernel::BufferKind::kConstant)
      for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(b.values.size() == 1 ? b.values[0] : b.values[i]);
    buffers.storage.push_back(std::move(data));
  }
  for (auto& data : buffers.storage) buffers.pointers.push_back(data.data());
  return buffers;
}

// The one kernel of a graph lowered with maximal fusion, JIT-compiled.
struct CompiledKernel {
  smelt::kernel::KernelProgram program;
  std::unique_ptr<smelt::lower::HostJit> jit;
  smelt::lower::HostJit::KernelFn fn = nullptr;
  int64_t units = 0;
};

CompiledKernel compile_one_kernel(const smelt::ir::Graph& g) {
  CompiledKernel k;
  k.program = smelt::fusion::kernelize_program(g, smelt::fusion::materialize_outputs(g));
  if (k.program.kernels.size() != 1)
    throw std::runtime_error(g.name() + ": expected one fused kernel, got " + std::to_string(k.program.kernels.size()));
  k.jit = smelt::lower::HostJit::compile(k.program);
  k.fn = k.jit->kernel(0);
  k.units = smelt::lower::parallel_units(k.program.kernels[0]);
  return k;
}

void stream_vs_chain(const Options& o) {
  const int64_t n = o.elements;
  smelt::ir::Graph g("relu_axpb");
  auto x = smelt::ir::input(g, "x", smelt::ir::DType::F32, {n});
  auto a = smelt::ir::input(g, "a", smelt::ir::DType::F32, {n});
  auto b = smelt::ir::input(g, "b", smelt::ir::DType::F32, {n});
  g.add_output(smelt::ir::relu(x * a + b));
  CompiledKernel chain = compile_one_kernel(g);
  ProgramBuffers buffers = allocate(chain.program, 1);

  std::vector<float> ta(static_cast<size_t>(n), 0.0f), tb(static_cast<size_t>(n), 1.0f), tc(static_cast<size_t>(n), 2.0f);
  const float s = 3.0f;
  auto triad = [&](int64_t begin, int64_t end) {
    float* __restrict pa = ta.data();
    const float* __restrict pb = tb.data();
    const float* __restrict pc = tc.data();
    for (int64_t i = begin; i < end; ++i) pa[i] = pb[i] + s * pc[i];
  };
  const double triad_bytes = 3.0 * 4.0 * static_cast<double>(n);  // b, c read; a written
  const double chain_bytes = 4.0 * 4.0 * static_cast<double>(n);  // x, a, b read; y written

  std::printf("(a) elementwise chain y = relu(x*a + b) vs STREAM triad, %lld f32 elements (%.0f MiB per array)\n",
              static_cast<long long>(n), 4.0 * static_cast<double>(n) / (1 << 20));
  std::printf("    %-8s %14s %14s %8s  %s\n", "threads", "triad GB/s", "smelt GB/s", "ratio", "target >= 0.80");
  for (int threads : {1, 2}) {
    const auto [t_triad, t_chain] = best_seconds(
        o.reps, [&] { split(n, threads, triad); },
        [&] {
          split(chain.units, threads, [&](int64_t begin, int64_t end) { chain.fn(buffers.pointers.data(), begin, end); });
        });
    const double triad_gbs = triad_bytes / t_triad / 1e9, chain_gbs = chain_bytes / t_chain / 1e9;
    const double ratio = chain_gbs / triad_gbs;
    std::printf("    %-8d %14.2f %14.2f %8.3f  %s\n", threads, triad_gbs, chain_gbs, ratio, ratio >= 0.8 ? "met" : "NOT met");
  }
  // The chain's result, checked once so a fast wrong kernel cannot pass.
  const float* xs = static_cast<const float*>(buffers.pointers[0]);
  const float* as = static_cast<const float*>(buffers.pointers[1]);
  const float* bs = static_cast<const float*>(buffers.pointers[2]);
  const float* ys = static_cast<const float*>(buffers.pointers[3]);
  for (int64_t i = 0; i < n; i += 9973) {
    const float want = std::max(0.0f, xs[i] * as[i] + bs[i]);
    if (std::fabs(ys[i] - want) > 1e-5f * std::max(1.0f, std::fabs(want)))
      throw std::runtime_error("chain: wrong result at element " + std::to_string(i));
  }
}

void sgemm_vs_openblas(const Options& o) {
  const int64_t size = o.size;
  smelt::ir::Graph g("matmul");
  auto a = smelt::ir::input(g, "a", smelt::ir::DType::F32, {size, size});
  auto b = smelt::ir::input(g, "b", smelt::ir::DType::F32, {size, size});
  g.add_output(smelt::ir::matmul(a, b));
  CompiledKernel mm = compile_one_kernel(g);
  ProgramBuffers buffers = allocate(mm.program, 2);
  const float* pa = static_cast<const float*>(buffers.pointers[0]);
  const float* pb = static_cast<const float*>(buffers.pointers[1]);
  const float* pc = static_cast<const float*>(buffers.pointers[2]);
  std::vector<float> blas_c(static_cast<size_t>(size * size));
  const int s = static_cast<int>(size);
  auto blas = [&] {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, s, s, s, 1.0f, pa, s, pb, s, 0.0f, blas_c.data(), s);
  };
  const double flops = 2.0 * static_cast<double>(size) * static_cast<double>(size) * static_cast<double>(size);

  std::printf("(b) matmul f32 %lld^3: smelt vs OpenBLAS cblas_sgemm\n", static_cast<long long>(size));
  std::printf("    %-8s %-7s %14s %14s %8s %12s  %s\n", "threads", "chunks", "OpenBLAS GF/s", "smelt GF/s", "ratio",
              "max rel err", "target >= 0.50");
  // Each call packs its own B: 2 threads are measured cut both ways.
  const std::pair<int, int> runs[] = {{1, 1}, {2, 1}, {2, 4}};
  for (auto [threads, chunks_per_thread] : runs) {
    openblas_set_num_threads(threads);
    const auto [t_blas, t_smelt] = best_seconds(o.reps, blas, [&] {
      split(mm.units, threads, [&](int64_t begin, int64_t end) { mm.fn(buffers.pointers.data(), begin, end); },
            chunks_per_thread);
    });
    double max_error = 0;
    for (size_t i = 0; i < blas_c.size(); ++i)
      max_error = std::max(max_error, std::fabs(double(pc[i]) - blas_c[i]) / std::max(1.0, std::fabs(double(blas_c[i]))));
    const double blas_gf = flops / t_blas / 1e9, smelt_gf = flops / t_smelt / 1e9;
    const double ratio = smelt_gf / blas_gf;
    std::printf("    %-8d %-7d %14.1f %14.1f %8.3f %12.2e  %s\n", threads, threads * chunks_per_thread, blas_gf,
                smelt_gf, ratio, max_error, ratio >= 0.5 ? "met" : "NOT met");
    if (max_error > 1e-3) throw std::runtime_error("matmul: smelt and OpenBLAS disagree");
  }
}

int64_t parse_count(const char* flag, const char* text) {
  char* end = nullptr;
  const long long v = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0' || v <= 0) throw std::invalid_argument(std::string(flag) + ": expected a positive integer, got '" + text + "'");
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (i + 1 >= argc) throw std::invalid_argument("usage: host_speed [--reps N] [--elements N] [--size N]");
      if (arg == "--reps") o.reps = static_cast<int>(parse_count("--reps", argv[++i]));
      else if (arg == "--elements") o.elements = parse_count("--elements", argv[++i]);
      else if (arg == "--size") o.size = parse_count("--size", argv[++i]);
      else throw std::invalid_argument("unknown option " + arg + "; usage: host_speed [--reps N] [--elements N] [--size N]");
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "host_speed: %s\n", e.what());
    return 2;
  }
  try {
    std::printf("host_speed: %u hardware threads, best of %d alternating runs, load average %s\n",
                std::thread::hardware_concurrency(), o.reps, load_average().c_str());
    stream_vs_chain(o);
    sgemm_vs_openblas(o);
    std::printf("load average after: %s\n", load_average().c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "host_speed: %s\n", e.what());
    return 1;
  }
  return 0;
}
