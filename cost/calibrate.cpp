#include "cost/calibrate.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <random>
#include <thread>

#include "cost/predict.h"
#include "ir/builder.h"
#include "kernel/gpu_plan.h"
#include "kernel/host_plan.h"
#include "runtime/executable.h"
#include "runtime/host_device.h"
#include "runtime/thread_pool.h"

namespace smelt::cost {
namespace {

using ir::DType;

constexpr const char* kUnaryOps[] = {"neg", "exp", "exp2", "log", "log2", "sin", "cos", "tanh", "sqrt",
                                     "rsqrt", "recip", "abs", "relu", "sigmoid", "gelu", "erf"};
constexpr const char* kBinaryOps[] = {"add", "sub", "mul", "div", "max", "min", "pow"};

ir::Tensor apply_named(const std::string& op, ir::Tensor a, ir::Tensor b) {
  const std::optional<ir::Op> parsed = ir::parse_op(op);
  if (!parsed) throw std::logic_error("calibrate: unknown op " + op);
  if (ir::op_info(*parsed).arity == 1) return ir::apply(*parsed, {a});
  return ir::apply(*parsed, {a, b});
}

std::string today() {
  const std::time_t now = std::time(nullptr);
  char buffer[16];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%d", std::gmtime(&now));
  return buffer;
}

// Rows × 1024 columns of f32 holding about `bytes` bytes per operand.
ir::Shape rows_of(double bytes) {
  const int64_t elements = std::max<int64_t>(1024, static_cast<int64_t>(bytes / 4));
  return {std::max<int64_t>(1, elements / 1024), 1024};
}

struct Calibrator {
  const CalibrationOptions& options;
  Calibration result;
  std::vector<std::pair<std::string, std::function<void()>>> steps;
  // A GPU (cuda, hip): every microkernel runs there, at sizes that fill it;
  // null: the host's thread pool.
  std::shared_ptr<runtime::Device> gpu = nullptr;

  // One fused kernel computing the graph's outputs; one kernel per op.
  kernel::KernelProgram fused(const ir::Graph& g) const { return options.kernelizer.fused(g); }
  kernel::KernelProgram unmerged(const ir::Graph& g) const { return options.kernelizer.unmerged(g); }

  // GPU sizes times options.gpu_size_scale (tests run the GPU steps on the host, smaller).
  double scaled(double x) const { return std::max(1.0, std::round(x * options.gpu_size_scale)); }
  int64_t scaled(int64_t x) const { return static_cast<int64_t>(scaled(static_cast<double>(x))); }
  std::vector<double> scaled(std::vector<double> xs) const {
    for (double& x : xs) x = scaled(x);
    return xs;
  }

  Timing time(const kernel::KernelProgram& program, unsigned threads) {
    const double budget = options.quick ? 0.08 : 0.25;
    if (gpu) return time_programs({&program}, gpu, budget)[0];
    return time_host_program(program, threads, budget);
  }
  // On given inputs (a gather's indices spread over its table).
  Timing time(const kernel::KernelProgram& program, unsigned threads, std::vector<ir::HostTensor> inputs) {
    const double budget = options.quick ? 0.08 : 0.25;
    const std::vector<std::vector<ir::HostTensor>> given{std::move(inputs)};
    std::shared_ptr<runtime::Device> device = gpu;
    if (!device) device = std::make_shared<runtime::HostDevice>(threads);
    return time_programs({&program}, device, budget, &given)[0];
  }
  // The time a measurement's work took: on a GPU less the launch and the
  // program's own cost (fixed_costs, measured first), which the model charges
  // apart and which are most of a small kernel there (about 6 of a 4 MB copy's 7 us on an H200).
  double work_us(const Timing& t, const ThreadRates& r) const {
    if (!gpu) return t.median_us;
    return std::max(0.05 * t.median_us, t.median_us - r.kernel_us - r.program_us);
  }

  void record(const std::string& what, unsigned threads, const Timing& t, double value, const std::string& unit) {
    result.samples.push_back({what, threads, t, value, unit});
  }

  // --- fixed costs
  void fixed_costs(ThreadRates& r) {
    // 64 tiny kernels run inline: the per-kernel cost of the runtime loop and the call.
    ir::Graph g("inline_kernels");
    ir::Tensor x = ir::input(g, "x", DType::F32, {16});
    for (int i = 0; i < 64; ++i) x = ir::neg(x);
    g.add_output(x);
    const kernel::KernelProgram program =
        unmerged(g);
    const Timing t = time(program, r.threads);
    r.kernel_us = std::max(0.005, t.median_us / 64);
    record("kernel (inline, 64 kernels of 16 elements)", r.threads, t, r.kernel_us, "us");
    // One such kernel alone: what remains is the program's own fixed cost.
    ir::Graph one("one_kernel");
    one.add_output(ir::neg(ir::input(one, "x", DType::F32, {16})));
    const Timing t1 = time(fused(one), r.threads);
    r.program_us = std::max(0.0, t1.median_us - r.kernel_us);
    record("program (one kernel of 16 elements)", r.threads, t1, r.program_us, "us");
    if (r.threads == 1 || gpu) {  // a GPU's launches have no pool to dispatch to
      r.dispatch_us = 0;
      return;
    }
    // The pool handing a chunk of about 5 µs of work to every thread and
    // waiting for all of them, less the 5 µs: wake-up, hand-off, join.
    runtime::ThreadPool pool(r.threads);
    auto spin = [](int64_t iterations) {
      volatile double v = 1;
      for (int64_t i = 0; i < iterations; ++i) v = v * 0.999999 + 1e-9;
    };
    const Timing alone = measure_until_stable([&](int reps) {
      std::vector<double> seconds;
      for (int i = 0; i < reps; ++i) {
        const auto start = std::chrono::steady_clock::now();
        spin(1000);
        seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      }
      return seconds;
    });
    const int64_t iterations = static_cast<int64_t>(1000 * 5.0 / std::max(1e-3, alone.median_us));
    const Timing d = measure_until_stable([&](int reps) {
      std::vector<double> seconds;
      for (int i = 0; i < reps; ++i) {
        const auto start = std::chrono::steady_clock::now();
        pool.parallel_for(r.threads, 1, [&](int64_t begin, int64_t end) { spin((end - begin) * iterations); });
        seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      }
      return seconds;
    });
    const double work_us = static_cast<double>(iterations) * alone.median_us / 1000;
    r.dispatch_us = std::max(0.0, d.median_us - work_us);
    record("dispatch (parallel_for over every thread)", r.threads, d, r.dispatch_us, "us");
  }

  // --- memory: per working-set size, reads and writes from two kernels
  std::vector<double> working_sets(unsigned threads) const {
    // A GPU: from sets that keep every thread busy (smaller kernels are the
    // fill curve's) through its L2 (50 MB on an H100) to device memory.
    if (gpu) return scaled(options.quick ? std::vector<double>{4e6, 32e6, 256e6}
                                         : std::vector<double>{4e6, 16e6, 48e6, 128e6, 512e6});
    std::vector<double> sizes = options.quick ? std::vector<double>{64e3, 1e6, 16e6, 128e6}
                                              : std::vector<double>{32e3, 128e3, 512e3, 2e6, 8e6, 32e6, 128e6};
    // A kernel is split only with enough work: smaller sets run inline.
    if (threads > 1) sizes.erase(std::remove_if(sizes.begin(), sizes.end(), [](double b) { return b < 500e3; }), sizes.end());
    return sizes;
  }

