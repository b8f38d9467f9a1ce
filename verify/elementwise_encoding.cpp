// Elementwise ops (concrete and op variables) and factories.
#include "verify/op_encoders.h"
#include "verify/row_major.h"
#include "verify/term_attrs.h"

namespace smelt::verify {

z3::expr is_float_dtype(const z3::expr& d) {
  return d == static_cast<int>(ir::DType::F32) || d == static_cast<int>(ir::DType::F16) ||
         d == static_cast<int>(ir::DType::BF16);
}
z3::expr is_numeric_dtype(const z3::expr& d) { return d != static_cast<int>(ir::DType::Bool); }
z3::expr bool_dtype(z3::context& ctx) { return ctx.int_val(static_cast<int>(ir::DType::Bool)); }

void require_same_shape(EncodingState& s, Side side, const std::vector<z3::expr>& a,
                        const std::vector<z3::expr>& b, const std::string& what) {
  s.require_static(side, a.size() == b.size(), what + " (ranks " + std::to_string(a.size()) + " and " +
                                                   std::to_string(b.size()) + ")");
  if (a.size() != b.size()) return;
  for (size_t i = 0; i < a.size(); ++i) s.require(side, a[i] == b[i], what);
}

namespace {

enum class DTypeRule { kNumeric, kFloat, kCompare, kEq, kWhere };

DTypeRule dtype_rule(ir::Op op) {
  switch (op) {
    case ir::Op::Neg: case ir::Op::Abs: case ir::Op::Relu:
    case ir::Op::Add: case ir::Op::Sub: case ir::Op::Mul: case ir::Op::Div:
    case ir::Op::Max: case ir::Op::Min:
      return DTypeRule::kNumeric;
    case ir::Op::Lt: case ir::Op::Le: return DTypeRule::kCompare;
    case ir::Op::Eq: return DTypeRule::kEq;
    case ir::Op::Where: return DTypeRule::kWhere;
    default: return DTypeRule::kFloat;  // transcendental ops and pow
  }
}

std::vector<z3::expr> values_at(const Operands& x, const std::vector<z3::expr>& idx) {
  std::vector<z3::expr> v;
  for (const SymTensor& t : x) v.push_back(t.at(idx));
  return v;
}

// Elementwise ops keep the row-major order of their (equally shaped) operands.
std::vector<z3::expr> values_at_flat(IntArith& arith, const Operands& x, const z3::expr& flat) {
  std::vector<z3::expr> v;
  for (const SymTensor& t : x) v.push_back(element_at_flat(arith, t, flat));
  return v;
}

}  // namespace

SymTensor encode_elementwise(EncodingState& s, const rules::Term& t, Side side, const Operands& x) {
  TermAttrs attrs(s, t, side);
  std::string where = attrs.where();
  for (size_t i = 1; i < x.size(); ++i)
    require_same_shape(s, side, x[0].shape, x[i].shape, where + ": operands have equal shapes");
  ValueDomain& values = s.values;
  if (t.op == ir::Op::Cast) {
    z3::expr to = attrs.scalar("to", AttrKind::kDType);
    SymTensor a = x[0];
    IntArith& arith = s.arith;
    return {a.shape, to,
            [&values, a, to](const std::vector<z3::expr>& idx) { return values.cast(a.dtype, to, a.at(idx)); },
            [&values, &arith, a, to](const z3::expr& flat) {
              return values.cast(a.dtype, to, element_at_flat(arith, a, flat));
            }};
  }
  z3::expr d = x[0].dtype;
  switch (dtype_rule(t.op)) {
    case DTypeRule::kNumeric: s.require(side, is_numeric_dtype(d), where + ": numeric dtype"); break;
    case DTypeRule::kFloat: s.require(side, is_float_dtype(d), where + ": float dtype"); break;
    case DTypeRule::kCompare:
      s.require(side, is_numeric_dtype(d), where + ": numeric dtype");
      d = bool_dtype(s.ctx);
      break;
    case DTypeRule::kEq: d = bool_dtype(s.ctx); break;
    case DTypeRule::kWhere:
      s.require(side, x[0].dtype == bool_dtype(s.ctx), where + ": the condition is bool");
      s.require(side, x[1].dtype == x[2].dtype, where + ": both branches have one dtype");
      d = x[1].dtype;
      break;
  }
  if (t.op != ir::Op::Where)
    for (size_t i = 1; i < x.size(); ++i)
      s.require(side, x[i].dtype == x[0].dtype, where + ": operands have one dtype");
  ir::Op op = t.op;
  // The op computes in its operands' dtype (the branches' for where).
  z3::expr in = t.op == ir::Op::Where ? x[1].dtype : x[0].dtype;
  IntArith& arith = s.arith;
  return {x[0].shape, d,
          [&values, op, in, x](const std::vector<z3::expr>& idx) { return values.apply(op, in, values_at(x, idx)); },
          [&values, &arith, op, in, x](const z3::expr& flat) {
            return values.apply(op, in, values_at_flat(arith, x, flat));
          }};
}

SymTensor encode_op_var(EncodingState& s, const rules::Term& t, Side side, const Operands& x) {
  OpVarInfo& info = s.op_vars.at(t.op_var);
  if (side == Side::kLhs && info.dtypes.empty())
    for (const SymTensor& a : x) info.dtypes.push_back(a.dtype);
  if (info.op) {
    if (*info.op == ir::Op::Cast) throw Unsupported(t.op_var + " is cast, whose target dtype is not visible");
    rules::Term concrete = t;
    concrete.kind = rules::Term::Kind::kOp;
    concrete.op = *info.op;
    return encode_elementwise(s, concrete, side, x);
  }
  std::string where = t.op_var + " at " + pos_text(t.pos);
  for (size_t i = 1; i < x.size(); ++i)
    require_same_shape(s, side, x[0].shape, x[i].shape, where + ": operands have equal shapes");
  std::vector<z3::expr> dtypes;
  for (const SymTensor& a : x) dtypes.push_back(a.dtype);
  // Whether the op accepts these dtypes is as open as the op itself.
  s.require(side, s.values.var_accepts(t.op_var, dtypes), where + ": the op accepts these dtypes");
  auto is = [&](ir::Op op) { return op_var_is(s.ctx, t.op_var, op); };
  if (side == Side::kLhs && !info.constrained) {
    // It is exactly one of the elementwise ops with its operand count.
    std::vector<z3::expr> options;
    for (int k = 0; k < ir::kNumOps; ++k) {
      auto op = static_cast<ir::Op>(k);
      if (ir::op_class(op) == ir::OpClass::Elementwise && ir::op_info(op).arity == static_cast<int>(x.size()))
        options.push_back(is(op));
    }
    z3::expr_vector v(s.ctx);
    for (const z3::expr& o : options) v.push_back(o);
    s.assumptions.push_back(z3::atleast(v, 1) && z3::atmost(v, 1));
    info.constrained = true;
  }
  // The result dtype, as ir/ops.cpp infers it: cast gives its target, the
  // comparisons bool, where its branches' dtype, every other op its operand's.
  z3::expr dtype = x[0].dtype;
  if (x.size() == 1) dtype = z3::ite(is(ir::Op::Cast), s.params.get(t.op_var + ".to", ParamKind::kDType), dtype);
  if (x.size() == 2) dtype = z3::ite(is(ir::Op::Lt) || is(ir::Op::Le) || is(ir::Op::Eq), bool_dtype(s.ctx), dtype);
  if (x.size() == 3) dtype = x[1].dtype;
  ValueDomain& values = s.values;
  std::string name = t.op_var;
  IntArith& arith = s.arith;
  return {x[0].shape, dtype,
          [&values, name, dtypes, x](const std::vector<z3::expr>& idx) {
            return values.apply_var(name, dtypes, values_at(x, idx));
          },
          [&values, &arith, name, dtypes, x](const z3::expr& flat) {
            return values.apply_var(name, dtypes, values_at_flat(arith, x, flat));
          }};
}

SymTensor encode_factory(EncodingState& s, const rules::Term& t, Side side) {
  TermAttrs attrs(s, t, side);
  if (t.op == ir::Op::Constant) throw Unsupported("constant (a literal tensor) in a rule");
  AttrValue shape = attrs.free_list("shape", ParamKind::kExtent, 1, s.max_rank);
  for (const z3::expr& n : shape.items) s.require(side, n >= 0, attrs.where() + ": extents >= 0");
  z3::expr dtype = attrs.scalar("dtype", AttrKind::kDType);
  if (t.op == ir::Op::Full) {
    z3::expr value = attrs.element("value", dtype);
    return {shape.items, dtype, [value](const std::vector<z3::expr>&) { return value; },
            [value](const z3::expr&) { return value; }};
  }
  // iota: the index along `axis`.
  int64_t rank = static_cast<int64_t>(shape.items.size());
  s.require_static(side, rank > 0, attrs.where() + ": iota has an axis (rank >= 1)");
  int64_t axis = attrs.structural_int("axis", 0, rank - 1);
  s.require(side, is_numeric_dtype(dtype), attrs.where() + ": numeric dtype");
  ValueDomain& values = s.values;
  return {shape.items, dtype, [&values, axis, dtype](const std::vector<z3::expr>& idx) {
            return values.element(dtype, values.from_int(idx[static_cast<size_t>(axis)]));
          }};
}

}  // namespace smelt::verify
