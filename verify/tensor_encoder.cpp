#include "verify/tensor_encoder.h"

#include "verify/z3_expr.h"
#include "verify/op_encoders.h"
#include "verify/row_major.h"

namespace smelt::verify {
namespace {

// A tensor whose elements are an uninterpreted function (of the flat index
// where variables are flat).
SymTensor unknown_elements(EncodingState& s, const std::string& name, const std::vector<z3::expr>& shape,
                           const z3::expr& dtype) {
  const size_t rank = shape.size();
  if (s.flat_vars) {
    // A function of the row-major flat index, so that reshapes compare syntactically.
    z3::func_decl f = z3::function((name + ".flat").c_str(), s.ctx.int_sort(), s.values.sort());
    IntArith& arith = s.arith;
    return {shape, dtype,
            [f, &arith, shape](const std::vector<z3::expr>& idx) { return f(linearize(arith, idx, shape)); },
            [f](const z3::expr& flat) { return f(flat); }};
  }
  z3::sort_vector domain(s.ctx);
  for (size_t k = 0; k < rank; ++k) domain.push_back(s.ctx.int_sort());
  z3::func_decl f = z3::function(name.c_str(), domain, s.values.sort());
  return {shape, dtype, [f](const std::vector<z3::expr>& idx) {
            z3::expr_vector args(f.ctx());
            for (const z3::expr& i : idx) args.push_back(i);
            return f(args);
          }};
}

SymTensor tensor_variable(EncodingState& s, const std::string& name) {
  // A variable tied to another takes its rank: one choice for the two.
  const auto tie = s.tied_ranks.find(name);
  const std::string& rank_var = tie == s.tied_ranks.end() ? name : tie->second;
  std::vector<std::vector<int64_t>> ranks;
  for (int r = 1; r <= s.max_rank; ++r)
    if (auto fixed = s.fixed_ranks.find(rank_var); fixed == s.fixed_ranks.end() || fixed->second == r)
      ranks.push_back({r});
  auto rank = static_cast<size_t>(s.params.choose("rank " + rank_var, ranks)[0]);
  std::vector<z3::expr> shape;
  for (size_t k = 0; k < rank; ++k)
    shape.push_back(s.params.get(name + ".shape[" + std::to_string(k) + "]", ParamKind::kExtent));
  z3::expr dtype = s.params.get(name + ".dtype", ParamKind::kDType);
  if (s.const_tensors.count(name)) {
    z3::expr c = s.values.element(dtype, const_value(s, name));
    return {shape, dtype, [c](const std::vector<z3::expr>&) { return c; }, [c](const z3::expr&) { return c; }};
  }
  return unknown_elements(s, name, shape, dtype);
}

// A member lemma's block (rules/group_template.h): member k's shape with
// `count` times its extent along the axis, member k's dtype, any elements.
SymTensor member_block(EncodingState& s, const rules::MemberBlock& b) {
  const auto member = s.tensors.find(b.member);
  const auto count = s.attrs.find(b.count);
  if (member == s.tensors.end() || count == s.attrs.end())
    throw Unsupported("member block " + b.name + " before " + b.member + " or " + b.count);
  std::vector<z3::expr> shape = member->second.shape;
  const auto axis = static_cast<size_t>(b.axis);
  if (axis >= shape.size()) throw StaticFailure{b.name + ": the concat's axis is out of range"};
  shape[axis] = s.arith.mul(count->second.items[0], shape[axis]);
  return unknown_elements(s, b.name, shape, member->second.dtype);
}

}  // namespace

SymTensor encode_term(EncodingState& s, const rules::Term& t, Side side) {
  if (t.kind == rules::Term::Kind::kVar) {
    if (auto it = s.tensors.find(t.var); it != s.tensors.end()) return it->second;
    if (side == Side::kRhs) {
      if (s.rule.group)
        for (const rules::MemberBlock& b : s.rule.group->blocks)
          if (b.name == t.var) return s.tensors.emplace(t.var, member_block(s, b)).first->second;
      throw Unsupported("tensor variable " + t.var + " has no value");
    }
    return s.tensors.emplace(t.var, tensor_variable(s, t.var)).first->second;
  }
  Operands x;
  for (const rules::Term& o : t.operands) x.push_back(encode_term(s, o, side));
  if (t.kind == rules::Term::Kind::kOpVar) return encode_op_var(s, t, side, x);
  switch (ir::op_class(t.op)) {
    case ir::OpClass::Source: throw Unsupported("input in a rule");
    case ir::OpClass::Factory: return encode_factory(s, t, side);
    case ir::OpClass::Elementwise: return encode_elementwise(s, t, side, x);
    case ir::OpClass::Reduction: return encode_reduce(s, t, side, x[0]);
    case ir::OpClass::Contraction:
      if (t.op == ir::Op::Conv) return encode_conv(s, t, side, x[0], x[1]);
      return encode_matmul(s, t, side, x[0], x[1]);
    case ir::OpClass::Indexed: return encode_gather(s, t, side, x[0], x[1]);
    case ir::OpClass::Scatter: throw Unsupported("a scatter in a rule (no rule rewrites scatters)");
    case ir::OpClass::View: break;
  }
  switch (t.op) {
    case ir::Op::Slice: return encode_slice(s, t, side, x[0]);
    case ir::Op::Pad: return encode_pad(s, t, side, x[0]);
    case ir::Op::Broadcast: return encode_broadcast(s, t, side, x[0]);
    case ir::Op::Reshape: return encode_reshape(s, t, side, x[0]);
    case ir::Op::Permute: return encode_permute(s, t, side, x[0]);
    case ir::Op::Concat: return encode_concat(s, t, side, x);
    default: break;
  }
  throw Unsupported("op " + std::string(ir::op_name(t.op)));
}

}  // namespace smelt::verify