  void memory(ThreadRates& r) {
    for (double ws : working_sets(r.threads)) {
      // copy: 1 read + 1 write per element; read4: 4 reads + 1 write.
      ir::Graph copy("copy");
      const ir::Shape s1 = rows_of(ws / 2);
      copy.add_output(ir::neg(ir::input(copy, "x", DType::F32, s1)));
      const double n1 = static_cast<double>(ir::numel(s1));
      const Timing t1 = time(fused(copy), r.threads);
      ir::Graph read4("read4");
      const ir::Shape s4 = rows_of(ws / 5);
      ir::Tensor sum = ir::input(read4, "a", DType::F32, s4);
      for (const char* name : {"b", "c", "d"}) sum = ir::add(sum, ir::input(read4, name, DType::F32, s4));
      read4.add_output(sum);
      const double n4 = static_cast<double>(ir::numel(s4));
      const Timing t4 = time(fused(read4), r.threads);
      const double per_copy = work_us(t1, r) * 1e3 / (4 * n1);  // ns per byte of (read + write)
      const double per_read4 = work_us(t4, r) * 1e3 / (4 * n4);  // ns per byte of (4 reads + write)
      double read = (per_read4 - per_copy) / 3;
      read = std::clamp(read, 0.1 * per_copy, 0.9 * per_copy);
      const double write = per_copy - read;
      const double bytes = 8 * n1;
      r.read[static_cast<int>(AccessKind::kContiguous)].push_back({bytes, read});
      r.write.push_back({bytes, write});
      record("read contiguous (copy + 4-input sum) " + std::to_string(static_cast<long>(bytes)) + " B", r.threads, t4, read,
             "ns/B");
      record("write (copy) " + std::to_string(static_cast<long>(bytes)) + " B", r.threads, t1, write, "ns/B");

      // The other access kinds: the read of one permuted / reshaped / padded /
      // broadcast operand, less the write, per byte read.
      auto other = [&](AccessKind kind, const ir::Graph& g, double bytes_read, double bytes_written) {
        const Timing t = time(fused(g), r.threads);
        double v = (work_us(t, r) * 1e3 - bytes_written * write) / bytes_read;
        v = std::clamp(v, 0.2 * read, 200 * read);
        r.read[static_cast<int>(kind)].push_back({bytes, v});
        record(std::string("read ") + access_kind_name(kind) + " " + std::to_string(static_cast<long>(bytes)) + " B",
               r.threads, t, v, "ns/B");
      };
      const int64_t side = std::max<int64_t>(64, static_cast<int64_t>(std::sqrt(n1)) / 16 * 16);
      {
        ir::Graph g("strided");
        g.add_output(ir::neg(ir::permute(ir::input(g, "x", DType::F32, {side, side}), {1, 0})));
        other(AccessKind::kStrided, g, 4.0 * side * side, 4.0 * side * side);
      }
      {
        // A rank-1 result whose index into x is a floor-div / mod of its variable.
        ir::Graph g("gather");
        const int64_t cols = 48;
        const int64_t rows = std::max<int64_t>(1, static_cast<int64_t>(n1) / cols);
        ir::Tensor x = ir::input(g, "x", DType::F32, {rows, cols});
        g.add_output(ir::neg(ir::reshape(ir::permute(x, {1, 0}), {rows * cols})));
        other(AccessKind::kGather, g, 4.0 * rows * cols, 4.0 * rows * cols);
      }
      {
        // An indirect read (a gather along the row, kernel.h indirect
        // variables): x[i[k]] at positions spread uniformly over x, less the
        // write and the indices' own read in order, per byte of x read.
        ir::Graph g("indirect");
        const int64_t n = std::max<int64_t>(1024, static_cast<int64_t>(n1) / 2);
        ir::Tensor x = ir::input(g, "x", DType::F32, {n});
        ir::Tensor at = ir::input(g, "at", DType::I64, {n});
        g.add_output(ir::neg(ir::gather(x, at, 0)));
        const kernel::KernelProgram program = fused(g);
        std::vector<ir::HostTensor> inputs = timing_inputs(program);
        std::mt19937_64 rng(7);
        std::uniform_int_distribution<int64_t> anywhere(0, n - 1);
        for (int64_t& i : inputs.at(1).ints) i = anywhere(rng);
        const Timing t = time(program, r.threads, std::move(inputs));
        const double elements = static_cast<double>(n);
        double v = (work_us(t, r) * 1e3 - 4 * elements * write - 8 * elements * read) / (4 * elements);
        v = std::clamp(v, 0.2 * read, 200 * read);
        r.read[static_cast<int>(AccessKind::kIndirect)].push_back({bytes, v});
        record("read indirect " + std::to_string(static_cast<long>(bytes)) + " B", r.threads, t, v, "ns/B");
      }
      {
        ir::Graph g("masked");
        const ir::Shape s = rows_of(ws / 2);
        g.add_output(ir::neg(ir::pad(ir::input(g, "x", DType::F32, s), {0, 16}, {0, 16}, 0)));
        other(AccessKind::kMasked, g, 4.0 * static_cast<double>(ir::numel(s)),
              4.0 * static_cast<double>(s[0] * (s[1] + 32)));
      }
      {
        ir::Graph g("broadcast");
        const ir::Shape s = rows_of(ws / 2);
        ir::Tensor column = ir::input(g, "x", DType::F32, {s[0], 1});
        ir::Tensor y = ir::input(g, "y", DType::F32, s);
        g.add_output(ir::add(y, ir::broadcast(column, s)));
        const Timing t = time(fused(g), r.threads);
        // What remains after the contiguous read of y and the write, per byte of the column.
        const double n = static_cast<double>(ir::numel(s));
        double v = (work_us(t, r) * 1e3 - 4 * n * (read + write)) / (4.0 * static_cast<double>(s[0]));
        v = std::clamp(v, 0.2 * read, 20 * read);
        r.read[static_cast<int>(AccessKind::kBroadcast)].push_back({bytes, v});
        record("read broadcast " + std::to_string(static_cast<long>(bytes)) + " B", r.threads, t, v, "ns/B");
      }
    }
    // A padded bf16 read in cache, less the write: per element.
    {
      ir::Graph g("masked_narrow");
      const int64_t rows = gpu ? scaled(int64_t{16384}) : r.threads > 1 ? 256 : 128;
      g.add_output(ir::neg(ir::pad(ir::input(g, "x", DType::BF16, {rows, 240}), {0, 8}, {0, 8}, 0)));
      const Timing t = time(fused(g), r.threads);
      const double out = static_cast<double>(rows * 256), in = static_cast<double>(rows * 240);
      r.read_masked_narrow_ns =
          std::max(0.0, (work_us(t, r) * 1e3 - out * 4 * r.write.front().ns) / in);
      record("read masked bf16", r.threads, t, r.read_masked_narrow_ns, "ns/element");
    }
    // Power-of-two strides: a transpose of 512 KB (a GPU: 32 MB) whose reads step 512 B … 8 KB.
    const int64_t elements = gpu ? std::max<int64_t>(2048, scaled(int64_t{8} << 20)) : 131072;
    // ns per byte read of a transpose of `count` f32 whose reads step `cols` · 4 bytes.
    auto aliasing = [&](int64_t count, int64_t cols) {
      ir::Graph g("aliasing");
      g.add_output(ir::neg(ir::permute(ir::input(g, "x", DType::F32, {count / cols, cols}), {1, 0})));
      const Timing t = time(fused(g), r.threads);
      const double bytes = 4.0 * static_cast<double>(count);
      const double write = interpolate(r.write, 2 * bytes);
      const double v = std::max(gpu ? 1e-6 : 0.001, (work_us(t, r) * 1e3 - bytes * write) / bytes);
      record("read strided by " + std::to_string(4 * cols) + " B over " + std::to_string(count / 256) + " KB", r.threads,
             t, v, "ns/B");
      return v;
    };
    for (int64_t cols : {128, 256, 512, 1024, 2048}) r.read_aliasing_stride.push_back({4.0 * static_cast<double>(cols), aliasing(elements, cols)});
    // The same transposes' cost grows with their size (the host: 2 KB steps
    // over 128 KB, 512 KB and 2 MB measured 0.11, 0.23 and 0.78 ns/B, one
    // thread, 2026-11-29): the factor by working set (read and written) at a
    // 2 KB step, 1 at the 512 KB above.
    if (!gpu) {
      const double reference = interpolate(r.read_aliasing_stride, 2048);
      for (int64_t count : {int64_t{32768}, elements, int64_t{524288}})
        r.read_aliasing_size_factor.push_back(
            {8.0 * static_cast<double>(count), count == elements ? 1.0 : aliasing(count, 512) / reference});
    }
  }

