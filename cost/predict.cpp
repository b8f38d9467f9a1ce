#include "cost/predict.h"

#include "ir/kernel_branches.h"

#include <algorithm>
#include <cstdint>

namespace cost {
namespace {

using VarMask = uint64_t;  // bit v: depends on iteration variable v

VarMask index_vars(const ir::IndexPool& pool, ir::IndexRef r) { return pool.vars_used(r); }

// True when `r` is `var` plus terms that do not involve `var` (unit stride).
bool unit_stride_in(const ir::IndexPool& pool, ir::IndexRef r, int var) {
  const ir::IndexPool::Node& n = pool.node(r);
  if (n.kind == ir::IndexPool::Kind::kVar) return n.value == var;
  if (n.kind == ir::IndexPool::Kind::kAdd)
    return (unit_stride_in(pool, n.a, var) && !(index_vars(pool, n.b) >> var & 1)) ||
           (unit_stride_in(pool, n.b, var) && !(index_vars(pool, n.a) >> var & 1));
  if (n.kind == ir::IndexPool::Kind::kSub)
    return unit_stride_in(pool, n.a, var) && !(index_vars(pool, n.b) >> var & 1);
  return false;
}

double extent_product(const ir::Kernel& k, VarMask mask) {
  double product = 1;
  for (int v = 0; v < k.num_vars(); ++v) {
    if (!(mask >> v & 1)) continue;
    size_t s = static_cast<size_t>(v);
    product *= static_cast<double>(s < k.space.size() ? k.space[s] : k.reduction[s - k.space.size()]);
  }
  return product;
}

// Variables each node's value depends on, and whether it lies inside the anchor's loop.
std::vector<VarMask> node_vars(const ir::Kernel& k) {
  std::vector<VarMask> vars(k.exprs.size(), 0);
  VarMask reduction_vars = 0;
  for (size_t r = 0; r < k.reduction.size(); ++r) reduction_vars |= VarMask{1} << (k.space.size() + r);
  for (size_t i = 0; i < k.exprs.size(); ++i) {
    const ir::KernelExpr& e = k.exprs[i];
    for (ir::IndexRef r : e.index) vars[i] |= index_vars(k.indices, r);
    vars[i] |= index_vars(k.indices, e.valid);
    for (int operand : e.operands) vars[i] |= vars[operand];
    if (e.kind == ir::KernelExpr::Kind::kReduce) vars[i] &= ~reduction_vars;
  }
  return vars;
}

// Nodes whose work a contraction's matmul throughput already covers: the
// product and the loads feeding it directly.
std::vector<bool> contraction_bodies(const ir::Kernel& k) {
  std::vector<bool> covered(k.exprs.size(), false);
  for (const ir::KernelExpr& e : k.exprs) {
    if (e.kind != ir::KernelExpr::Kind::kReduce || !e.contraction) continue;
    int product = e.operands[0];
    covered[product] = true;
    for (int operand : k.exprs[product].operands)
      if (k.exprs[operand].kind == ir::KernelExpr::Kind::kLoad) covered[operand] = true;
  }
  return covered;
}

// Per node: the share of its evaluations that some version of the kernel runs
// (ir/kernel_branches.h): a side of a per-region branch only where it is taken,
// a node no output needs never.
std::vector<double> evaluated_share(const ir::Kernel& k) {
  const ir::BranchPlan plan = ir::plan_branches(k);
  std::vector<double> share(k.exprs.size(), 0);
  for (const ir::BranchPlan::Leaf& leaf : plan.leaves)
    for (size_t i = 0; i < k.exprs.size(); ++i)
      if (leaf.live[i] && !leaf.folds(k, static_cast<int>(i))) share[i] += leaf.fraction;
  for (double& s : share) s = std::min(s, 1.0);
  return share;
}

}  // namespace

AccessKind classify_load(const ir::Kernel& kernel, const ir::KernelExpr& load, bool inside_reduction) {
  int innermost = inside_reduction ? kernel.num_vars() - 1 : static_cast<int>(kernel.space.size()) - 1;
  if (innermost < 0) return AccessKind::kBroadcast;
  VarMask used = 0;
  for (ir::IndexRef r : load.index) used |= index_vars(kernel.indices, r);
  if (!(used >> innermost & 1)) return AccessKind::kBroadcast;
  if (load.index.empty()) return AccessKind::kBroadcast;
  ir::IndexRef last = load.index.back();
  bool only_last_axis = true;
  for (size_t a = 0; a + 1 < load.index.size(); ++a)
    if (index_vars(kernel.indices, load.index[a]) >> innermost & 1) only_last_axis = false;
  return only_last_axis && unit_stride_in(kernel.indices, last, innermost) ? AccessKind::kContiguous
                                                                           : AccessKind::kStrided;
}

KernelCost predict(const ir::KernelProgram& program, const ir::Kernel& k, const DeviceProfile& profile) {
  KernelCost cost;
  cost.launch_us = profile.launch_overhead_us;
  const std::vector<VarMask> vars = node_vars(k);
  const std::vector<bool> covered = contraction_bodies(k);
  const std::vector<double> share = evaluated_share(k);
  VarMask reduction_vars = 0;
  for (size_t r = 0; r < k.reduction.size(); ++r) reduction_vars |= VarMask{1} << (k.space.size() + r);

  double memory_ns = 0, compute_ns = 0;
  for (size_t i = 0; i < k.exprs.size(); ++i) {
    const ir::KernelExpr& e = k.exprs[i];
    if (share[i] == 0) continue;
    const double evaluations = extent_product(k, vars[i]) * share[i];
    switch (e.kind) {
      case ir::KernelExpr::Kind::kLoad: {
        const ir::Buffer& buffer = program.buffers[e.buffer];
        const double bytes = std::min(evaluations, static_cast<double>(ir::numel(buffer.type.shape))) *
                             ir::dtype_bytes(buffer.type.dtype);
        const bool cached = bytes <= profile.cache_bytes && profile.cached_read_gbps > 0;
        const double gbps = cached ? profile.cached_read_gbps
                                   : profile.read_gbps(classify_load(k, e, (vars[i] & reduction_vars) != 0));
        cost.bytes_read += bytes;
        memory_ns += bytes / gbps;  // GB/s = bytes/ns
        break;
      }
      case ir::KernelExpr::Kind::kElementwise:
        if (!covered[i]) compute_ns += evaluations / profile.op_rate(std::string(ir::op_name(e.op)));
        break;
      case ir::KernelExpr::Kind::kReduce: {
        const double steps = evaluations * static_cast<double>(ir::numel(k.reduction));
        if (e.contraction) {
          const long n = k.space.empty() ? 1 : static_cast<long>(k.space.back());
          const long m = static_cast<long>(ir::numel(k.space)) / std::max(n, 1L);
          const long kk = static_cast<long>(ir::numel(k.reduction));
          cost.flops += 2 * steps;
          compute_ns += 2 * steps / profile.matmul_gflops(m, n, kk);  // GFLOP/s = flop/ns
        } else {
          compute_ns += steps / profile.op_rate(e.op == ir::Op::ReduceSum ? "add" : "max");
        }
        break;
      }
      case ir::KernelExpr::Kind::kConstant:
      case ir::KernelExpr::Kind::kIndex:
        break;
    }
  }
  for (const ir::KernelOutput& out : k.outputs) {
    const ir::Buffer& buffer = program.buffers[out.buffer];
    const double bytes = static_cast<double>(ir::numel(buffer.type.shape)) * ir::dtype_bytes(buffer.type.dtype);
    cost.bytes_written += bytes;
    memory_ns += bytes / profile.write_gbps;
  }
  cost.memory_us = memory_ns / 1000;
  cost.compute_us = compute_ns / 1000;
  cost.total_us = cost.launch_us + std::max(cost.memory_us, cost.compute_us);
  return cost;
}

double predict_program_us(const ir::KernelProgram& program, const DeviceProfile& profile) {
  double total = 0;
  for (const ir::Kernel& k : program.kernels) total += predict(program, k, profile).total_us;
  return total;
}

}  // namespace cost
