#include "kernel/index_expr.h"

#include <algorithm>
#include <stdexcept>

namespace smelt::kernel {

size_t IndexPool::NodeHash::operator()(const Node& n) const {
  size_t h = static_cast<size_t>(n.kind) * 0x9e3779b97f4a7c15ull;
  for (int64_t part : {n.value, int64_t{n.a}, int64_t{n.b}, int64_t{n.c}})
    h = (h ^ static_cast<size_t>(part)) * 0x100000001b3ull;
  return h;
}

IndexRef IndexPool::intern(Node n) {
  auto [it, inserted] = index_.emplace(n, static_cast<IndexRef>(nodes_.size()));
  if (inserted) {
    nodes_.push_back(n);
    vars_used_.push_back(n.kind == Kind::kVar ? uint64_t{1} << std::min<int64_t>(n.value, 63)
                                              : vars_used(n.a) | vars_used(n.b) | vars_used(n.c));
    depth_.push_back(1 + std::max({depth(n.a), depth(n.b), depth(n.c)}));
  }
  return it->second;
}

void IndexPool::append_conjuncts(IndexRef r, std::vector<IndexRef>& out) const {
  if (r == kNoIndex) return;
  std::vector<IndexRef> pending{r};  // a stack: a kAnd's b below its a, so leaves come left to right
  while (!pending.empty()) {
    const IndexRef at = pending.back();
    pending.pop_back();
    const Node& n = node(at);
    if (n.kind == Kind::kAnd) {
      pending.insert(pending.end(), {n.b, n.a});
    } else if (std::find(out.begin(), out.end(), at) == out.end()) {
      out.push_back(at);
    }
  }
}

std::optional<int64_t> IndexPool::coefficient(IndexRef r, int var) const {
  if (r == kNoIndex || !(vars_used(r) >> var & 1)) return 0;
  const Node& n = node(r);
  switch (n.kind) {
    case Kind::kVar: return n.value == var ? 1 : 0;
    case Kind::kConst: return 0;
    case Kind::kAdd:
    case Kind::kSub: {
      const std::optional<int64_t> a = coefficient(n.a, var), b = coefficient(n.b, var);
      if (!a || !b) return std::nullopt;
      return n.kind == Kind::kAdd ? *a + *b : *a - *b;
    }
    case Kind::kMul: {
      const bool a_has = vars_used(n.a) >> var & 1, b_has = vars_used(n.b) >> var & 1;
      if (a_has && b_has) return std::nullopt;
      const IndexRef scale = a_has ? n.b : n.a;
      if (node(scale).kind != Kind::kConst) return std::nullopt;
      const std::optional<int64_t> c = coefficient(a_has ? n.a : n.b, var);
      if (!c) return std::nullopt;
      return *c * node(scale).value;
    }
    default: return std::nullopt;
  }
}

IndexRef IndexPool::flattened_pair(IndexRef high, IndexRef low, int64_t low_extent) const {
  if (high == kNoIndex || low == kNoIndex) return kNoIndex;
  const Node& h = node(high);
  const Node& l = node(low);
  if (h.kind != Kind::kFloorDiv || l.kind != Kind::kMod || h.a != l.a || h.b != l.b) return kNoIndex;
  return is_const(l.b, low_extent) && low_extent > 0 ? l.a : kNoIndex;
}

std::pair<IndexRef, int64_t> IndexPool::base_and_offset(IndexRef r) const {
  int64_t offset = 0;
  for (;;) {
    const Node& n = node(r);
    const bool add = n.kind == Kind::kAdd, sub = n.kind == Kind::kSub;
    if ((add || sub) && node(n.b).kind == Kind::kConst) {
      offset += add ? node(n.b).value : -node(n.b).value;
      r = n.a;
    } else if (add && node(n.a).kind == Kind::kConst) {
      offset += node(n.a).value;
      r = n.b;
    } else {
      return {r, offset};
    }
  }
}

bool IndexPool::is_const(IndexRef r, int64_t v) const {
  return r != kNoIndex && node(r).kind == Kind::kConst && node(r).value == v;
}

namespace {
int64_t floor_div_values(int64_t a, int64_t b) {
  if (b == 0) throw std::domain_error("index expression divides by zero");
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
int64_t mod_values(int64_t a, int64_t b) { return a - floor_div_values(a, b) * b; }
}  // namespace

IndexRef IndexPool::constant(int64_t v) { return intern({Kind::kConst, v}); }
IndexRef IndexPool::var(int number) { return intern({Kind::kVar, number}); }

// The builders fold constants and drop identities, so composed maps stay small
// even before the simplifier runs.
IndexRef IndexPool::add(IndexRef a, IndexRef b) {
  if (is_const(a, 0)) return b;
  if (is_const(b, 0)) return a;
  if (node(a).kind == Kind::kConst && node(b).kind == Kind::kConst)
    return constant(node(a).value + node(b).value);
  return intern({Kind::kAdd, 0, a, b});
}
IndexRef IndexPool::sub(IndexRef a, IndexRef b) {
  if (is_const(b, 0)) return a;
  if (a == b) return constant(0);
  if (node(a).kind == Kind::kConst && node(b).kind == Kind::kConst)
    return constant(node(a).value - node(b).value);
  return intern({Kind::kSub, 0, a, b});
}
IndexRef IndexPool::mul(IndexRef a, IndexRef b) {
  if (is_const(a, 0) || is_const(b, 0)) return constant(0);
  if (is_const(a, 1)) return b;
  if (is_const(b, 1)) return a;
  if (node(a).kind == Kind::kConst && node(b).kind == Kind::kConst)
    return constant(node(a).value * node(b).value);
  return intern({Kind::kMul, 0, a, b});
}
IndexRef IndexPool::floor_div(IndexRef a, IndexRef b) {
  if (is_const(b, 1)) return a;
  if (both_const(a, b) && node(b).value != 0) return constant(floor_div_values(node(a).value, node(b).value));
  return intern({Kind::kFloorDiv, 0, a, b});
}
IndexRef IndexPool::mod(IndexRef a, IndexRef b) {
  if (is_const(b, 1)) return constant(0);
  if (both_const(a, b) && node(b).value != 0) return constant(mod_values(node(a).value, node(b).value));
  return intern({Kind::kMod, 0, a, b});
}
IndexRef IndexPool::min(IndexRef a, IndexRef b) {
  if (both_const(a, b)) return constant(std::min(node(a).value, node(b).value));
  return a == b ? a : intern({Kind::kMin, 0, a, b});
}
IndexRef IndexPool::max(IndexRef a, IndexRef b) {
  if (both_const(a, b)) return constant(std::max(node(a).value, node(b).value));
  return a == b ? a : intern({Kind::kMax, 0, a, b});
}
IndexRef IndexPool::select(IndexRef cond, IndexRef a, IndexRef b) {
  if (cond == kNoIndex || a == b) return a;
  if (node(cond).kind == Kind::kConst) return node(cond).value != 0 ? a : b;
  return intern({Kind::kSelect, 0, cond, a, b});
}
// Comparisons and logic of constants fold to 0 / 1: a concat's branch masks
// at an index a slice made constant (`(4 <= 1) && (1 < 5)`, a member of six
// batched towers) become plain false / true, which the kernel builder reads to
// drop the branches never taken (fusion/kernelize.cpp).
IndexRef IndexPool::lt(IndexRef a, IndexRef b) {
  if (both_const(a, b)) return constant(node(a).value < node(b).value ? 1 : 0);
  return intern({Kind::kLt, 0, a, b});
}
IndexRef IndexPool::le(IndexRef a, IndexRef b) {
  if (both_const(a, b)) return constant(node(a).value <= node(b).value ? 1 : 0);
  return intern({Kind::kLe, 0, a, b});
}
IndexRef IndexPool::eq(IndexRef a, IndexRef b) {
  if (both_const(a, b)) return constant(node(a).value == node(b).value ? 1 : 0);
  return intern({Kind::kEq, 0, a, b});
}
// Shortcuts that return an operand itself are only taken when that operand is
// already 0/1, so and/or always yield a truth value.
bool IndexPool::is_boolean(IndexRef r) const {
  if (r == kNoIndex) return true;
  const Node& n = node(r);
  switch (n.kind) {
    case Kind::kLt: case Kind::kLe: case Kind::kEq: case Kind::kAnd: case Kind::kOr: case Kind::kNot: return true;
    case Kind::kConst: return n.value == 0 || n.value == 1;
    default: return false;
  }
}
bool IndexPool::both_const(IndexRef a, IndexRef b) const {
  return a != kNoIndex && b != kNoIndex && node(a).kind == Kind::kConst && node(b).kind == Kind::kConst;
}
IndexRef IndexPool::logical_and(IndexRef a, IndexRef b) {
  if (is_const(a, 0) || is_const(b, 0)) return constant(0);
  if ((a == kNoIndex || is_const(a, 1)) && is_boolean(b)) return b;
  if ((b == kNoIndex || is_const(b, 1)) && is_boolean(a)) return a;
  if (a == b && is_boolean(a)) return a;
  if (a == kNoIndex) a = constant(1);
  if (b == kNoIndex) b = constant(1);
  if (both_const(a, b)) return constant(node(a).value != 0 && node(b).value != 0 ? 1 : 0);
  return intern({Kind::kAnd, 0, a, b});
}
IndexRef IndexPool::logical_or(IndexRef a, IndexRef b) {
  if (a == kNoIndex || b == kNoIndex) return kNoIndex;
  if (is_const(a, 0) && is_boolean(b)) return b;
  if (is_const(b, 0) && is_boolean(a)) return a;
  if (a == b && is_boolean(a)) return a;
  if (both_const(a, b)) return constant(node(a).value != 0 || node(b).value != 0 ? 1 : 0);
  return intern({Kind::kOr, 0, a, b});
}
IndexRef IndexPool::logical_not(IndexRef a) {
  if (a == kNoIndex) return constant(0);
  if (node(a).kind == Kind::kConst) return constant(node(a).value == 0 ? 1 : 0);
  return intern({Kind::kNot, 0, a});
}


int64_t IndexPool::eval(IndexRef r, std::span<const int64_t> vars) const {
  if (r == kNoIndex) return 1;
  const Node& n = node(r);
  switch (n.kind) {
    case Kind::kConst: return n.value;
    case Kind::kVar: return vars[static_cast<size_t>(n.value)];
    case Kind::kAdd: return eval(n.a, vars) + eval(n.b, vars);
    case Kind::kSub: return eval(n.a, vars) - eval(n.b, vars);
    case Kind::kMul: return eval(n.a, vars) * eval(n.b, vars);
    case Kind::kFloorDiv: return floor_div_values(eval(n.a, vars), eval(n.b, vars));
    case Kind::kMod: return mod_values(eval(n.a, vars), eval(n.b, vars));
    case Kind::kMin: return std::min(eval(n.a, vars), eval(n.b, vars));
    case Kind::kMax: return std::max(eval(n.a, vars), eval(n.b, vars));
    case Kind::kSelect: return eval(n.a, vars) ? eval(n.b, vars) : eval(n.c, vars);
    case Kind::kLt: return eval(n.a, vars) < eval(n.b, vars);
    case Kind::kLe: return eval(n.a, vars) <= eval(n.b, vars);
    case Kind::kEq: return eval(n.a, vars) == eval(n.b, vars);
    case Kind::kAnd: return eval(n.a, vars) && eval(n.b, vars);
    case Kind::kOr: return eval(n.a, vars) || eval(n.b, vars);
    case Kind::kNot: return !eval(n.a, vars);
  }
  return 0;
}

std::string IndexPool::str(IndexRef r, std::span<const std::string> var_names) const {
  if (r == kNoIndex) return "true";
  const Node& n = node(r);
  auto bin = [&](const char* op) { return "(" + str(n.a, var_names) + " " + op + " " + str(n.b, var_names) + ")"; };
  auto call = [&](const char* f) { return std::string(f) + "(" + str(n.a, var_names) + ", " + str(n.b, var_names) + ")"; };
  switch (n.kind) {
    case Kind::kConst: return std::to_string(n.value);
    case Kind::kVar:
      return static_cast<size_t>(n.value) < var_names.size() ? var_names[n.value]
                                                             : "v" + std::to_string(n.value);
    case Kind::kAdd: return bin("+");
    case Kind::kSub: return bin("-");
    case Kind::kMul: return bin("*");
    case Kind::kFloorDiv: return bin("/");
    case Kind::kMod: return bin("%");
    case Kind::kMin: return call("min");
    case Kind::kMax: return call("max");
    case Kind::kSelect:
      return "(" + str(n.a, var_names) + " ? " + str(n.b, var_names) + " : " + str(n.c, var_names) + ")";
    case Kind::kLt: return bin("<");
    case Kind::kLe: return bin("<=");
    case Kind::kEq: return bin("==");
    case Kind::kAnd: return bin("&&");
    case Kind::kOr: return bin("||");
    case Kind::kNot: return "!" + str(n.a, var_names);
  }
  return "?";
}

}  // namespace smelt::kernel