  // --- ops: four independent applications per element, less the same kernel without the op
  void ops(ThreadRates& r) {
    // A GPU: 16 MB, in its L2; the op's cost beside the memory's is small there.
    const ir::Shape s = rows_of(gpu ? scaled(16e6) : r.threads > 1 ? 1e6 : 256e3);
    const double n = static_cast<double>(ir::numel(s));
    const double floor_ns = gpu ? 1e-6 : 0.002;  // the smallest cost an op is given
    const double scales[] = {0.5, 0.7, 0.9, 1.1};
    auto kernel = [&](const std::string& op) {
      ir::Graph g("op_" + op);
      ir::Tensor x = ir::input(g, "x", DType::F32, s);
      ir::Tensor z = ir::input(g, "z", DType::F32, s);
      ir::Tensor sum;
      for (int i = 0; i < 4; ++i) {
        ir::Tensor scaled = ir::mul(x, ir::broadcast(ir::constant(g, scales[i]), s));
        ir::Tensor term = op.empty()            ? scaled
                          : op == "cast_bf16" ? ir::cast(ir::cast(scaled, DType::BF16), DType::F32)
                          : op == "cast_f16"  ? ir::cast(ir::cast(scaled, DType::F16), DType::F32)
                                              : apply_named(op, scaled, z);
        sum = i == 0 ? term : ir::add(sum, term);
      }
      g.add_output(sum);
      return fused(g);
    };
    const Timing base = time(kernel(""), r.threads);
    record("op baseline (4 scaled copies summed)", r.threads, base, base.median_us * 1e3 / n, "ns/element");
    std::vector<std::string> names(std::begin(kUnaryOps), std::end(kUnaryOps));
    names.insert(names.end(), std::begin(kBinaryOps), std::end(kBinaryOps));
    for (const std::string& op : names) {
      const Timing t = time(kernel(op), r.threads);
      const double ns = std::max(floor_ns, (t.median_us - base.median_us) * 1e3 / (4 * n));
      r.op_ns[op] = ns;
      record("op " + op, r.threads, t, ns, "ns/element");
    }
    // Chains of d math calls feeding each other in one loop, against d alone:
    // rows longer than the host computes in row stages (kernel::host_row_stages),
    // the loops the factor prices.
    const int longest = options.quick ? 4 : 6;
    const int64_t unstaged = 2 * kernel::kHostRowStageMaxColumns;
    const ir::Shape chain_shape = {std::max<int64_t>(1, ir::numel(s) / unstaged), unstaged};
    double single = 0;
    for (int d = 1; d <= longest; ++d) {
      ir::Graph g("call_chain");
      ir::Tensor y = ir::input(g, "x", DType::F32, chain_shape);
      for (int i = 0; i < d; ++i) y = ir::sin(y);
      g.add_output(y);
      const Timing t = time(fused(g), r.threads);
      if (d == 1) single = t.median_us;
      const double factor = std::max(1.0, t.median_us / (d * single));
      r.call_chain_factor.push_back(d == 1 ? 1.0 : factor);
      record("math call chain of " + std::to_string(d), r.threads, t, r.call_chain_factor.back(), "x");
    }
    // Comparisons, select and casts between f32 and integers compile to one
    // vector instruction each, as an add does; a cast from f16 / bf16 is a shift.
    for (const char* cheap : {"lt", "le", "eq", "where", "cast", "cast_f32", "cast_i32", "cast_i64", "cast_bool", "default"})
      r.op_ns[cheap] = r.op_ns["add"];
    // A cast to f16 / bf16 rounds (and so does every op computed in them):
    // timed as to-and-back, less the way back.
    for (const char* rounding : {"cast_bf16", "cast_f16"}) {
      const Timing t = time(kernel(rounding), r.threads);
      r.op_ns[rounding] = std::max(floor_ns, (t.median_us - base.median_us) * 1e3 / (4 * n) - r.op_ns["add"]);
      record(std::string("op ") + rounding, r.threads, t, r.op_ns[rounding], "ns/element");
    }
  }

  // Per-row costs: the same number of elements in short rows and in long rows.
  void rows(ThreadRates& r) {
    if (gpu) return gpu_rows(r);
    const int64_t n = r.threads > 1 ? 96 * 1024 : 48 * 1024;
    enum Body { kCopy, kSum, kMax };
    auto shaped = [&](int64_t cols, Body body) {
      ir::Graph g("rows");
      ir::Tensor x = ir::input(g, "x", DType::F32, {n / cols, cols});
      g.add_output(body == kSum ? ir::reduce_sum(x, {1}) : body == kMax ? ir::reduce_max(x, {1}) : ir::neg(x));
      return time(fused(g), r.threads);
    };
    const Timing long_rows = shaped(1024, kCopy), short_rows = shaped(24, kCopy);
    r.row_ns = std::max(0.0, (short_rows.median_us - long_rows.median_us) * 1e3 / (n / 24.0 - n / 1024.0));
    record("row (copy in rows of 24 vs 1024)", r.threads, short_rows, r.row_ns, "ns/row");
    // Sums along rows of several lengths: short rows do not vectorize.
    const std::vector<int64_t> lengths = options.quick ? std::vector<int64_t>{16, 64, 128, 1024}
                                                       : std::vector<int64_t>{8, 16, 32, 64, 100, 128, 256, 1024, 4096};
    for (Body body : {kSum, kMax})
      for (int64_t length : lengths) {
        const Timing t = shaped(length, body);
        const double per_element = std::max(0.002, t.median_us * 1e3 / static_cast<double>(n / length * length));
        (body == kSum ? r.reduce_inner : r.reduce_max_inner).push_back({static_cast<double>(length), per_element});
        record(std::string(body == kSum ? "sum" : "max") + " of rows of " + std::to_string(length), r.threads, t,
               per_element, "ns/element");
      }
  }

