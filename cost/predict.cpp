#include "cost/predict.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>

#include "kernel/constant_folding.h"
#include "kernel/contraction_group.h"
#include "kernel/gpu_plan.h"
#include "kernel/host_plan.h"
#include "kernel/index_simplify.h"
#include "kernel/kernel_branches.h"

namespace smelt::cost {
namespace {

using VarMask = uint64_t;  // bit v: depends on iteration variable v

VarMask index_vars(const kernel::IndexPool& pool, kernel::IndexRef r) { return pool.vars_used(r); }

double extent_product(const kernel::Kernel& k, VarMask mask) {
  double product = 1;
  for (int v = 0; v < k.num_vars(); ++v) {
    if (!(mask >> v & 1)) continue;
    size_t s = static_cast<size_t>(v);
    product *= static_cast<double>(s < k.space.size() ? k.space[s] : k.reduction[s - k.space.size()]);
  }
  return product;
}

// Variables each node's value depends on, and whether it lies inside the anchor's loop.
std::vector<VarMask> node_vars(const kernel::Kernel& k) {
  std::vector<VarMask> vars(k.exprs.size(), 0);
  VarMask reduction_vars = 0;
  for (size_t r = 0; r < k.reduction.size(); ++r) reduction_vars |= VarMask{1} << (k.space.size() + r);
  for (size_t i = 0; i < k.exprs.size(); ++i) {
    const kernel::KernelExpr& e = k.exprs[i];
    for (kernel::IndexRef r : e.index) vars[i] |= index_vars(k.indices, r);
    vars[i] |= index_vars(k.indices, e.valid);
    for (int operand : e.operands) vars[i] |= vars[operand];
    if (e.kind == kernel::KernelExpr::Kind::kReduce) vars[i] &= ~reduction_vars;
  }
  return vars;
}

// A contraction kernel's parts, found in one pass. `covered`: the product and
// every load inside the K loop, whose work the measured matmul throughput
// already includes (the tiled matmul packs them; `smelt calibrate` timed the
// packing). `prologue`: the nodes inside the K loop other than the product and
// its plain loads, which the tiled matmul evaluates one element at a time
// while it packs its panels (lower/host_matmul.cpp).
struct ContractionParts {
  int contractions = 0;
  std::vector<bool> covered, prologue;
};

ContractionParts contraction_parts(const kernel::Kernel& k) {
  ContractionParts parts;
  parts.covered.assign(k.exprs.size(), false);
  parts.prologue.assign(k.exprs.size(), false);
  std::vector<bool> product(k.exprs.size(), false);
  for (const kernel::KernelExpr& e : k.exprs)
    if (e.kind == kernel::KernelExpr::Kind::kReduce && e.contraction) {
      ++parts.contractions;
      product[e.operands[0]] = true;
    }
  if (parts.contractions == 0) return parts;
  std::vector<bool> plain_operand(k.exprs.size(), false);
  for (size_t i = 0; i < k.exprs.size(); ++i)
    if (product[i])
      for (int operand : k.exprs[i].operands)
        plain_operand[operand] = k.exprs[operand].kind == kernel::KernelExpr::Kind::kLoad && k.exprs[operand].valid == kernel::kNoIndex;
  const std::vector<bool> inner = kernel::reduction_loop_nodes(k);
  for (size_t i = 0; i < k.exprs.size(); ++i) {
    const kernel::KernelExpr::Kind kind = k.exprs[i].kind;
    parts.covered[i] = product[i] || (inner[i] && kind == kernel::KernelExpr::Kind::kLoad);
    parts.prologue[i] = inner[i] && !product[i] && !plain_operand[i] && kind != kernel::KernelExpr::Kind::kConstant &&
                        kind != kernel::KernelExpr::Kind::kReduce;
  }
  return parts;
}

// Per node: the share of its evaluations that some version of the kernel runs
// (kernel/kernel_branches.h): a side of a per-region branch only where it is taken,
// a node no output needs never.
std::vector<double> evaluated_share(const kernel::Kernel& k, const kernel::BranchPlan& plan) {
  std::vector<double> share(k.exprs.size(), 0);
  for (const kernel::BranchPlan::Leaf& leaf : plan.leaves)
    for (size_t i = 0; i < k.exprs.size(); ++i)
      if (leaf.live[i] && !leaf.folds(k, static_cast<int>(i))) share[i] += leaf.fraction;
  for (double& s : share) s = std::min(s, 1.0);
  return share;
}

// A short reduction (kernel::kHostUnrolledReduction) that LLVM unrolls
// completely: the space's innermost loop then vectorizes as an elementwise
// loop does, and its loads walk with that loop.
bool is_unrolled_reduction(const kernel::Kernel& k) {
  if (k.reduction.empty() || ir::numel(k.reduction) > kernel::kHostUnrolledReduction) return false;
  return std::none_of(k.exprs.begin(), k.exprs.end(), [](const kernel::KernelExpr& e) {
    return e.kind == kernel::KernelExpr::Kind::kReduce && e.contraction;
  });
}

// Whether a reduction walks its loads along their unit stride (vectorized) or
// across rows.
bool reduces_inner_axis(const kernel::KernelProgram& program, const kernel::Kernel& k, int reduce) {
  std::vector<int> stack{k.exprs[reduce].operands[0]};
  std::vector<bool> seen(k.exprs.size(), false);
  bool any_load = false;
  while (!stack.empty()) {
    const int i = stack.back();
    stack.pop_back();
    if (seen[i]) continue;
    seen[i] = true;
    const kernel::KernelExpr& e = k.exprs[i];
    if (e.kind == kernel::KernelExpr::Kind::kLoad) {
      const AccessKind kind = classify_load(k, e, true, program.buffers.at(static_cast<size_t>(e.buffer)).type.shape);
      if (kind == AccessKind::kContiguous || kind == AccessKind::kMasked) return true;
      any_load = any_load || kind != AccessKind::kBroadcast;
    }
    for (int operand : e.operands) stack.push_back(operand);
  }
  return !any_load;
}

// pow with a constant exponent LLVM rewrites to arithmetic: x·x, x, 1/x, sqrt;
// the emitter computes x³ and x⁴ as products and 2^y as exp2(y)
// (lower/kernel_emitter.cpp).
const char* pow_as(const kernel::Kernel& k, const kernel::KernelExpr& e) {
  if (e.op != ir::Op::Pow || e.operands.size() != 2) return nullptr;
  const kernel::KernelExpr& base = k.exprs[e.operands[0]];
  if (base.kind == kernel::KernelExpr::Kind::kConstant && base.value == 2) return "exp2";
  const kernel::KernelExpr& exponent = k.exprs[e.operands[1]];
  if (exponent.kind != kernel::KernelExpr::Kind::kConstant) return nullptr;
  if (exponent.value == 1 || exponent.value == 2 || exponent.value == 3 || exponent.value == 4) return "mul";
  if (exponent.value == -1) return "div";
  if (exponent.value == 0.5) return "sqrt";
  return nullptr;
}

// The longest chain of math calls feeding each other in the kernel; a load
// marked in `gathered` (a gather per vector feeding a call) is a link too.
int longest_call_chain(const kernel::Kernel& k, const std::vector<double>& share, const std::vector<bool>& gathered) {
  std::vector<int> depth(k.exprs.size(), 0);
  int longest = 0;
  for (size_t i = 0; i < k.exprs.size(); ++i) {
    const kernel::KernelExpr& e = k.exprs[i];
    for (int operand : e.operands) depth[i] = std::max(depth[i], depth[operand]);
    if (e.kind == kernel::KernelExpr::Kind::kElementwise && share[i] > 0 && kernel::host_math_call(k, e)) ++depth[i];
    if (gathered[i]) ++depth[i];
    longest = std::max(longest, depth[i]);
  }
  return longest;
}

// The flat stride in bytes of a strided load along the innermost variable.
int64_t stride_bytes(const kernel::Kernel& k, const kernel::KernelExpr& load, const kernel::Buffer& buffer, bool inside_reduction) {
  const int innermost = inside_reduction ? k.num_vars() - 1 : static_cast<int>(k.space.size()) - 1;
  if (innermost < 0) return 0;
  const std::optional<int64_t> elements = kernel::load_offset_coefficient(k, load, buffer.type.shape, innermost);
  if (!elements) return 0;
  const int64_t stride = *elements * ir::dtype_bytes(buffer.type.dtype);
  return stride < 0 ? -stride : stride;
}

// Loads of one window: the same buffer at indices that differ by constant
// shifts alone, at most one row along the last axis and kWindowReach along
// the others (a rotate-half, a stencil, a concat of two halves, a max pool's
// nine shifted strided reads). Together they read the lines of the buffer's
// region they cover once; the lines each later one reads, an earlier one has
// just brought in.
constexpr int64_t kWindowReach = 4;
bool same_window(const kernel::Kernel& k, const kernel::Buffer& buffer, const kernel::KernelExpr& load,
                 const kernel::KernelExpr& earlier) {
  if (load.buffer != earlier.buffer || load.index.size() != earlier.index.size() || load.index.empty()) return false;
  const size_t last = load.index.size() - 1;
  for (size_t a = 0; a <= last; ++a) {
    if (load.index[a] == earlier.index[a]) continue;
    const auto [base, offset] = k.indices.base_and_offset(load.index[a]);
    const auto [earlier_base, earlier_offset] = k.indices.base_and_offset(earlier.index[a]);
    const int64_t reach = a == last ? buffer.type.shape.back() : kWindowReach;
    if (base != earlier_base || std::abs(offset - earlier_offset) > reach) return false;
  }
  return true;
}

// The host's column segments as versions of the kernel (kernel::host_column_cuts:
// the row loop is cut where comparisons of the column with a constant change
// value, and in each segment LLVM folds them). In a segment a `where` the
// segment decides computes only its taken side, and a masked load is a plain
// load where its mask holds there and is not evaluated where it does not (a
// rotate-half's `j < 64` / `64 <= j` halves). `plain[i]`: a masked load every
// segment that evaluates it decides true.
kernel::BranchPlan column_segments(const kernel::Kernel& k, const std::vector<int64_t>& cuts, std::vector<bool>& plain) {
  std::vector<kernel::IndexRange> ranges;
  for (int64_t e : k.space) ranges.push_back({0, e - 1});
  for (int64_t e : k.reduction) ranges.push_back({0, e - 1});
  kernel::BranchPlan plan;
  if (ranges.size() >= 64) return plan;
  const size_t inner = k.space.size() - 1;
  const int64_t n = k.space.back();
  std::vector<int> evaluated(k.exprs.size(), 0), decided_true(k.exprs.size(), 0);
  int64_t lo = 0;
  for (size_t s = 0; s <= cuts.size(); ++s) {
    const int64_t hi = s < cuts.size() ? cuts[s] : n;
    ranges[inner] = {lo, hi - 1};
    kernel::IndexPool target;
    kernel::IndexSimplifier simplifier(k.indices, target, ranges);
    auto decide = [&](kernel::IndexRef condition) -> std::optional<bool> {
      if ((k.indices.vars_used(condition) >> ranges.size()) != 0) return std::nullopt;
      const kernel::IndexRef truth = simplifier.truth(condition);
      if (truth == kernel::kNoIndex) return true;
      const kernel::IndexPool::Node& node = target.node(truth);
      if (node.kind == kernel::IndexPool::Kind::kConst && node.value == 0) return false;
      return std::nullopt;
    };
    kernel::BranchPlan::Leaf leaf;
    leaf.fraction = static_cast<double>(hi - lo) / static_cast<double>(n);
    for (size_t i = 0; i < k.exprs.size(); ++i) {
      const kernel::IndexRef condition = kernel::where_index_condition(k, static_cast<int>(i));
      if (condition == kernel::kNoIndex || leaf.decides(condition)) continue;
      if (const std::optional<bool> holds = decide(condition)) leaf.assumed.emplace_back(condition, *holds);
    }
    leaf.live = kernel::live_nodes(k, leaf.assumed);
    for (size_t i = 0; i < k.exprs.size(); ++i) {
      const kernel::KernelExpr& e = k.exprs[i];
      if (!leaf.live[i] || e.kind != kernel::KernelExpr::Kind::kLoad || e.valid == kernel::kNoIndex || !e.operands.empty())
        continue;
      const std::optional<bool> holds = decide(e.valid);
      if (holds && !*holds) {
        leaf.live[i] = false;  // its pad value, a constant
        continue;
      }
      ++evaluated[i];
      decided_true[i] += holds.has_value();
    }
    plan.leaves.push_back(std::move(leaf));
    lo = hi;
  }
  plain.assign(k.exprs.size(), false);
  for (size_t i = 0; i < k.exprs.size(); ++i) plain[i] = evaluated[i] > 0 && decided_true[i] == evaluated[i];
  return plan;
}

bool aliasing_stride(int64_t bytes) { return bytes >= 512 && (bytes & (bytes - 1)) == 0; }

}  // namespace

AccessKind classify_load(const kernel::Kernel& kernel, const kernel::KernelExpr& load, bool inside_reduction,
                         const ir::Shape& buffer_shape) {
  const int innermost = inside_reduction ? kernel.num_vars() - 1 : static_cast<int>(kernel.space.size()) - 1;
  if (innermost < 0 || load.index.empty()) return AccessKind::kBroadcast;
  VarMask used = 0;
  for (kernel::IndexRef r : load.index) used |= index_vars(kernel.indices, r);
  // A gather's load (kernel.h, indirect variables): an address loaded anew
  // along the row is an indirect access per element (its own measured curve,
  // smelt calibrate's "read indirect"); a row read at a loaded address (an
  // embedding row, one id per row) is read like any row.
  if (!load.operands.empty()) {
    const std::vector<VarMask> vars = node_vars(kernel);
    for (int operand : load.operands)
      if (vars[static_cast<size_t>(operand)] >> innermost & 1) return AccessKind::kIndirect;
  }
  if (!(used >> innermost & 1)) return AccessKind::kBroadcast;
  // The buffer's row-major strides are its extents' suffix products; the load
  // index has one expression per buffer axis. Only the flat stride matters.
  // Extents are not known here without the buffer, so a stride is 1 exactly
  // when the innermost variable moves only the last axis by one.
  // The last two axes read as (x floordiv e, x mod e) for the last extent e
  // address element x of the two flattened (merged rows, a flattened view):
  // one axis indexed by x.
  size_t axes = load.index.size();
  kernel::IndexRef flat = kernel::kNoIndex;
  if (axes >= 2 && buffer_shape.size() == axes) {
    flat = kernel.indices.flattened_pair(load.index[axes - 2], load.index[axes - 1], buffer_shape[axes - 1]);
    if (flat != kernel::kNoIndex) --axes;
  }
  int64_t last_coefficient = 0;
  for (size_t a = 0; a < axes; ++a) {
    const kernel::IndexRef r = a + 1 == axes && flat != kernel::kNoIndex ? flat : load.index[a];
    const std::optional<int64_t> c = kernel.indices.coefficient(r, innermost);
    if (!c) return AccessKind::kGather;
    if (a + 1 < axes && *c != 0) return AccessKind::kStrided;
    if (a + 1 == axes) last_coefficient = *c;
  }
  if (last_coefficient == 0) return AccessKind::kBroadcast;
  if (last_coefficient != 1) return AccessKind::kStrided;
  return load.valid != kernel::kNoIndex ? AccessKind::kMasked : AccessKind::kContiguous;
}

KernelCost predict(const kernel::KernelProgram& program, const kernel::Kernel& k, const DeviceProfile& profile) {
  KernelCost cost;
  // Evaluated once at compile time (kernel/constant_folding.h): it never runs.
  if (kernel::folds_at_compile_time(program, k)) return cost;
  // A GPU runs the kernel on the whole device (one set of rates, no thread
  // pool): its plan (kernel/gpu_plan.h) says how many threads it keeps busy.
  const bool gpu = profile.device != "host";
  const kernel::HostSplit split = gpu ? kernel::HostSplit{} : kernel::host_split(k, profile.threads());
  const ThreadRates& rates = gpu ? profile.rates.front() : profile.at(split.threads_used);
  const kernel::GpuPlan gpu_plan = gpu ? kernel::plan_gpu_kernel(k, gpu_matrix_units(profile)) : kernel::GpuPlan{};
  cost.threads = split.threads_used;
  cost.fixed_us = rates.kernel_us + (split.threads_used > 1 ? rates.dispatch_us : 0);
  const double balance =
      !gpu && split.chunks > 0 && split.threads_used > 1
          ? static_cast<double>((split.chunks + split.threads_used - 1) / split.threads_used) * split.threads_used /
                static_cast<double>(split.chunks)
          : 1.0;

  const std::vector<VarMask> vars = node_vars(k);
  const ContractionParts parts = contraction_parts(k);
  const std::vector<bool>& covered = parts.covered;
  const std::vector<bool>& prologue = parts.prologue;
  // The versions as the target's code runs them (a GPU decides some per run of elements).
  kernel::BranchPlan plan = gpu ? kernel::gpu_branch_plan(k, gpu_plan) : kernel::plan_branches(k);
  // The host's column segments where the versions do not cut the kernel already
  // (nvfuser_rope_bwd's 2-kernel form was priced 71.7 us with both sides of its
  // rotate-half computed and loaded at every column, and measured 33.6, 2026-11-29).
  std::vector<bool> plain_in_segments(k.exprs.size(), false);
  const std::vector<int64_t> cuts = !gpu && parts.contractions == 0 ? kernel::host_column_cuts(k) : std::vector<int64_t>{};
  if (!cuts.empty() && !plan.versioned()) {
    kernel::BranchPlan segments = column_segments(k, cuts, plain_in_segments);
    if (!segments.leaves.empty()) plan = std::move(segments);
  }
  const std::vector<double> share = evaluated_share(k, plan);
  VarMask reduction_vars = 0;
  for (size_t r = 0; r < k.reduction.size(); ++r) reduction_vars |= VarMask{1} << (k.space.size() + r);

  // LLVM unrolls a short reduction into the host's vector loop, and the host
  // walks a reduction down the columns outside it (kernel::host_reduces_down_columns):
  // either way the loads walk with the row, each step an add there. A GPU
  // block reduces it like any other.
  const bool unrolled = !gpu && (is_unrolled_reduction(k) || kernel::host_reduces_down_columns(k));
  const int contractions = parts.contractions;
  const bool contraction = contractions > 0;
  const std::optional<kernel::ContractionGroup> group =
      contraction ? kernel::match_contraction_group(k) : std::optional<kernel::ContractionGroup>{};
  // B packed per call but small enough to stay in a core's L2 (<= 1 MiB of
  // packed B) groups like constant weights: the calibration's group_factor
  // times 2 x 8 MiB of B streaming from memory, where grouping lost 1.16-1.5x
  // at 2 threads, while a dot-slice's [128, 2 x 128] B grouped measured 41 us
  // against 50 us as a gemm and its epilogue (2 threads, 2026-11-28).
  const bool b_in_cache =
      group && static_cast<double>(group->k) * static_cast<double>(group->n) *
                       static_cast<double>(group->b_sides.size()) * 4 <= static_cast<double>(1 << 20);
  // A contraction no tiled kernel takes, priced per step of its loop where the profile measured one.
  const bool looped_contraction =
      contraction && (gpu ? !group : !kernel::host_tiled_contraction(k, group)) && !rates.loop_contraction.empty();
  // Its one column (kernel::host_tiled_contraction): the reduction loop is the
  // vector loop, a row reduction's.
  const bool looped_along_k = looped_contraction && !gpu && !k.space.empty() && k.space.back() == 1;
  // A looped contraction on the host (no tiled kernel: a depthwise
  // convolution) over rows narrower than a vector or two: its steps and its
  // epilogue's ops that vary along the row cost more per element (the
  // profile's factors by the row's width; lower/host_kernel.cpp runs each row
  // as its own loop).
  const bool narrow_rows = !gpu && looped_contraction && !looped_along_k && k.space.size() >= 2;
  const int innermost_var = static_cast<int>(k.space.size()) - 1;
  const double row_width = k.space.empty() ? 1 : static_cast<double>(k.space.back());
  const double epilogue_row_factor = narrow_rows && !rates.loop_epilogue_row_factor.empty()
                                         ? interpolate(rates.loop_epilogue_row_factor, row_width)
                                         : 1.0;
  // Its taps read every other element of a row (a stride-2 depthwise
  // convolution): the profile's stride-2 factors where it has them.
  bool strided_taps = false;
  if (narrow_rows && !rates.loop_contraction_strided_row_factor.empty())
    for (size_t i = 0; i < k.exprs.size() && !strided_taps; ++i) {
      const kernel::KernelExpr& e = k.exprs[i];
      strided_taps = e.kind == kernel::KernelExpr::Kind::kLoad && (vars[i] & reduction_vars) != 0 &&
                     classify_load(k, e, false, program.buffers.at(static_cast<size_t>(e.buffer)).type.shape) ==
                         AccessKind::kStrided;  // along the row, which the host's loop vectorizes
    }
  const Curve& step_factors = strided_taps ? rates.loop_contraction_strided_row_factor : rates.loop_contraction_row_factor;
  const double loop_step_factor = narrow_rows && !step_factors.empty() ? interpolate(step_factors, row_width) : 1.0;
  // Every B side reads constants (kernel::b_sides_are_constant); where the
  // host's tiled matmul packs B once for that (kernel::host_packs_b_once), the
  // product is priced at the rates measured so (matmul_constant_b).
  const bool constant_b = group && kernel::b_sides_are_constant(program, k, *group);
  const bool b_packed_once =
      constant_b && !gpu &&
      kernel::host_packs_b_once(program, k, *group, plan,
                                static_cast<double>(group->k) * static_cast<double>(group->n) *
                                    static_cast<double>(group->b_sides.size()));
  // First pass: the bytes each load touches and the kernel's working set.
  struct Traffic {
    double bytes;
    AccessKind kind;
    int64_t stride = 0;  // bytes, for strided loads
    double elements = 0;
    bool narrow = false;  // a 2-byte (or smaller) element type
    bool reread = false;  // lines an earlier load brought in (same_window): in-cache cost only
    bool gathered = false;  // a gather per vector feeding a math call: not overlapped
  };
  std::vector<Traffic> loads;
  // Loads read by a gather per vector (strided, gathered, indirect) that feed
  // a math call: the gather's latency is a link of the call chain, and its
  // time adds to the calls' rather than overlapping them. A transpose of
  // [64,32,16] took 14.3 us, with exp after it 28 (exp alone 15.2), with tanh
  // after it 45.5 (tanh alone 24; 2026-11-29, one thread).
  std::vector<bool> gathered(k.exprs.size(), false);
  std::vector<bool> feeds_call(k.exprs.size(), false);
  for (size_t i = k.exprs.size(); i-- > 0;) {
    if (!feeds_call[i] && !(share[i] > 0 && kernel::host_math_call(k, k.exprs[i]))) continue;
    for (int operand : k.exprs[i].operands) feeds_call[static_cast<size_t>(operand)] = true;
  }
  // The host's code for masked loads (kernel::host_masked_loads_as_branches).
  const bool selected_masked_loads = !gpu && !contraction && !kernel::host_masked_loads_as_branches(k, cuts);
  // Windows (same_window): the first load of each is charged the lines they
  // read together, at most its buffer; the others reread them in cache. (A
  // 3x3 max pool of stride 2 was priced 976 us as nine strided reads from
  // memory and measured 326, ResNet-50's stem, 2 threads, 2026-11-29.)
  auto load_bytes = [&](size_t i) {
    const kernel::Buffer& buffer = program.buffers[k.exprs[i].buffer];
    const double evaluations = extent_product(k, vars[i]) * share[i];
    return std::min(evaluations, static_cast<double>(ir::numel(buffer.type.shape))) * ir::dtype_bytes(buffer.type.dtype);
  };
  std::vector<int> window_of(k.exprs.size(), -1);  // the window's first load
  std::vector<double> window_bytes(k.exprs.size(), 0);
  std::vector<int> window_loads(k.exprs.size(), 0);
  for (size_t i = 0; i < k.exprs.size(); ++i) {
    const kernel::KernelExpr& e = k.exprs[i];
    if (e.kind != kernel::KernelExpr::Kind::kLoad || share[i] == 0 || covered[i]) continue;
    if ((vars[i] & reduction_vars) != 0 && !unrolled) continue;
    window_of[i] = static_cast<int>(i);
    for (size_t j = 0; j < i; ++j)
      if (window_of[j] == static_cast<int>(j) && same_window(k, program.buffers[e.buffer], e, k.exprs[j])) {
        window_of[i] = static_cast<int>(j);
        break;
      }
    window_bytes[static_cast<size_t>(window_of[i])] += load_bytes(i);
    ++window_loads[static_cast<size_t>(window_of[i])];
  }
  for (size_t i = 0; i < k.exprs.size(); ++i) {
    const kernel::KernelExpr& e = k.exprs[i];
    if (e.kind != kernel::KernelExpr::Kind::kLoad || share[i] == 0) continue;
    const kernel::Buffer& buffer = program.buffers[e.buffer];
    const bool in_reduction = (vars[i] & reduction_vars) != 0 && !unrolled;
    const double evaluations = extent_product(k, vars[i]) * share[i];
    const double buffer_bytes = static_cast<double>(ir::numel(buffer.type.shape)) * ir::dtype_bytes(buffer.type.dtype);
    const bool reread = window_of[i] >= 0 && window_of[i] != static_cast<int>(i);
    const bool window_leader = window_of[i] == static_cast<int>(i) && window_loads[i] > 1;
    const double bytes = window_leader ? std::min(buffer_bytes, window_bytes[i]) : load_bytes(i);
    if (!reread) cost.bytes_read += bytes;
    if (covered[i]) continue;
    AccessKind kind = classify_load(k, e, in_reduction, buffer.type.shape);
    if (plain_in_segments[i] && kind == AccessKind::kMasked) kind = AccessKind::kContiguous;  // the mask folded
    // Strided reads of a window that together cover every line of their buffer stream it.
    if (window_leader && kind == AccessKind::kStrided && bytes >= buffer_bytes) kind = AccessKind::kContiguous;
    double elements = bytes / ir::dtype_bytes(buffer.type.dtype);
    const bool gather_feeding_call = !gpu && !prologue[i] && !reread && feeds_call[i] &&
                                     (kind == AccessKind::kStrided || kind == AccessKind::kGather ||
                                      kind == AccessKind::kIndirect);
    gathered[i] = gather_feeding_call;
    if (kind == AccessKind::kMasked && selected_masked_loads) {
      // A load at a clamped address and a select, at every evaluation: a
      // gather per element (a 16-way concat of 6,000 floats: 20 us, not 1).
      kind = AccessKind::kGather;
      elements = evaluations;
    }
    loads.push_back({bytes, kind, kind == AccessKind::kStrided ? stride_bytes(k, e, buffer, in_reduction) : 0, elements,
                     ir::dtype_bytes(buffer.type.dtype) < 4, reread, gather_feeding_call});
  }
  for (const kernel::KernelOutput& out : k.outputs) {
    const kernel::Buffer& buffer = program.buffers[out.buffer];
    const double bytes = static_cast<double>(ir::numel(buffer.type.shape)) * ir::dtype_bytes(buffer.type.dtype);
    cost.bytes_written += bytes;
    if (out.is_scatter()) {  // the copy of its initial buffer, read in order
      cost.bytes_read += bytes;
      loads.push_back({bytes, AccessKind::kContiguous, 0, bytes / ir::dtype_bytes(buffer.type.dtype),
                       ir::dtype_bytes(buffer.type.dtype) < 4, false});
    }
  }
  cost.working_set_bytes = cost.bytes_read + cost.bytes_written;

  // Row stages (kernel::host_row_stages): every math call that feeds another
  // is computed in a pass of its own, so no call waits on another in a loop.
  const std::vector<std::vector<int>> stages =
      gpu ? std::vector<std::vector<int>>{} : kernel::host_row_stages(k, program.buffers);
  const int chain = stages.empty() ? longest_call_chain(k, share, gathered) : 1;
  const double chain_factor =
      chain <= 1 || rates.call_chain_factor.empty()
          ? 1.0
          : rates.call_chain_factor[std::min<size_t>(static_cast<size_t>(chain) - 1, rates.call_chain_factor.size() - 1)];
  double memory_ns = 0, compute_ns = 0, gathered_ns = 0;
  // In cache a load or store costs per element, not per byte: a 2-byte
  // element takes the instructions of a 4-byte one (and a conversion). Not
  // where GPU threads take runs of elements (kernel/gpu_plan.h): there 8 bf16
  // elements are one 16-byte access, as 4 f32 ones are.
  const double in_cache_bytes = gpu_plan.elements_per_thread > 1 ? 2 : 4;
  auto in_cache = [&](const Curve& c) { return c.empty() ? 0.0 : in_cache_bytes * c.front().ns; };
  for (const Traffic& t : loads) {
    const Curve& curve = rates.read[static_cast<int>(t.kind)];
    const Curve& contiguous = rates.read[static_cast<int>(AccessKind::kContiguous)];
    double ns = interpolate(curve, cost.working_set_bytes);
    double floor = in_cache(curve);
    if (t.kind == AccessKind::kBroadcast) {  // never dearer than reading the same bytes in a stream
      ns = std::min(ns, interpolate(contiguous, cost.working_set_bytes));
      floor = std::min(floor, in_cache(contiguous));
    }
    if (aliasing_stride(t.stride) && !rates.read_aliasing_stride.empty())
      ns = std::max(ns, interpolate(rates.read_aliasing_stride, static_cast<double>(t.stride)) *
                            (rates.read_aliasing_size_factor.empty()
                                 ? 1.0
                                 : interpolate(rates.read_aliasing_size_factor, cost.working_set_bytes)));
    if (t.kind == AccessKind::kMasked && t.narrow) floor = std::max(floor, rates.read_masked_narrow_ns);
    (t.gathered ? gathered_ns : memory_ns) += t.reread ? t.elements * floor : std::max(t.bytes * ns, t.elements * floor);
  }
  for (const kernel::KernelOutput& out : k.outputs) {
    const kernel::Buffer& buffer = program.buffers[out.buffer];
    const double elements = static_cast<double>(ir::numel(buffer.type.shape));
    memory_ns += std::max(elements * ir::dtype_bytes(buffer.type.dtype) * interpolate(rates.write, cost.working_set_bytes),
                          elements * in_cache(rates.write));
  }

  // A staged value is stored to its row buffer and read back, in cache.
  for (const std::vector<int>& pass : stages)
    for (int node : pass) {
      const double evaluations = extent_product(k, vars[static_cast<size_t>(node)]) * share[static_cast<size_t>(node)];
      memory_ns += evaluations * (in_cache(rates.write) + in_cache(rates.read[static_cast<int>(AccessKind::kContiguous)]));
    }

  // An elementwise op's time per element in a vector loop.
  auto elementwise_ns = [&](const kernel::KernelExpr& e) {
    const char* as = pow_as(k, e);
    std::string key = as ? as : std::string(ir::op_name(e.op));
    if (e.op == ir::Op::Cast) key = "cast_" + std::string(ir::dtype_name(e.to));
    double ns = op_ns(rates, key) * (kernel::host_math_call(k, e) ? chain_factor : 1.0);
    // An op computed in f16 / bf16 computes in f32 and rounds its result.
    if (e.op != ir::Op::Cast && (e.dtype == ir::DType::F16 || e.dtype == ir::DType::BF16))
      ns += op_ns(rates, "cast_" + std::string(ir::dtype_name(e.dtype)));
    return ns;
  };
  // Windows cost their packing (measured on a padded 3x3 convolution); columns
  // that are a plain matrix's (kernel::b_columns_are_flat: a 1x1 convolution at
  // stride 1) pack as a matmul's B, which its rate holds. Charged windows, a 1x1
  // convolution with its bias, residual and ReLU ([256, 64] @ [64, 56x56], one
  // thread) was priced 370 us over the product and a separate elementwise
  // kernel, and measured 1,432 us against their 1,637 (minima of 5 rounds,
  // AMD EPYC, 2026-11-30): ResNet-50 kept 12 residual adds as kernels of their own.
  const bool windows = group && group->columns.size() > 1 && !kernel::b_columns_are_flat(program, k, *group);
  // A host profile's convolutions were timed whole (ThreadRates::conv): their
  // rates hold the packing of overlapping windows; a strided 1x1 convolution's
  // B is a strided matrix, priced as a matmul's (kernel::b_windows_overlap).
  const bool conv_rates = windows && !gpu && !rates.conv.empty() && kernel::b_windows_overlap(k, *group);
  if (windows && !conv_rates) compute_ns += window_elements(k) * rates.window_pack_ns;
  for (size_t i = 0; i < k.exprs.size(); ++i) {
    const kernel::KernelExpr& e = k.exprs[i];
    if (share[i] == 0) continue;
    const double evaluations = extent_product(k, vars[i]) * share[i];
    // A looped contraction's loads are in its step; its other nodes in the
    // loop are ops evaluated at every step, not once per packed element.
    // A packed element costs the profile's prologue rate per node (measured on
    // loads and selects), a math op at least what it costs in a vector loop: a
    // sigmoid on A [512, 256] adds 0.55-0.8 ns per element to its product, where
    // two nodes at the prologue rate priced 0.4 (one thread, 2026-11-29).
    if (prologue[i] && !looped_contraction) {
      // A convolution's masked window loads are its windows, whose packing
      // the profile priced (ThreadRates::conv, window_pack_ns: measured on
      // such loads): charged again here, a 3x3 convolution over 28x28 was
      // priced 449 us against 356 measured (one thread, 2026-12-01).
      if (windows && e.kind == kernel::KernelExpr::Kind::kLoad) continue;
      const double ns = e.kind == kernel::KernelExpr::Kind::kElementwise ? std::max(rates.prologue_ns, elementwise_ns(e))
                                                                         : rates.prologue_ns;
      compute_ns += evaluations * ns;
      continue;
    }
    switch (e.kind) {
      case kernel::KernelExpr::Kind::kElementwise:
        if (!covered[i]) {
          double ns = elementwise_ns(e);
          if (innermost_var >= 0 && (vars[i] >> innermost_var & 1)) ns *= epilogue_row_factor;
          compute_ns += evaluations * ns;
        }
        break;
      case kernel::KernelExpr::Kind::kReduce: {
        const double steps = evaluations * static_cast<double>(ir::numel(k.reduction));
        if (e.contraction && looped_along_k) {
          cost.flops += 2 * steps;
          compute_ns += steps * interpolate(rates.reduce_inner, static_cast<double>(k.reduction.back()));
        } else if (e.contraction && looped_contraction) {
          // No tiled kernel takes it: a plain loop over its steps (loads, product, sum).
          cost.flops += 2 * steps;
          compute_ns += steps * interpolate(rates.loop_contraction, static_cast<double>(ir::numel(k.reduction))) *
                        loop_step_factor;
        } else if (e.contraction) {
          // The matmul's shape: a contraction group's (several column axes for
          // a convolution), else the space's last two axes.
          long n = k.space.empty() ? 1 : static_cast<long>(k.space.back());
          long m = k.space.size() < 2 ? 1 : static_cast<long>(k.space[k.space.size() - 2]);
          if (group) n = static_cast<long>(group->n), m = static_cast<long>(group->rows_per_b());
          const long batch = static_cast<long>(ir::numel(k.space)) / std::max(1L, n * m);
          const long kk = static_cast<long>(ir::numel(k.reduction));
          cost.flops += 2 * steps;
          // Tensor cores, B packed once, convolutions: their own measured
          // rates where the profile has them.
          const std::vector<MatmulPoint>& rates_of_shape =
              gpu_plan.shape == kernel::GpuShape::kTensorCoreMatmul && !rates.tensor_core_matmul.empty() ? rates.tensor_core_matmul
              : conv_rates                                                                              ? rates.conv
              : b_packed_once && !rates.matmul_constant_b.empty()                                       ? rates.matmul_constant_b
                                                                                                        : rates.matmul;
          // A group's terms share the micro-kernel's A broadcasts: where the
          // combined width runs faster than one term's (narrow terms), the
          // group runs at its rate (two 128-wide gemms of a dot-slice as one
          // 256 wide: 44 us grouped against 66 us as a gemm and its epilogue,
          // 2 threads, 2026-11-28); never slower than a term alone, the rate
          // group_factor was measured against (2 x 2048 columns).
          double gflops = matmul_gflops(rates_of_shape, batch, m, n, kk);
          if (contractions > 1) gflops = std::max(gflops, matmul_gflops(rates_of_shape, batch, m, n * contractions, kk));
          // The host's micro-kernel computes whole tiles of min(32, n rounded
          // up to 16) columns (kernel::kHostMicroTileColumns): a 1x1 convolution over a
          // 7x7 map computes 64 columns for its 49. The profile's shapes (N a
          // multiple of 64) have no such padding. [1152, 49] @ [192] ran 1.4x
          // its price unpadded (2026-11-29, one thread). Below one full tile
          // (N < 32: a seed's 6-wide halves) the time is the kernel's fixed
          // costs, which the rate read at the profile's smallest N already
          // overstates; the padding is not charged there.
          // A convolution's measured rates hold their shapes' padding.
          if (!gpu && n >= 32 && !conv_rates) {
            const long tile = std::min(static_cast<long>(kernel::kHostMicroTileColumns), (n + 15) / 16 * 16);
            gflops *= static_cast<double>(n) / static_cast<double>((n + tile - 1) / tile * tile);
          }
          compute_ns += 2 * steps / gflops *  // GFLOP/s = flop/ns
                        (contractions > 1 ? (constant_b || b_in_cache ? rates.group_factor_constant_b : rates.group_factor) : 1.0);
        } else if (unrolled) {
          compute_ns += steps * op_ns(rates, "add");
        } else {
          // Inner: rows as long as the innermost reduced axis.
          const double row = static_cast<double>(k.reduction.back());
          const Curve& inner = e.op == ir::Op::ReduceMax ? rates.reduce_max_inner : rates.reduce_inner;
          compute_ns += steps * (reduces_inner_axis(program, k, static_cast<int>(i)) ? interpolate(inner, row)
                                                                             : rates.reduce_outer_ns);
        }
        break;
      }
      case kernel::KernelExpr::Kind::kLoad:
      case kernel::KernelExpr::Kind::kConstant:
      case kernel::KernelExpr::Kind::kIndex:
        break;
    }
  }
  // Loop set-up and the vector loop's remainder, once per row of the space.
  if (!contraction && k.space.size() >= 2) compute_ns += static_cast<double>(split.units) * rates.row_ns;
  cost.memory_us = (memory_ns + gathered_ns) / 1000;
  cost.gathered_us = gathered_ns / 1000;
  cost.compute_us = compute_ns / 1000;
  double work_us = std::max(memory_ns, compute_ns) / 1000 + profile.overlap * std::min(memory_ns, compute_ns) / 1000 +
                   gathered_ns / 1000;
  // A GPU kernel that keeps few threads busy gets that share of the device,
  // in proportion to its threads below saturation (a power law between the
  // measured points); the tiled matmul's measured rates already hold their fill.
  if (gpu && !rates.fill.empty()) {
    if (gpu_plan.shape != kernel::GpuShape::kTiledMatmul && gpu_plan.shape != kernel::GpuShape::kTensorCoreMatmul)
      work_us /= interpolate(rates.fill, kernel::gpu_busy_threads(k, gpu_plan), Scale::kLog);
  }
  cost.total_us = cost.fixed_us + balance * work_us;
  return cost;
}

kernel::GpuMatrixUnits gpu_matrix_units(const DeviceProfile& profile) {
  return profile.device == "cuda" ? kernel::GpuMatrixUnits::kNvidiaMma : kernel::GpuMatrixUnits::kNone;
}

double prologue_evaluations(const kernel::Kernel& k) {
  const std::vector<bool> prologue = contraction_parts(k).prologue;
  const std::vector<VarMask> vars = node_vars(k);
  const std::vector<double> share = evaluated_share(k, kernel::plan_branches(k));
  double total = 0;
  for (size_t i = 0; i < k.exprs.size(); ++i)
    if (prologue[i]) total += extent_product(k, vars[i]) * share[i];
  return total;
}

double window_elements(const kernel::Kernel& k) {
  const std::optional<kernel::ContractionGroup> group = kernel::match_contraction_group(k);
  if (!group || group->columns.size() < 2) return 0;
  double batch = 1;
  for (int64_t e : group->batch) batch *= static_cast<double>(e);
  return batch * static_cast<double>(group->k) * static_cast<double>(group->n) *
         static_cast<double>(group->b_sides.size());
}

double predict_program_us(const kernel::KernelProgram& program, const DeviceProfile& profile) {
  double total = profile.at(profile.threads()).program_us;
  for (const kernel::Kernel& k : program.kernels) total += predict(program, k, profile).total_us;
  return total;
}

double elementwise_work_ns(const DeviceProfile& profile, const std::string& op, double elements) {
  return elements * op_ns(profile.at(profile.threads()), op);
}

double reduction_work_ns(const DeviceProfile& profile, double reduced_elements) {
  return reduced_elements * interpolate(profile.at(profile.threads()).reduce_inner, 1024);
}

double matmul_work_ns(const DeviceProfile& profile, long batch, long m, long n, long k) {
  return 2.0 * static_cast<double>(batch) * m * n * k / matmul_gflops(profile.at(profile.threads()).matmul, batch, m, n, k);
}

}  // namespace smelt::cost
