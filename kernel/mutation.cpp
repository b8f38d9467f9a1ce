#include "kernel/mutation.h"

#include <cmath>
#include <functional>
#include <stdexcept>
#include <utility>

namespace smelt::kernel {
namespace {

bool real(DType t) { return ir::is_float(t); }

// Inserts `e` (whose operands come before `at`) at position `at`; operands and
// outputs at or after it move up by one.
int insert_before(Kernel& k, int at, KernelExpr e) {
  for (KernelExpr& x : k.exprs)
    for (int& o : x.operands)
      if (o >= at) ++o;
  for (KernelOutput& out : k.outputs) {
    if (out.expr >= at) ++out.expr;
    if (out.scatter_at >= at) ++out.scatter_at;
  }
  for (int& node : k.indirect)
    if (node >= at) ++node;
  k.exprs.insert(k.exprs.begin() + at, std::move(e));
  return at;
}

// expr `at` times `factor`, used from then on by every later expr and output.
int scale_after(Kernel& k, int at, double factor) {
  const DType t = k.exprs[static_cast<size_t>(at)].dtype;
  const int c = insert_before(k, at + 1, make_constant(factor, t));
  const int product = insert_before(k, at + 2, make_elementwise(Op::Mul, {at, c}, t));
  for (size_t i = static_cast<size_t>(product) + 1; i < k.exprs.size(); ++i)
    for (int& o : k.exprs[i].operands)
      if (o == at) o = product;
  for (KernelOutput& out : k.outputs)
    if (out.expr == at) out.expr = product;
  return product;
}

// Rounds output expr `at` through bf16 and back.
void round_through_bf16(Kernel& k, int at) {
  KernelExpr down = make_elementwise(Op::Cast, {at}, DType::BF16);
  down.to = DType::BF16;
  const int d = insert_before(k, at + 1, down);
  KernelExpr up = make_elementwise(Op::Cast, {d}, DType::F32);
  up.to = DType::F32;
  const int u = insert_before(k, d + 1, up);
  for (KernelOutput& out : k.outputs)
    if (out.expr == at) out.expr = u;
}

// A site: applies the bug to expr `e` of kernel `k` and says what it did, or
// returns "" when that expr is not a site.
using Site = std::function<std::string(const KernelProgram&, Kernel&, int e)>;

struct Entry {
  Mutation mutation;
  Site site;
  bool on_outputs = false;  // sites are the kernel's outputs' exprs, not every expr
};

const std::vector<Entry>& entries() {
  static const std::vector<Entry> table = {
      {{"silu-slope", "a sigmoid's operand times 1.05 (SiLU computed as x * sigmoid(1.05 x))"},
       [](const KernelProgram&, Kernel& k, int e) -> std::string {
         const KernelExpr& x = k.exprs[static_cast<size_t>(e)];
         if (x.kind != KernelExpr::Kind::kElementwise || x.op != Op::Sigmoid || !real(x.dtype)) return "";
         const int operand = x.operands[0];
         const int c = insert_before(k, e, make_constant(1.05, x.dtype));
         const int product = insert_before(k, c + 1, make_elementwise(Op::Mul, {operand, c}, k.exprs[static_cast<size_t>(c)].dtype));
         k.exprs[static_cast<size_t>(product) + 1].operands[0] = product;
         return "sigmoid operand x 1.05";
       }},
      {{"constant-1pct", "a literal constant (|c| >= 0.01) off by 1 %"},
       [](const KernelProgram&, Kernel& k, int e) -> std::string {
         KernelExpr& x = k.exprs[static_cast<size_t>(e)];
         if (x.kind != KernelExpr::Kind::kConstant || !real(x.dtype) || std::fabs(x.value) < 0.01) return "";
         const double before = x.value;
         x.value *= 1.01;
         return "constant " + std::to_string(before) + " x 1.01";
       }},
      {{"output-0.1pct", "a stored value off by 0.1 %"},
       [](const KernelProgram&, Kernel& k, int e) -> std::string {
         if (!real(k.exprs[static_cast<size_t>(e)].dtype)) return "";
         scale_after(k, e, 1.001);
         return "stored value x 1.001";
       },
       true},
      {{"index-off-by-one", "a load's innermost index shifted by one (modulo the extent)"},
       [](const KernelProgram& p, Kernel& k, int e) -> std::string {
         KernelExpr& x = k.exprs[static_cast<size_t>(e)];
         if (x.kind != KernelExpr::Kind::kLoad || x.index.empty()) return "";
         const int64_t extent = p.buffers[static_cast<size_t>(x.buffer)].type.shape.back();
         if (extent < 2 || k.indices.vars_used(x.index.back()) == 0) return "";
         x.index.back() = k.indices.mod(k.indices.add(x.index.back(), k.indices.constant(1)), k.indices.constant(extent));
         return "load of " + p.buffers[static_cast<size_t>(x.buffer)].name + ": innermost index + 1";
       }},
      {{"mask-last", "a load masked off (its pad value read) at the last index of the kernel's innermost axis"},
       [](const KernelProgram& p, Kernel& k, int e) -> std::string {
         KernelExpr& x = k.exprs[static_cast<size_t>(e)];
         if (x.kind != KernelExpr::Kind::kLoad || !real(x.dtype) || k.space.empty() || k.space.back() < 2) return "";
         const int axis = static_cast<int>(k.space.size()) - 1;
         const IndexRef inside = k.indices.lt(k.indices.var(axis), k.indices.constant(k.space.back() - 1));
         x.valid = x.valid == kNoIndex ? inside : k.indices.logical_and(x.valid, inside);
         return "load of " + p.buffers[static_cast<size_t>(x.buffer)].name + " masked at the last index";
       }},
      {{"reduce-drop-last", "a sum or max that drops its last term"},
       [](const KernelProgram&, Kernel& k, int e) -> std::string {
         const KernelExpr& x = k.exprs[static_cast<size_t>(e)];
         if (x.kind != KernelExpr::Kind::kReduce || k.reduction.empty() || k.reduction.back() < 2) return "";
         --k.reduction.back();
         return "reduction's last step dropped";
       }},
      {{"bf16-round", "an f32 value stored after rounding through bf16 (a lost precision)"},
       [](const KernelProgram&, Kernel& k, int e) -> std::string {
         if (k.exprs[static_cast<size_t>(e)].dtype != DType::F32) return "";
         round_through_bf16(k, e);
         return "stored value rounded through bf16";
       },
       true},
      {{"pad-value", "a masked load's pad value off by one (a wrong padding)"},
       [](const KernelProgram& p, Kernel& k, int e) -> std::string {
         KernelExpr& x = k.exprs[static_cast<size_t>(e)];
         if (x.kind != KernelExpr::Kind::kLoad || x.valid == kNoIndex || !real(x.dtype)) return "";
         x.value += 1;
         return "load of " + p.buffers[static_cast<size_t>(x.buffer)].name + ": pad value + 1";
       }},
      {{"relu-leak", "relu(x) computed as max(x, 0.01 x)"},
       [](const KernelProgram&, Kernel& k, int e) -> std::string {
         const KernelExpr& x = k.exprs[static_cast<size_t>(e)];
         if (x.kind != KernelExpr::Kind::kElementwise || x.op != Op::Relu || !real(x.dtype)) return "";
         const int operand = x.operands[0];
         const DType t = x.dtype;
         const int c = insert_before(k, e, make_constant(0.01, t));
         const int product = insert_before(k, c + 1, make_elementwise(Op::Mul, {operand, c}, t));
         KernelExpr& relu = k.exprs[static_cast<size_t>(product) + 1];
         relu.op = Op::Max;
         relu.operands = {operand, product};
         return "relu -> max(x, 0.01 x)";
       }},
      {{"input-1pct", "a load of a graph input off by 1 %"},
       [](const KernelProgram& p, Kernel& k, int e) -> std::string {
         const KernelExpr& x = k.exprs[static_cast<size_t>(e)];
         if (x.kind != KernelExpr::Kind::kLoad || !real(x.dtype) ||
             p.buffers[static_cast<size_t>(x.buffer)].kind != BufferKind::kInput)
           return "";
         const std::string name = p.buffers[static_cast<size_t>(x.buffer)].name;
         scale_after(k, e, 1.01);
         return "load of input " + name + " x 1.01";
       }},
  };
  return table;
}

}  // namespace

const std::vector<Mutation>& mutations() {
  static const std::vector<Mutation> list = [] {
    std::vector<Mutation> out;
    for (const Entry& entry : entries()) out.push_back(entry.mutation);
    return out;
  }();
  return list;
}

std::string mutate(KernelProgram& program, std::string_view name) {
  for (const Entry& entry : entries()) {
    if (entry.mutation.name != name) continue;
    for (size_t ki = program.kernels.size(); ki-- > 0;) {
      Kernel& k = program.kernels[ki];
      std::vector<int> sites;
      if (entry.on_outputs) {
        for (const KernelOutput& out : k.outputs) sites.push_back(out.expr);
      } else {
        for (int e = 0; e < static_cast<int>(k.exprs.size()); ++e) sites.push_back(e);
      }
      for (size_t s = sites.size(); s-- > 0;) {
        const std::string what = entry.site(program, k, sites[s]);
        if (!what.empty()) {
          validate(program);
          return "kernel " + std::to_string(ki) + " '" + k.name + "': " + what;
        }
      }
    }
    return "";
  }
  std::string known;
  for (const Mutation& m : mutations()) known += (known.empty() ? "" : ", ") + std::string(m.name);
  throw std::invalid_argument("unknown mutation '" + std::string(name) + "' (" + known + ")");
}

}  // namespace smelt::kernel