  // A GPU reduces a row per block (kernel/gpu_plan.h), so rows of every length
  // are timed over 16 MB; what the reads cost (the bandwidth step's curve) is
  // taken out, the rest is the reduction's. It has no per-row loop cost.
  void gpu_rows(ThreadRates& r) {
    r.row_ns = 0;
    // At least 1024 rows (blocks), so the device is full: the fill step measures fewer.
    const int64_t n = std::max<int64_t>(262144, scaled(int64_t{4} << 20));
    const int64_t least_rows = std::max<int64_t>(16, scaled(int64_t{1024}));
    const std::vector<int64_t> lengths = options.quick ? std::vector<int64_t>{16, 64, 256, 1024, 8192}
                                                       : std::vector<int64_t>{8, 16, 32, 64, 128, 256, 1024, 4096, 16384};
    for (bool max : {false, true})
      for (int64_t length : lengths) {
        const int64_t rows = std::max(least_rows, n / length);
        const double bytes = 4.0 * static_cast<double>(rows * length);
        const double read = interpolate(r.read[static_cast<int>(AccessKind::kContiguous)], bytes);
        ir::Graph g("rows");
        ir::Tensor x = ir::input(g, "x", DType::F32, {rows, length});
        g.add_output(max ? ir::reduce_max(x, {1}) : ir::reduce_sum(x, {1}));
        const Timing t = time(fused(g), r.threads);
        const double rest_ns = work_us(t, r) * 1e3 - bytes * read;
        const double per_element = std::max(1e-6, rest_ns / static_cast<double>(rows * length));
        (max ? r.reduce_max_inner : r.reduce_inner).push_back({static_cast<double>(length), per_element});
        record(std::string(max ? "max" : "sum") + " of rows of " + std::to_string(length), r.threads, t, per_element,
               "ns/element");
      }
  }

  // A GPU kernel that keeps few threads busy is bound by each thread's
  // latency: a block reduction of rows of 256K elements over 1, 4, 16, ...
  // rows (one block of 256 threads each) against what the device's rates
  // predict for the same work: the share of the device it got.
  void fill(ThreadRates& r) {
    // Rows of 256K elements while the whole stays under 256 MB, then shorter
    // rows (still 64 steps per thread), up to threads enough to fill any GPU.
    const int64_t longest = std::max<int64_t>(4096, scaled(int64_t{262144}));
    const int64_t most = std::max<int64_t>(longest, scaled(int64_t{1} << 26));
    const std::vector<int64_t> row_counts = options.quick ? std::vector<int64_t>{1, 8, 64, 512, 4096}
                                                          : std::vector<int64_t>{1, 4, 16, 64, 256, 1024, 4096, 16384};
    double best = 1e-5;
    for (int64_t rows : row_counts) {
      const int64_t length = std::max<int64_t>(256, std::min(longest, most / rows));
      ir::Graph g("fill");
      g.add_output(ir::reduce_sum(ir::input(g, "x", DType::F32, {rows, length}), {1}));
      const kernel::KernelProgram program = fused(g);
      const Timing t = time(program, r.threads);
      const double elements = static_cast<double>(rows * length);
      const double memory = 4 * elements * interpolate(r.read[static_cast<int>(AccessKind::kContiguous)], 4 * elements);
      const double compute = elements * interpolate(r.reduce_inner, static_cast<double>(length));
      const double work_ns = std::max(memory, compute);
      const double taken_ns = std::max(1e-3, work_us(t, r) * 1e3);
      // More busy threads never get a smaller share (a dip is noise).
      best = std::clamp(work_ns / taken_ns, best, 1.0);
      const kernel::Kernel& k = program.kernels.at(0);
      const double busy = kernel::gpu_busy_threads(k, kernel::plan_gpu_kernel(k, gpu_matrix_units(result.profile)));
      if (!r.fill.empty() && !(busy > r.fill.back().x)) continue;
      r.fill.push_back({busy, best});
      record("fill: " + std::to_string(rows) + " rows of " + std::to_string(length) + " summed", r.threads, t, best,
             "share");
    }
  }

  void reductions(ThreadRates& r) {
    if (gpu) {
      // Columns summed down 4096 rows: each block strides across rows (the
      // strided read the bandwidth step measured is taken out).
      const int64_t rows = std::max<int64_t>(64, scaled(int64_t{4096})), cols = 1024;
      const double bytes = 4.0 * static_cast<double>(rows * cols);
      ir::Graph g("reduce_outer");
      g.add_output(ir::reduce_sum(ir::input(g, "x", DType::F32, {rows, cols}), {0}));
      const Timing t = time(fused(g), r.threads);
      const double rest_ns = work_us(t, r) * 1e3 - bytes * interpolate(r.read[static_cast<int>(AccessKind::kStrided)], bytes);
      r.reduce_outer_ns = std::max(1e-6, rest_ns / static_cast<double>(rows * cols));
      record("reduce outer axis", r.threads, t, r.reduce_outer_ns, "ns/element");
      return;
    }
    // In cache: the adds, not the memory (the loads are charged as reads).
    // Rows of 250, not 256: a power-of-two stride of 512 B and more makes the
    // column's reads alias in the cache (read_aliasing_stride charges that
    // per load); at 1 KB it took 0.76 ns an element against 0.12 at 1000 B
    // (2026-11-29, one thread), which priced every sum down columns 6x high.
    const double bytes = r.threads > 1 ? 256e3 : 128e3;
    {
      ir::Graph g("reduce_outer");
      const int64_t cols = 250;
      const int64_t rows = static_cast<int64_t>(bytes / 4) / cols;
      g.add_output(ir::reduce_sum(ir::input(g, "x", DType::F32, {rows, cols}), {0}));
      const Timing t = time(fused(g), r.threads);
      r.reduce_outer_ns = std::max(0.002, t.median_us * 1e3 / static_cast<double>(rows * cols));
      record("reduce outer axis", r.threads, t, r.reduce_outer_ns, "ns/element");
    }
  }

  // A prologue on B (a concat of four weights along N: masked loads and
  // selects), against the same gemm without: per prologue node evaluation.
  void prologue(ThreadRates& r) {
    const int64_t m = gpu ? 1024 : 32, k = gpu ? 1024 : 256, n = gpu ? 384 : 96;  // a GPU: shapes that fill it
    auto gemm = [&](bool with_prologue) {
      ir::Graph g("prologue");
      ir::Tensor x = ir::input(g, "x", DType::F32, {m, k});
      ir::Tensor w;
      if (with_prologue) {
        std::vector<ir::Tensor> parts;
        for (int i = 0; i < 4; ++i) parts.push_back(ir::input(g, "w" + std::to_string(i), DType::F32, {k, n}));
        w = ir::concat(parts, 1);
      } else {
        w = ir::input(g, "w", DType::F32, {k, 4 * n});
      }
      g.add_output(ir::matmul(x, w));
      return fused(g);
    };
    const kernel::KernelProgram with = gemm(true), without = gemm(false);
    const Timing t_with = time(with, r.threads), t_without = time(without, r.threads);
    const double evaluations = prologue_evaluations(with.kernels.at(0));
    r.prologue_ns = evaluations > 0 ? std::max(0.0, (t_with.median_us - t_without.median_us) * 1e3 / evaluations) : 0;
    record("matmul prologue (B = concat of 4)", r.threads, t_with, r.prologue_ns, "ns/evaluation");
  }

  // Convolutions. The host: 3x3 convolutions (stride 1, padded) timed whole,
  // from 32 maps over 56x56 to 512 over 7x7 (a ResNet's stages and their
  // neighbours), as rates of their product's shape (ThreadRates::conv): a
  // rate of one product shape and a window cost of one convolution priced
  // ResNet-50's 3x3 convolutions over 56x56 at 1.2-2.6x their time (the
  // packing's share falls with more maps and longer lines; `matmul`'s rates
  // at such shapes stream B from memory, the windows never do; AMD EPYC,
  // 2026-12-01). A GPU: 64 maps over 56x56 (a ResNet's first stage, enough
  // to fill it) against the matmul of its shape over an explicit im2col
  // input: the difference per window element is what packing the windows
  // costs (window_pack_ns).
  void windows(ThreadRates& r) {
    auto conv_of = [](int64_t maps, int64_t side) {
      ir::Graph g("windows");
      ir::Tensor x = ir::input(g, "x", DType::F32, {1, maps, side, side});
      ir::Tensor w = ir::input(g, "w", DType::F32, {maps, maps, 3, 3});
      g.add_output(ir::conv(x, w, {{1, 1}, {1, 1}, {1, 1}, {1, 1}, 1}));
      return g;
    };
    if (gpu) {
      const int64_t maps = 64, side = 56;
      ir::Graph gemm_graph("windows_as_gemm");
      gemm_graph.add_output(ir::matmul(ir::input(gemm_graph, "w", DType::F32, {maps, maps * 9}),
                                       ir::input(gemm_graph, "cols", DType::F32, {maps * 9, side * side})));
      const kernel::KernelProgram conv = fused(conv_of(maps, side)), gemm = fused(gemm_graph);
      const Timing t_conv = time(conv, r.threads), t_gemm = time(gemm, r.threads);
      const double elements = window_elements(conv.kernels.at(0));
      r.window_pack_ns = elements > 0 ? std::max(0.0, (t_conv.median_us - t_gemm.median_us) * 1e3 / elements) : 0;
      record("convolution windows (3x3, 64 maps, 56x56)", r.threads, t_conv, r.window_pack_ns, "ns/element");
      return;
    }
    r.window_pack_ns = 0;  // held by the rates
    r.conv.clear();
    const std::vector<int64_t> all_maps = options.quick ? std::vector<int64_t>{32, 128, 512} : std::vector<int64_t>{32, 64, 128, 256, 512};
    const std::vector<int64_t> sides = options.quick ? std::vector<int64_t>{7, 28, 56} : std::vector<int64_t>{7, 14, 28, 56};
    // All shapes timed in interleaved rounds (time_host_programs): timed one
    // after another, one 0.25 s sample each, 256 maps over 28x28 at two
    // threads read 87 GFLOP/s in one calibration and 172 in the next (Intel
    // Xeon, 2026-12-02) as this VM's speed drifted between minutes.
    std::vector<kernel::KernelProgram> programs;
    std::vector<std::pair<int64_t, int64_t>> shapes;
    for (int64_t maps : all_maps)
      for (int64_t side : sides) {
        const double flops = 2.0 * static_cast<double>(maps) * static_cast<double>(side * side) * static_cast<double>(maps * 9);
        if (flops > 1e9) continue;  // 128 maps over 56x56 (0.92 GFLOP) is the largest
        programs.push_back(fused(conv_of(maps, side)));
        shapes.emplace_back(maps, side);
      }
    // A first layer: 3 maps of 224x224 at stride 2 into 32 (3x3, MobileNetV2's
    // and EfficientNet-B0's stem: K = 27) and into 64 (7x7, ResNet's: K = 147).
    // Its product's K is far below the grid's 288-4,608, and its windows are
    // most of its time: priced from the grid it ran 3.1x its price (MobileNetV2,
    // AMD EPYC Zen 4, 2026-12-02).
    struct Stem {
      int64_t maps, window;
    };
    const std::vector<Stem> stems{{32, 3}, {64, 7}};
    for (const Stem& stem : stems) {
      ir::Graph g("stem");
      ir::Tensor x = ir::input(g, "x", DType::F32, {1, 3, 224, 224});
      ir::Tensor w = ir::input(g, "w", DType::F32, {stem.maps, 3, stem.window, stem.window});
      const int64_t pad = stem.window / 2;
      g.add_output(ir::conv(x, w, {{2, 2}, {1, 1}, {pad, pad}, {pad, pad}, 1}));
      programs.push_back(fused(g));
    }
    std::vector<const kernel::KernelProgram*> timed;
    for (const kernel::KernelProgram& program : programs) timed.push_back(&program);
    const std::vector<Timing> timings = time_host_programs(timed, r.threads, options.quick ? 0.08 : 0.25);
    const double fixed = r.kernel_us + (r.threads > 1 ? r.dispatch_us : 0);
    auto add_point = [&](long m, long n, long k, const Timing& t, const std::string& what) {
      const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
      MatmulPoint p{1, m, n, k, 0};
      p.gflops = flops / (std::max(0.2 * t.median_us, t.median_us - fixed) * 1e3);
      r.conv.push_back(p);
      record(what, r.threads, t, p.gflops, "GFLOP/s");
    };
    for (size_t i = 0; i < shapes.size(); ++i) {
      const auto [maps, side] = shapes[i];
      add_point(maps, side * side, maps * 9, timings[i],
                "convolution 3x3, " + std::to_string(maps) + " maps, " + std::to_string(side) + "x" + std::to_string(side));
    }
    for (size_t i = 0; i < stems.size(); ++i) {
      const std::string window = std::to_string(stems[i].window);
      add_point(stems[i].maps, 112 * 112, 3 * stems[i].window * stems[i].window, timings[shapes.size() + i],
                "convolution " + window + "x" + window + ", stride 2, 3 -> " + std::to_string(stems[i].maps) +
                    " maps, 224x224");
    }
  }

  // Depthwise convolutions (3x3, 5x5 and 7x7 over 96 maps of 28x28, padded,
  // EfficientNet's): no tiled kernel takes them, so they run as plain
  // reduction loops; the time per reduction step by the steps per output.
  void loop_contraction(ThreadRates& r) {
    const int64_t maps = gpu ? 256 : 96, side = gpu ? 56 : 28;
    r.loop_contraction.clear();
    for (int64_t window : {3, 5, 7}) {
      ir::Graph g("depthwise");
      ir::Tensor x = ir::input(g, "x", DType::F32, {1, maps, side, side});
      ir::Tensor w = ir::input(g, "w", DType::F32, {maps, 1, window, window});
      const int64_t pad = window / 2;
      g.add_output(ir::conv(x, w, {{1, 1}, {1, 1}, {pad, pad}, {pad, pad}, maps}));
      const kernel::KernelProgram program = fused(g);
      const Timing t = time(program, r.threads);
      const double loop_steps = static_cast<double>(maps * side * side * window * window);
      const double ns = std::max(1e-3, t.median_us * 1e3 / loop_steps);
      r.loop_contraction.push_back({static_cast<double>(window * window), ns});
      record("contraction as a loop (depthwise " + std::to_string(window) + "x" + std::to_string(window) +
                 ", 96 maps, 28x28)",
             r.threads, t, ns, "ns/step");
    }
    // A 3x3 over maps of other widths (about as many outputs: 75,264) against
    // 28, alone and with a SiLU after it in its rows' epilogue: the step's
    // factor by the width, and the epilogue ops' against their vector rates.
    r.loop_contraction_row_factor.clear();
    r.loop_contraction_strided_row_factor.clear();
    r.loop_epilogue_row_factor.clear();
    if (gpu) return;
    const double at_28 = r.loop_contraction.front().ns;
    const double silu_ns = op_ns(r, "sigmoid") + op_ns(r, "mul");
    const std::vector<int64_t> sides = options.quick ? std::vector<int64_t>{7, 28} : std::vector<int64_t>{7, 14, 28, 56};
    for (int64_t s : sides) {
      const int64_t m = std::max<int64_t>(1, maps * side * side / (s * s));
      // Outputs of s x s at either stride (from maps of stride * s).
      auto depthwise = [&](bool silu, int64_t stride = 1) {
        ir::Graph g("depthwise_rows");
        ir::Tensor x = ir::input(g, "x", DType::F32, {1, m, stride * s, stride * s});
        ir::Tensor w = ir::input(g, "w", DType::F32, {m, 1, 3, 3});
        ir::Tensor c = ir::conv(x, w, {{stride, stride}, {1, 1}, {1, 1}, {1, 1}, m});
        g.add_output(silu ? ir::mul(c, ir::sigmoid(c)) : c);
        return time(fused(g), r.threads);
      };
      const std::string what = "depthwise 3x3, " + std::to_string(m) + " maps, " + std::to_string(s) + "x" + std::to_string(s);
      const double outputs = static_cast<double>(m * s * s);
      const Timing alone = depthwise(false);
      const double ns = alone.median_us * 1e3 / (outputs * 9);
      r.loop_contraction_row_factor.push_back({static_cast<double>(s), std::max(1e-3, ns / std::max(at_28, 1e-6))});
      record("contraction as a loop (" + what + ", against 28x28)", r.threads, alone,
             r.loop_contraction_row_factor.back().ns, "x");
      const Timing strided = depthwise(false, 2);
      const double strided_ns = strided.median_us * 1e3 / (outputs * 9);
      r.loop_contraction_strided_row_factor.push_back(
          {static_cast<double>(s), std::max(1e-3, strided_ns / std::max(at_28, 1e-6))});
      record("contraction as a loop (" + what + ", stride 2, against 28x28 at stride 1)", r.threads, strided,
             r.loop_contraction_strided_row_factor.back().ns, "x");
      const Timing with_silu = depthwise(true);
      const double epilogue_ns = std::max(0.0, with_silu.median_us - alone.median_us) * 1e3 / outputs;
      r.loop_epilogue_row_factor.push_back({static_cast<double>(s), std::max(1.0, epilogue_ns / std::max(silu_ns, 1e-6))});
      record("its SiLU epilogue (" + what + ", against the ops' vector rates)", r.threads, with_silu,
             r.loop_epilogue_row_factor.back().ns, "x");
    }
  }

  // Two gemms sharing A in one kernel (a contraction group) against the two
  // as separate kernels, at a SwiGLU's shape (64 tokens, 1024 → 2 × 2048):
  // the group's micro-tile has fewer rows and its two B panels compete for
  // the cache. Measured with B as inputs (packed per call) and as constants
  // (packed once, as a model's weights): the per-call packing, the same work
  // grouped or not, hides the difference (1.0x grouped at 1 thread) that
  // constant weights show (0.64x).
  void group(ThreadRates& r) {
    std::vector<double> values1(1024 * 2048), values2(values1.size());
    for (size_t i = 0; i < values1.size(); ++i) {
      values1[i] = static_cast<double>(i % 17) / 17.0 - 0.5;
      values2[i] = static_cast<double>(i % 13) / 13.0 - 0.5;
    }
    auto gemms = [&](bool grouped, bool constant_b) {
      ir::Graph g("group");
      ir::Tensor a = ir::input(g, "a", DType::F32, {gpu ? 512 : 64, 1024});
      ir::Tensor w1 = constant_b ? ir::constant(g, values1, DType::F32, {1024, 2048})
                                 : ir::input(g, "w1", DType::F32, {1024, 2048});
      ir::Tensor w2 = constant_b ? ir::constant(g, values2, DType::F32, {1024, 2048})
                                 : ir::input(g, "w2", DType::F32, {1024, 2048});
      g.add_output(ir::mul(ir::matmul(a, w1), ir::matmul(a, w2)));
      if (grouped) return fused(g);
      return unmerged(g);
    };
    for (bool constant_b : {false, true}) {
      const kernel::KernelProgram grouped = gemms(true, constant_b), separate = gemms(false, constant_b);
      const double budget = options.quick ? 0.15 : 0.4;
      const std::vector<Timing> t = gpu ? time_programs({&grouped, &separate}, gpu, budget)
                                        : time_host_programs({&grouped, &separate}, r.threads, budget);
      const double factor = std::clamp(t[0].median_us / t[1].median_us, 0.5, 2.0);
      (constant_b ? r.group_factor_constant_b : r.group_factor) = factor;
      record(constant_b ? "contraction group of 2 vs separate gemms, constant B" : "contraction group of 2 vs separate gemms",
             r.threads, t[0], factor, "x");
    }
  }

  void matmuls(ThreadRates& r) {
    std::vector<MatmulPoint> shapes;
    std::vector<long> ms = options.quick ? std::vector<long>{8, 128, 512} : std::vector<long>{1, 8, 32, 128, 512};
    std::vector<long> ns = options.quick ? std::vector<long>{256, 2048} : std::vector<long>{64, 256, 1024, 4096};
    std::vector<long> ks = options.quick ? std::vector<long>{256, 2048} : std::vector<long>{64, 256, 1024, 4096};
    double most_flops = 4.3e9;
    if (gpu) {  // 64x64 tiles: from a few tiles to tens of thousands
      // Dense even when quick: a shape of few tiles runs at a fraction of the
      // rate of many (12 tiles of a [64, 768] product: 0.7 TFLOP/s, 15 at 4096^2).
      ms = options.quick ? std::vector<long>{16, 64, 256, 1024, 4096} : std::vector<long>{8, 32, 64, 128, 256, 512, 1024, 4096};
      ns = options.quick ? std::vector<long>{64, 256, 1024, 4096} : std::vector<long>{64, 128, 256, 512, 1024, 2048, 4096};
      ks = options.quick ? std::vector<long>{64, 256, 1024, 4096} : std::vector<long>{64, 256, 1024, 4096};
      most_flops = scaled(1.4e11);
      for (std::vector<long>* sizes : {&ms, &ns, &ks})
        for (long& v : *sizes) v = std::max(16L, static_cast<long>(scaled(static_cast<double>(v))));
    }
    for (long m : ms)
      for (long n : ns)
        for (long k : ks)
          if (2.0 * m * n * k <= most_flops) shapes.push_back({1, m, n, k, 0});
    shapes.push_back({6, 32, 64, 64, 0});
    shapes.push_back({8, 128, 128, 64, 0});
    if (!options.quick || gpu) shapes.push_back({32, 128, 128, 128, 0});
    if (gpu) shapes.push_back({96, 128, 128, 64, 0});  // attention's heads x batch
    for (MatmulPoint p : shapes) {
      ir::Graph g("matmul");
      const ir::Shape a = p.batch > 1 ? ir::Shape{p.batch, p.m, p.k} : ir::Shape{p.m, p.k};
      const ir::Shape b = p.batch > 1 ? ir::Shape{p.batch, p.k, p.n} : ir::Shape{p.k, p.n};
      g.add_output(ir::matmul(ir::input(g, "a", DType::F32, a), ir::input(g, "b", DType::F32, b)));
      const Timing t = time(fused(g), r.threads);
      const double flops = 2.0 * p.batch * p.m * p.n * p.k;
      // The fixed cost is the model's own term: the rate is what remains.
      const double fixed = r.kernel_us + (gpu ? r.program_us : r.threads > 1 ? r.dispatch_us : 0);
      p.gflops = flops / (std::max(0.2 * t.median_us, t.median_us - fixed) * 1e3);
      r.matmul.push_back(p);
      record("matmul " + std::to_string(p.batch) + "x" + std::to_string(p.m) + "x" + std::to_string(p.n) + "x" +
                 std::to_string(p.k),
             r.threads, t, p.gflops, "GFLOP/s");
    }
    if (gpu && result.profile.device == "cuda") tensor_core_matmuls(r, shapes);
  }

  // The same products with B a constant (kernel::b_sides_are_constant), as a
  // model's weights: the tiled kernel packs B once, so a call reads it packed,
  // from memory or the last-level cache, never from a core's L2 as a repeated
  // call to one product would: each point runs R products of distinct weights
  // (R x B >= 128 MiB where R <= 64, one kernel each) and takes their mean
  // (128 x 768 x 3072: 4.46 ms a product over 19 MiB of weights, 4.86 over
  // 132 MiB, as in BERT's 12 layers, 4.87, and 4.85 over 377). One row streams B
  // (decode: 1 x 4096 x 4096 in 3.4 ms, 20 GB/s, where the packed-per-call
  // table said 13.4 ms); 128 rows x 512 x 32000 (a vocabulary's logits) run
  // at 135 GFLOP/s where that table said 68 (this Xeon, 1 thread, 2026-11-29).
  void constant_b_matmuls(ThreadRates& r) {
    const std::vector<long> ms = options.quick ? std::vector<long>{1, 8, 128} : std::vector<long>{1, 8, 32, 128, 512};
    const std::vector<long> ns = options.quick ? std::vector<long>{256, 2048} : std::vector<long>{256, 1024, 4096};
    const std::vector<long> ks = options.quick ? std::vector<long>{256, 2048} : std::vector<long>{256, 1024, 4096};
    const double most_flops = 4.3e9;
    constexpr double kColdBytes = 128.0 * (1 << 20);
    for (long m : ms)
      for (long n : ns)
        for (long k : ks) {
          if (2.0 * m * n * k > most_flops) continue;
          const double b_bytes = 4.0 * static_cast<double>(n) * static_cast<double>(k);
          const int products = static_cast<int>(std::clamp(std::ceil(kColdBytes / b_bytes), 1.0, 64.0));
          ir::Graph g("matmul_constant_b");
          ir::Tensor a = ir::input(g, "a", DType::F32, {m, k});
          for (int i = 0; i < products; ++i) {
            std::vector<double> values(static_cast<size_t>(n * k));  // distinct per product: not one shared constant
            for (size_t j = 0; j < values.size(); ++j)
              values[j] = static_cast<double>((j + 7 * static_cast<size_t>(i)) % 17) / 17.0 - 0.5;
            g.add_output(ir::matmul(a, ir::constant(g, values, DType::F32, {k, n})));
          }
          const kernel::KernelProgram program = unmerged(g);  // fused, the products would share A in one kernel
          const Timing t = time(program, r.threads);
          const double fixed = r.program_us + products * (r.kernel_us + (r.threads > 1 ? r.dispatch_us : 0));
          const double flops = 2.0 * products * m * n * k;
          MatmulPoint p{1, m, n, k, 0};
          p.gflops = flops / (std::max(0.2 * t.median_us, t.median_us - fixed) * 1e3);
          r.matmul_constant_b.push_back(p);
          record("matmul, B constant, " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " (" +
                     std::to_string(products) + (products == 1 ? " product)" : " products)"),
                 r.threads, t, p.gflops, "GFLOP/s");
        }
  }

  // bf16 matmuls on tensor cores (kernel::GpuShape::kTensorCoreMatmul): every
  // other shape of the f32 grid, 128x128 tiles from one to thousands.
  void tensor_core_matmuls(ThreadRates& r, const std::vector<MatmulPoint>& shapes) {
    for (size_t i = 0; i < shapes.size(); i += 2) {
      MatmulPoint p = shapes[i];
      ir::Graph g("matmul_bf16");
      const ir::Shape a = p.batch > 1 ? ir::Shape{p.batch, p.m, p.k} : ir::Shape{p.m, p.k};
      const ir::Shape b = p.batch > 1 ? ir::Shape{p.batch, p.k, p.n} : ir::Shape{p.k, p.n};
      g.add_output(ir::matmul(ir::input(g, "a", DType::BF16, a), ir::input(g, "b", DType::BF16, b)));
      const Timing t = time(fused(g), r.threads);
      const double fixed = r.kernel_us + r.program_us;
      p.gflops = 2.0 * p.batch * p.m * p.n * p.k / (std::max(0.2 * t.median_us, t.median_us - fixed) * 1e3);
      r.tensor_core_matmul.push_back(p);
      record("bf16 tensor-core matmul " + std::to_string(p.batch) + "x" + std::to_string(p.m) + "x" +
                 std::to_string(p.n) + "x" + std::to_string(p.k),
             r.threads, t, p.gflops, "GFLOP/s");
    }
  }

  // A step that fails (a driver error on a GPU lent for minutes) is recorded
  // and the others still run, so one run gives every measurement it can; the
  // caller reports the failures and exits 1.
  Calibration run() {
    for (size_t s = 0; s < steps.size(); ++s) {
      if (options.progress) options.progress(s, steps.size(), steps[s].first);
      try {
        steps[s].second();
      } catch (const std::exception& e) {
        result.failed_steps.push_back(steps[s].first + ": " + e.what());
      }
    }
    if (options.progress) options.progress(steps.size(), steps.size(), "done");
    return std::move(result);
  }

  // The one fitted number: how much memory and compute time overlap, chosen
  // to fit chains of transcendental ops over sizes in and out of cache.
  void fit_overlap() {
    std::vector<std::pair<kernel::KernelProgram, double>> cases;
    const unsigned threads = result.profile.rates.front().threads;
    const std::vector<double> sizes = gpu ? scaled(options.quick ? std::vector<double>{4e6, 256e6} : std::vector<double>{4e6, 32e6, 256e6, 1e9})
                                          : (options.quick ? std::vector<double>{1e6, 64e6} : std::vector<double>{256e3, 2e6, 16e6, 96e6});
    for (double ws : sizes)
      for (int length : {1, 3, 6}) {
        ir::Graph g("mixed");
        ir::Tensor x = ir::input(g, "x", DType::F32, rows_of(ws / 2));
        ir::Tensor y = x;
        for (int i = 0; i < length; ++i) y = ir::mul(ir::sigmoid(y), x);
        g.add_output(y);
        kernel::KernelProgram p = fused(g);
        const double measured = time(p, threads).median_us;
        cases.push_back({std::move(p), measured});
      }
    DeviceProfile trial = result.profile.for_threads(threads);
    double best = 1e300;
    for (int step = 0; step <= 20; ++step) {
      trial.overlap = step / 20.0;
      double error = 0;
      for (const auto& [program, measured] : cases) {
        const double predicted = predict_program_us(program, trial);
        error += std::pow(std::log(predicted / measured), 2);
      }
      if (error < best) {
        best = error;
        result.profile.overlap = trial.overlap;
      }
    }
    result.samples.push_back({"overlap (fitted over " + std::to_string(cases.size()) + " sigmoid chains)", threads, {},
                              result.profile.overlap, ""});
  }
};

}  // namespace

std::vector<unsigned> default_calibration_threads() {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  std::vector<unsigned> threads;
  for (unsigned t = 1; t < cores; t *= 2) threads.push_back(t);
  threads.push_back(cores);
  return threads;
}

std::string cpu_model() { return runtime::cpu_model(); }

std::vector<ir::HostTensor> timing_inputs(const kernel::KernelProgram& program, uint64_t seed) {
  std::vector<const kernel::Buffer*> inputs;
  for (const kernel::Buffer& b : program.buffers)
    if (b.kind == kernel::BufferKind::kInput) inputs.push_back(&b);
  std::sort(inputs.begin(), inputs.end(), [](const kernel::Buffer* a, const kernel::Buffer* b) { return a->io_index < b->io_index; });
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> real(0.5, 1.5);
  std::vector<ir::HostTensor> tensors;
  for (const kernel::Buffer* b : inputs) {
    if (ir::is_float(b->type.dtype)) {
      std::vector<double> values(static_cast<size_t>(ir::numel(b->type.shape)));
      for (double& v : values) v = real(rng);
      tensors.push_back(ir::HostTensor::from_values(b->type, values));
    } else {
      tensors.push_back(ir::random_tensor(b->type, rng));
    }
  }
  return tensors;
}

kernel::KernelProgram single_kernel_program(const kernel::KernelProgram& program, size_t k) {
  kernel::KernelProgram one;
  const kernel::Kernel& kernel = program.kernels.at(k);
  std::vector<int> remap(program.buffers.size(), -1);
  std::vector<bool> written(program.buffers.size(), false);
  for (const kernel::KernelOutput& out : kernel.outputs) written[out.buffer] = true;
  int inputs = 0, outputs = 0;
  auto use = [&](int b) {
    if (remap[b] >= 0) return;
    kernel::Buffer buffer = program.buffers[b];
    if (written[b]) {
      buffer.kind = kernel::BufferKind::kOutput;
      buffer.io_index = outputs++;
    } else if (buffer.kind != kernel::BufferKind::kConstant) {
      buffer.kind = kernel::BufferKind::kInput;
      buffer.io_index = inputs++;
    }
    remap[b] = static_cast<int>(one.buffers.size());
    one.buffers.push_back(std::move(buffer));
  };
  kernel::Kernel copy = kernel;
  for (kernel::KernelExpr& e : copy.exprs)
    if (e.kind == kernel::KernelExpr::Kind::kLoad) {
      use(e.buffer);
      e.buffer = remap[e.buffer];
    }
  for (kernel::KernelOutput& out : copy.outputs) {
    use(out.buffer);
    out.buffer = remap[out.buffer];
    if (out.is_scatter()) {
      use(out.scatter_initial);
      out.scatter_initial = remap[out.scatter_initial];
    }
  }
  one.kernels.push_back(std::move(copy));
  return one;
}

Timing time_host_program(const kernel::KernelProgram& program, unsigned threads, double budget_s) {
  return time_host_programs({&program}, threads, budget_s)[0];
}

std::vector<Timing> time_host_programs(const std::vector<const kernel::KernelProgram*>& programs, unsigned threads,
                                       double budget_s) {
  // One device (one thread pool) for all: no idle pool spins beside the one timed.
  return time_programs(programs, std::make_shared<runtime::HostDevice>(threads), budget_s);
}

std::vector<Timing> time_programs(const std::vector<const kernel::KernelProgram*>& programs,
                                  const std::shared_ptr<runtime::Device>& device, double budget_s,
                                  const std::vector<std::vector<ir::HostTensor>>* given) {
  std::vector<std::unique_ptr<runtime::Executable>> exes;
  std::vector<std::vector<ir::HostTensor>> inputs(programs.size());
  std::vector<RunFn> runs;
  for (size_t i = 0; i < programs.size(); ++i) {
    exes.push_back(std::make_unique<runtime::Executable>(*programs[i], device));
    inputs[i] = given ? given->at(i) : timing_inputs(*programs[i]);
    runs.push_back([&exes, &inputs, i](int reps) { return exes[i]->benchmark(inputs[i], reps); });
  }
  return measure_until_stable(runs, budget_s);
}

static void require_kernelizer(const CalibrationOptions& options) {
  if (!options.kernelizer.fused || !options.kernelizer.unmerged)
    throw std::invalid_argument("calibrate: CalibrationOptions::kernelizer needs both functions");
}

Calibration calibrate_host(const CalibrationOptions& options) {
  require_kernelizer(options);
  Calibrator c{options, {}, {}};
  DeviceProfile& p = c.result.profile;
  p.device = "host";
  p.cpu = cpu_model();
  p.date = today();
  p.overlap = 0.5;
  const std::vector<unsigned> threads = options.threads.empty() ? default_calibration_threads() : options.threads;
  std::string counts;
  for (unsigned t : threads) counts += (counts.empty() ? "" : ", ") + std::to_string(t);
  p.name = "host: measured " + p.date + " by smelt calibrate" + (options.quick ? " --quick" : "") + " on " + p.cpu +
           ", threads " + counts;
  p.rates.resize(threads.size());
  for (size_t i = 0; i < threads.size(); ++i) {
    ThreadRates* r = &p.rates[i];
    r->threads = threads[i];
    const std::string at = " (" + std::to_string(threads[i]) + (threads[i] == 1 ? " thread)" : " threads)");
    c.steps.push_back({"fixed costs" + at, [&c, r] { c.fixed_costs(*r); }});
    c.steps.push_back({"bandwidth" + at, [&c, r] { c.memory(*r); }});
    c.steps.push_back({"elementwise ops" + at, [&c, r] { c.ops(*r); }});
    c.steps.push_back({"reductions" + at, [&c, r] { c.reductions(*r); }});
    c.steps.push_back({"rows" + at, [&c, r] { c.rows(*r); }});
    c.steps.push_back({"matmul shapes" + at, [&c, r] { c.matmuls(*r); }});
    c.steps.push_back({"matmul shapes, B constant" + at, [&c, r] { c.constant_b_matmuls(*r); }});
    c.steps.push_back({"matmul prologue" + at, [&c, r] { c.prologue(*r); }});
    c.steps.push_back({"contraction groups" + at, [&c, r] { c.group(*r); }});
    c.steps.push_back({"convolution windows" + at, [&c, r] { c.windows(*r); }});
    c.steps.push_back({"contraction as a loop" + at, [&c, r] { c.loop_contraction(*r); }});
  }
  c.steps.push_back({"products on several threads bounded by one thread's rates",
                     [&c] { bound_parallel_matmul_rates(c.result.profile); }});
  c.steps.push_back({"fitting memory / compute overlap", [&c] { c.fit_overlap(); }});
  return c.run();
}

Calibration calibrate_gpu(const CalibrationOptions& options, std::shared_ptr<runtime::Device> device,
                          const std::string& gpu_name) {
  require_kernelizer(options);
  Calibrator c{options, {}, {}, std::move(device)};
  DeviceProfile& p = c.result.profile;
  p.device = runtime::target_name(c.gpu->target());
  p.cpu = gpu_name;
  p.date = today();
  p.overlap = 0.5;
  p.name = p.device + ": measured " + p.date + " by smelt calibrate" + (options.quick ? " --quick" : "") + " on " + gpu_name;
  p.rates.resize(1);
  ThreadRates* r = &p.rates[0];
  r->threads = 1;  // the whole device
  c.steps.push_back({"launch costs", [&c, r] { c.fixed_costs(*r); }});
  c.steps.push_back({"bandwidth", [&c, r] { c.memory(*r); }});
  c.steps.push_back({"elementwise ops", [&c, r] { c.ops(*r); }});
  c.steps.push_back({"reductions", [&c, r] { c.reductions(*r); }});
  c.steps.push_back({"rows", [&c, r] { c.rows(*r); }});
  c.steps.push_back({"fill", [&c, r] { c.fill(*r); }});
  c.steps.push_back({"matmul shapes", [&c, r] { c.matmuls(*r); }});
  c.steps.push_back({"matmul prologue", [&c, r] { c.prologue(*r); }});
  c.steps.push_back({"contraction groups", [&c, r] { c.group(*r); }});
  c.steps.push_back({"convolution windows", [&c, r] { c.windows(*r); }});
  c.steps.push_back({"fitting memory / compute overlap", [&c] { c.fit_overlap(); }});
  return c.run();
}

}  // namespace smelt::cost
