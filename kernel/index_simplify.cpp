#include "kernel/index_simplify.h"

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <unordered_map>

namespace smelt::kernel {

using namespace ir;  // the graph IR's vocabulary: dtypes, shapes, ops, scalars, host tensors
namespace {

using Kind = IndexPool::Kind;
__extension__ using Wide = __int128;  // products of two int64 bounds fit
constexpr int64_t kNegInf = IndexRange::kNegInf, kPosInf = IndexRange::kPosInf;
constexpr IndexRange kUnbounded{};
constexpr IndexRange kBoolRange{0, 1};

// Thrown when a coefficient or constant would overflow int64: the expression
// being simplified is then kept as it was.
struct Overflow {};

int64_t checked_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) throw Overflow{};
  return r;
}
int64_t checked_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw Overflow{};
  return r;
}

// Floor division and modulo of finite values (b ≠ 0, no INT64_MIN / −1).
int64_t floor_div_int(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
int64_t floor_mod_int(int64_t a, int64_t b) { return a - floor_div_int(a, b) * b; }

// ---- bounds: finite int64 values or ±∞ ----
bool infinite(int64_t b) { return b == kNegInf || b == kPosInf; }
int64_t clamp_bound(Wide v) {
  if (v <= kNegInf) return kNegInf;
  if (v >= kPosInf) return kPosInf;
  return static_cast<int64_t>(v);
}
// a + b for two lower bounds or two upper bounds (never −∞ + +∞).
int64_t add_bounds(int64_t a, int64_t b) {
  if (infinite(a)) return a;
  if (infinite(b)) return b;
  return clamp_bound(Wide(a) + b);
}
int64_t negate_bound(int64_t b) {
  if (b == kNegInf) return kPosInf;
  if (b == kPosInf) return kNegInf;
  return -b;
}
int64_t mul_bounds(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  if (infinite(a) || infinite(b)) return ((a < 0) != (b < 0)) ? kNegInf : kPosInf;
  return clamp_bound(Wide(a) * b);
}
// floor(a / c) for a bound a and a finite divisor c ≠ 0.
int64_t floor_div_bound(int64_t a, int64_t c) {
  if (infinite(a)) return ((a < 0) != (c < 0)) ? kNegInf : kPosInf;
  if (c == -1) return negate_bound(a);
  return floor_div_int(a, c);
}

IndexRange range_add(IndexRange a, IndexRange b) { return {add_bounds(a.lo, b.lo), add_bounds(a.hi, b.hi)}; }
IndexRange range_negate(IndexRange a) { return {negate_bound(a.hi), negate_bound(a.lo)}; }
IndexRange range_scale(IndexRange a, int64_t c) {
  return c >= 0 ? IndexRange{mul_bounds(a.lo, c), mul_bounds(a.hi, c)}
                : IndexRange{mul_bounds(a.hi, c), mul_bounds(a.lo, c)};
}
IndexRange range_mul(IndexRange a, IndexRange b) {
  const int64_t p[] = {mul_bounds(a.lo, b.lo), mul_bounds(a.lo, b.hi), mul_bounds(a.hi, b.lo), mul_bounds(a.hi, b.hi)};
  return {*std::min_element(p, p + 4), *std::max_element(p, p + 4)};
}
IndexRange range_hull(IndexRange a, IndexRange b) { return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)}; }

// floor(a / d): monotone in a, and in d on each side of 0, so the extremes lie
// at the corners (with d → ∞ giving 0 or −1).
IndexRange range_floor_div(IndexRange a, IndexRange d) {
  if (d.hi < 0) return range_floor_div(range_negate(a), range_negate(d));  // floor(a/d) = floor(−a/−d)
  if (d.lo <= 0) return kUnbounded;
  std::vector<int64_t> corners{floor_div_bound(a.lo, d.lo), floor_div_bound(a.hi, d.lo)};
  for (int64_t end : {a.lo, a.hi}) {
    if (infinite(d.hi)) corners.push_back(infinite(end) ? end : (end < 0 ? -1 : 0));
    else corners.push_back(floor_div_bound(end, d.hi));
  }
  return {*std::min_element(corners.begin(), corners.end()), *std::max_element(corners.begin(), corners.end())};
}
IndexRange range_mod(IndexRange a, IndexRange d) {
  if (d.is_single() && d.lo > 0 && !infinite(a.lo) && !infinite(a.hi) &&
      floor_div_int(a.lo, d.lo) == floor_div_int(a.hi, d.lo))
    return {floor_mod_int(a.lo, d.lo), floor_mod_int(a.hi, d.lo)};
  if (d.lo > 0) {
    if (a.lo >= 0 && a.hi < d.lo) return a;
    return {0, infinite(d.hi) ? kPosInf : d.hi - 1};
  }
  if (d.hi < 0) return {infinite(d.lo) ? kNegInf : d.lo + 1, 0};
  return kUnbounded;
}

// ---- decided truths ----
enum class Truth { kFalse, kTrue, kUnknown };
Truth truth_of(IndexRange r) {
  if (r.lo == 0 && r.hi == 0) return Truth::kFalse;
  if (r.lo > 0 || r.hi < 0) return Truth::kTrue;
  return Truth::kUnknown;
}
IndexRange range_of_truth(Truth t) {
  if (t == Truth::kTrue) return {1, 1};
  if (t == Truth::kFalse) return {0, 0};
  return kBoolRange;
}
// Is `d` (kind) 0, i.e. d < 0, d ≤ 0, d == 0, over the range of d?
Truth compare_with_zero(Kind kind, IndexRange d) {
  switch (kind) {
    case Kind::kLt:
      if (d.hi < 0) return Truth::kTrue;
      if (d.lo >= 0) return Truth::kFalse;
      break;
    case Kind::kLe:
      if (d.hi <= 0) return Truth::kTrue;
      if (d.lo > 0) return Truth::kFalse;
      break;
    default:  // kEq
      if (d.lo == 0 && d.hi == 0) return Truth::kTrue;
      if (d.lo > 0 || d.hi < 0) return Truth::kFalse;
      break;
  }
  return Truth::kUnknown;
}

// constant + Σ coefficient·atom; atoms are target-pool nodes, coefficients ≠ 0.
struct Linear {
  std::map<IndexRef, int64_t> terms;
  int64_t constant = 0;

  bool is_constant() const { return terms.empty(); }
  void add_term(IndexRef atom, int64_t k) {
    if (k == 0) return;
    int64_t& slot = terms[atom];
    slot = checked_add(slot, k);
    if (slot == 0) terms.erase(atom);
  }
  void add_scaled(const Linear& other, int64_t k) {
    constant = checked_add(constant, checked_mul(other.constant, k));
    for (auto [atom, c] : other.terms) add_term(atom, checked_mul(c, k));
  }
};

int64_t gcd_of(int64_t g, int64_t v) {
  return static_cast<int64_t>(std::gcd(static_cast<uint64_t>(g < 0 ? -g : g), static_cast<uint64_t>(v < 0 ? -v : v)));
}

}  // namespace

struct IndexSimplifier::Impl {
  const IndexPool& source;
  IndexPool& target;
  std::vector<IndexRange> vars;
  std::unordered_map<IndexRef, IndexRef> value_memo, truth_memo;  // source → target
  std::unordered_map<IndexRef, IndexRange> range_memo;           // target → range
  std::unordered_map<IndexRef, Linear> expanded_memo;            // target → mod-free form
  std::unordered_map<IndexRef, size_t> size_memo;                // target → tree size
  std::unordered_map<IndexRef, Linear> linear_memo;              // target → collected form
  std::unordered_map<IndexRef, bool> has_div_memo;               // target → contains a floor-div
  std::map<std::pair<IndexRef, int64_t>, IndexRef> div_memo, mod_memo;  // (x, c) → x / c, x % c
  static constexpr size_t kSizeCap = size_t{1} << 40;

  Impl(const IndexPool& s, IndexPool& t, std::vector<IndexRange> v) : source(s), target(t), vars(std::move(v)) {}

  // A copy: building nodes grows the pool, and a reference into it would dangle.
  IndexPool::Node node(IndexRef t) const { return target.node(t); }
  std::optional<int64_t> constant_of(IndexRef t) const {
    if (t != kNoIndex && node(t).kind == Kind::kConst) return node(t).value;
    return std::nullopt;
  }
  std::optional<int64_t> positive_divisor(IndexRef t) const {
    auto c = constant_of(t);
    if (c && *c > 0) return c;
    return std::nullopt;
  }

  // ---- ranges ----
  IndexRange var_range(int64_t number) const {
    return number >= 0 && static_cast<size_t>(number) < vars.size() ? vars[number] : kUnbounded;
  }

  IndexRange range(IndexRef t) {
    if (auto it = range_memo.find(t); it != range_memo.end()) return it->second;
    const IndexPool::Node& n = node(t);
    IndexRange r = kUnbounded;
    switch (n.kind) {
      case Kind::kConst: r = {n.value, n.value}; break;
      case Kind::kVar: r = var_range(n.value); break;
      case Kind::kAdd: r = range_add(range(n.a), range(n.b)); break;
      case Kind::kSub: r = range_add(range(n.a), range_negate(range(n.b))); break;
      case Kind::kMul: r = range_mul(range(n.a), range(n.b)); break;
      case Kind::kFloorDiv: r = range_floor_div(range(n.a), range(n.b)); break;
      case Kind::kMod: r = range_mod(range(n.a), range(n.b)); break;
      case Kind::kMin: {
        IndexRange a = range(n.a), b = range(n.b);
        r = {std::min(a.lo, b.lo), std::min(a.hi, b.hi)};
        break;
      }
      case Kind::kMax: {
        IndexRange a = range(n.a), b = range(n.b);
        r = {std::max(a.lo, b.lo), std::max(a.hi, b.hi)};
        break;
      }
      case Kind::kSelect:
        switch (truth_of(range(n.a))) {
          case Truth::kTrue: r = range(n.b); break;
          case Truth::kFalse: r = range(n.c); break;
          case Truth::kUnknown: r = range_hull(range(n.b), range(n.c)); break;
        }
        break;
      case Kind::kLt:
      case Kind::kLe:
      case Kind::kEq:
        r = range_of_truth(compare_with_zero(n.kind, range_add(range(n.a), range_negate(range(n.b)))));
        break;
      case Kind::kAnd: {
        Truth a = truth_of(range(n.a)), b = truth_of(range(n.b));
        r = range_of_truth(a == Truth::kFalse || b == Truth::kFalse  ? Truth::kFalse
                           : a == Truth::kTrue && b == Truth::kTrue ? Truth::kTrue
                                                                    : Truth::kUnknown);
        break;
      }
      case Kind::kOr: {
        Truth a = truth_of(range(n.a)), b = truth_of(range(n.b));
        r = range_of_truth(a == Truth::kTrue || b == Truth::kTrue     ? Truth::kTrue
                           : a == Truth::kFalse && b == Truth::kFalse ? Truth::kFalse
                                                                      : Truth::kUnknown);
        break;
      }
      case Kind::kNot: {
        Truth a = truth_of(range(n.a));
        r = range_of_truth(a == Truth::kTrue ? Truth::kFalse : a == Truth::kFalse ? Truth::kTrue : Truth::kUnknown);
        break;
      }
    }
    range_memo.emplace(t, r);
    return r;
  }

  IndexRange range(const Linear& l) {
    IndexRange r{l.constant, l.constant};
    for (auto [atom, k] : l.terms) r = range_add(r, range_scale(range(atom), k));
    return r;
  }

  // ---- linear forms ----
  // Memoized: a DAG whose sums share subterms is walked once per node.
  Linear linear(IndexRef t) {
    if (auto it = linear_memo.find(t); it != linear_memo.end()) return it->second;
    Linear l = compute_linear(t);
    linear_memo.emplace(t, l);
    return l;
  }
  Linear compute_linear(IndexRef t) {
    const IndexPool::Node& n = node(t);
    Linear l;
    switch (n.kind) {
      case Kind::kConst: l.constant = n.value; return l;
      case Kind::kAdd:
        l = linear(n.a);
        l.add_scaled(linear(n.b), 1);
        return l;
      case Kind::kSub:
        l = linear(n.a);
        l.add_scaled(linear(n.b), -1);
        return l;
      case Kind::kMul:
        if (auto c = constant_of(n.b)) {
          l.add_scaled(linear(n.a), *c);
          return l;
        }
        if (auto c = constant_of(n.a)) {
          l.add_scaled(linear(n.b), *c);
          return l;
        }
        break;
      default: break;
    }
    l.add_term(t, 1);
    return l;
  }

  // Variables first (by number), then the other atoms in pool order: sums
  // read "i0*4 + i1", and equal forms always build the same node.
  std::vector<std::pair<IndexRef, int64_t>> ordered_terms(const Linear& l) const {
    std::vector<std::pair<IndexRef, int64_t>> terms(l.terms.begin(), l.terms.end());
    auto key = [&](IndexRef atom) {
      const IndexPool::Node& n = node(atom);
      return n.kind == Kind::kVar ? std::pair<int, int64_t>{0, n.value} : std::pair<int, int64_t>{1, atom};
    };
    std::stable_sort(terms.begin(), terms.end(), [&](const auto& x, const auto& y) { return key(x.first) < key(y.first); });
    return terms;
  }

  // Positive terms first, then the negative ones subtracted, then the constant.
  IndexRef build(const Linear& l) {
    auto terms = ordered_terms(l);
    auto term_node = [&](IndexRef atom, int64_t magnitude) {
      return magnitude == 1 ? atom : target.mul(atom, target.constant(magnitude));
    };
    IndexRef sum = kNoIndex;
    for (auto [atom, k] : terms)
      if (k > 0) sum = sum == kNoIndex ? term_node(atom, k) : target.add(sum, term_node(atom, k));
    const bool constant_first = sum == kNoIndex;  // "3 - i0" when no term is positive
    if (constant_first) sum = target.constant(l.constant);
    for (auto [atom, k] : terms)
      if (k < 0) sum = target.sub(sum, term_node(atom, checked_mul(k, -1)));
    if (!constant_first) {
      if (l.constant > 0) sum = target.add(sum, target.constant(l.constant));
      if (l.constant < 0) sum = target.sub(sum, target.constant(checked_mul(l.constant, -1)));
    }
    return sum;
  }

  // Size of the expression as a tree (what a reader sees), saturating so that
  // a heavily shared DAG costs no more than a walk over its nodes.
  size_t tree_size(IndexRef t) {
    if (t == kNoIndex) return 0;
    if (auto it = size_memo.find(t); it != size_memo.end()) return it->second;
    const IndexPool::Node& n = node(t);
    const size_t size = std::min<size_t>(kSizeCap, 1 + tree_size(n.a) + tree_size(n.b) + tree_size(n.c));
    size_memo.emplace(t, size);
    return size;
  }

  // Rewrites every x % c (c > 0) into x − c·(x / c), recursively: reshape
  // round trips then cancel term by term.
  Linear expand(const Linear& l) {
    Linear out;
    out.constant = l.constant;
    for (auto [atom, k] : l.terms) {
      const IndexPool::Node& n = node(atom);
      auto c = n.kind == Kind::kMod ? positive_divisor(n.b) : std::nullopt;
      if (!c) {
        out.add_term(atom, k);
        continue;
      }
      out.add_scaled(expanded(n.a), k);
      out.add_scaled(expanded(div_const(n.a, *c)), checked_mul(k, -*c));
    }
    return out;
  }
  Linear expanded(IndexRef t) {
    if (auto it = expanded_memo.find(t); it != expanded_memo.end()) return it->second;
    Linear e = expand(linear(t));
    expanded_memo.emplace(t, e);
    return e;
  }

  // The reverse: k·x − k·c·(x / c) → k·(x % c), where that leaves fewer atoms.
  Linear contract(Linear l) {
    for (bool changed = true; changed;) {
      changed = false;
      for (auto [atom, a] : l.terms) {
        const IndexPool::Node& n = node(atom);
        auto c = n.kind == Kind::kFloorDiv ? positive_divisor(n.b) : std::nullopt;
        if (!c || a % *c != 0) continue;
        const int64_t k = checked_mul(a / *c, -1);
        Linear candidate = l;
        candidate.add_term(atom, -a);
        candidate.add_scaled(expanded(n.a), -k);
        candidate.add_scaled(linear(mod_const(n.a, *c)), k);
        if (candidate.terms.size() < l.terms.size()) {
          l = std::move(candidate);
          changed = true;
          break;
        }
      }
    }
    return l;
  }

  // The smallest of the collected form, its mod-free expansion, and either
  // with x − c·(x/c) contracted back to x % c.
  IndexRef normalize(const Linear& l) {
    IndexRef best = build(l);
    size_t best_size = tree_size(best);
    if (l.is_constant()) return best;
    const Linear expanded_form = expand(l);
    for (const Linear& candidate : {contract(l), expanded_form, contract(expanded_form)}) {
      IndexRef r = build(candidate);
      if (size_t s = tree_size(r); s < best_size) {
        best = r;
        best_size = s;
      }
    }
    return best;
  }

  // ---- floor-div and mod by a positive constant ----
  // Memoized by (numerator, divisor); a pair met again while it is being
  // simplified (the split through a factor of the divisor can lead back to
  // it) gets the plain node, which ends the recursion.
  template <typename F>
  IndexRef memoized(std::map<std::pair<IndexRef, int64_t>, IndexRef>& memo, IndexRef x, int64_t c, Kind kind, F compute) {
    const std::pair key{x, c};
    if (auto it = memo.find(key); it != memo.end()) {
      if (it->second != kNoIndex) return it->second;
      return kind == Kind::kFloorDiv ? target.floor_div(x, target.constant(c)) : target.mod(x, target.constant(c));
    }
    memo.emplace(key, kNoIndex);  // in progress
    IndexRef result;
    try {
      result = compute();
    } catch (...) {
      memo.erase(key);
      throw;
    }
    memo[key] = result;
    return result;
  }

  // The smallest of `plain` and the forms through each factor g = gcd(c, k)
  // of the divisor shared with a coefficient k of `r`: `through(g)` builds one
  // (or returns kNoIndex where it does not apply).
  template <typename F>
  IndexRef smallest_through_factors(IndexRef plain, const Linear& r, int64_t c, F through) {
    IndexRef best = plain;
    std::vector<int64_t> tried;
    for (auto [atom, k] : r.terms) {
      const int64_t g = gcd_of(c, k);
      if (g <= 1 || g >= c || std::find(tried.begin(), tried.end(), g) != tried.end()) continue;
      tried.push_back(g);
      IndexRef candidate = through(g);
      if (candidate != kNoIndex && tree_size(candidate) < tree_size(best)) best = candidate;
    }
    return best;
  }

  bool contains_floor_div(IndexRef t) {
    if (t == kNoIndex) return false;
    if (auto it = has_div_memo.find(t); it != has_div_memo.end()) return it->second;
    const IndexPool::Node& n = node(t);
    const bool found =
        n.kind == Kind::kFloorDiv || contains_floor_div(n.a) || contains_floor_div(n.b) || contains_floor_div(n.c);
    has_div_memo.emplace(t, found);
    return found;
  }

  IndexRef div_const(IndexRef x, int64_t c) {
    return memoized(div_memo, x, c, Kind::kFloorDiv, [&] { return compute_div_const(x, c); });
  }
  IndexRef mod_const(IndexRef x, int64_t c) {
    return memoized(mod_memo, x, c, Kind::kMod, [&] { return compute_mod_const(x, c); });
  }

  IndexRef compute_div_const(IndexRef x, int64_t c) {
    if (c == 1) return x;
    if (auto v = constant_of(x)) return target.constant(floor_div_int(*v, c));
    // (q + y / a) / c = (a·q + y) / (a·c): one division of the merged
    // numerator, so a quotient reached through differently split divisions
    // is the same node (and (y / a) / c = y / (a·c)).
    Linear l = linear(x);
    for (auto [atom, k] : l.terms) {
      const IndexPool::Node& d = node(atom);
      const auto a = d.kind == Kind::kFloorDiv && k == 1 ? positive_divisor(d.b) : std::nullopt;
      int64_t product;
      if (!a || __builtin_mul_overflow(*a, c, &product)) continue;
      try {
        Linear merged, rest = l;
        rest.add_term(atom, -1);
        merged.add_scaled(rest, *a);
        merged.add_scaled(linear(d.a), 1);
        return div_const(build(merged), product);
      } catch (const Overflow&) {
        continue;
      }
    }
    // x = c·q + r  ⇒  x / c = q + r / c
    Linear q, r;
    q.constant = floor_div_int(l.constant, c);
    r.constant = floor_mod_int(l.constant, c);
    for (auto [atom, k] : l.terms) {
      if (k % c == 0) q.add_term(atom, k / c);
      else r.add_term(atom, k);
    }
    // (g·r') / (g·c') = r' / c'
    int64_t g = gcd_of(c, r.constant);
    for (auto [atom, k] : r.terms) g = gcd_of(g, k);
    if (g > 1) {
      Linear reduced;
      reduced.constant = r.constant / g;
      for (auto [atom, k] : r.terms) reduced.add_term(atom, k / g);
      r = std::move(reduced);
      c /= g;
    }
    const IndexRange rr = range(r);
    if (!infinite(rr.lo) && !infinite(rr.hi) && floor_div_int(rr.lo, c) == floor_div_int(rr.hi, c)) {
      q.constant = checked_add(q.constant, floor_div_int(rr.lo, c));
      return build(q);
    }
    if (c == 1) {
      q.add_scaled(r, 1);
      return build(q);
    }
    const IndexRef numerator = build(r);
    // r / c = (r / g) / (c / g): through a factor g where r / g loses its
    // division ((4·i + j) / 12 = i / 3 when 0 ≤ j < 4).
    const IndexRef quotient = smallest_through_factors(
        target.floor_div(numerator, target.constant(c)), r, c, [&](int64_t factor) -> IndexRef {
          IndexRef inner = div_const(numerator, factor);
          return contains_floor_div(inner) ? kNoIndex : div_const(inner, c / factor);
        });
    q.add_scaled(linear(quotient), 1);
    return build(q);
  }

  IndexRef compute_mod_const(IndexRef x, int64_t c) {
    if (c == 1) return target.constant(0);
    if (auto v = constant_of(x)) return target.constant(floor_mod_int(*v, c));
    Linear l = linear(x);
    // (y % a) % c = y % c when c divides a; multiples of c drop out.
    for (bool changed = true; changed;) {
      changed = false;
      for (auto [atom, k] : l.terms) {
        const IndexPool::Node& n = node(atom);
        auto a = n.kind == Kind::kMod ? positive_divisor(n.b) : std::nullopt;
        if (a && *a % c == 0) {
          l.add_term(atom, -k);
          l.add_scaled(linear(n.a), k);
          changed = true;
          break;
        }
      }
    }
    Linear r;
    r.constant = floor_mod_int(l.constant, c);
    for (auto [atom, k] : l.terms)
      if (k % c != 0) r.add_term(atom, k);
    // (g·r') % (g·c') = g·(r' % c')
    int64_t g = gcd_of(c, r.constant);
    for (auto [atom, k] : r.terms) g = gcd_of(g, k);
    if (g > 1 && !r.is_constant()) {
      Linear reduced;
      reduced.constant = r.constant / g;
      for (auto [atom, k] : r.terms) reduced.add_term(atom, k / g);
      Linear scaled;
      scaled.add_scaled(linear(mod_const(build(reduced), c / g)), g);
      return build(scaled);
    }
    const IndexRange rr = range(r);
    if (!infinite(rr.lo) && !infinite(rr.hi) && floor_div_int(rr.lo, c) == floor_div_int(rr.hi, c)) {
      r.constant = checked_add(r.constant, checked_mul(-floor_div_int(rr.lo, c), c));
      return build(r);
    }
    const IndexRef numerator = build(r);
    // r % c = g·((r / g) % (c / g)) + r % g, where r / g loses its division.
    return smallest_through_factors(target.mod(numerator, target.constant(c)), r, c, [&](int64_t factor) -> IndexRef {
      IndexRef high = div_const(numerator, factor);
      if (contains_floor_div(high)) return kNoIndex;
      Linear split;
      split.add_scaled(linear(mod_const(high, c / factor)), factor);
      split.add_scaled(linear(mod_const(numerator, factor)), 1);
      return build(split);
    });
  }

  // ---- comparisons, in a canonical form: v < m, v ≤ m, v == m with the
  // constant on one side (m < v when every coefficient of v is negative) ----
  IndexRef compare(Kind kind, IndexRef a, IndexRef b) {
    Linear d = linear(a);
    d.add_scaled(linear(b), -1);  // a (kind) b  ⇔  d (kind) 0
    switch (compare_with_zero(kind, range(d))) {
      case Truth::kTrue: return target.constant(1);
      case Truth::kFalse: return target.constant(0);
      case Truth::kUnknown: break;
    }
    Linear v = d;
    v.constant = 0;
    int64_t m = checked_mul(d.constant, -1);  // v (kind) m
    int64_t g = 0;
    for (auto [atom, k] : v.terms) g = gcd_of(g, k);
    if (g > 1) {  // g·v' < m ⇔ v' < ⌈m/g⌉;  g·v' ≤ m ⇔ v' ≤ ⌊m/g⌋
      if (kind == Kind::kEq && m % g != 0) return target.constant(0);
      Linear reduced;
      for (auto [atom, k] : v.terms) reduced.add_term(atom, k / g);
      v = std::move(reduced);
      m = kind == Kind::kLt ? -floor_div_int(-m, g) : floor_div_int(m, g);
    }
    const bool all_negative =
        std::all_of(v.terms.begin(), v.terms.end(), [](const auto& term) { return term.second < 0; });
    if (all_negative) {
      Linear flipped;
      flipped.add_scaled(v, -1);
      IndexRef lhs = target.constant(-m), rhs = build(flipped);
      if (kind == Kind::kLt) return target.lt(lhs, rhs);
      if (kind == Kind::kLe) return target.le(lhs, rhs);
      return target.eq(rhs, lhs);
    }
    IndexRef lhs = build(v), rhs = target.constant(m);
    if (kind == Kind::kLt) return target.lt(lhs, rhs);
    if (kind == Kind::kLe) return target.le(lhs, rhs);
    return target.eq(lhs, rhs);
  }

  Truth decided(IndexRef t) { return truth_of(range(t)); }

  // A 0/1 value with the truth of `t`.
  IndexRef as_bool_value(IndexRef t) {
    const IndexRange r = range(t);
    if (r.lo >= 0 && r.hi <= 1) return t;
    return target.logical_not(target.logical_not(t));
  }

  IndexRef negate_truth(IndexRef t) {
    switch (decided(t)) {
      case Truth::kTrue: return target.constant(0);
      case Truth::kFalse: return target.constant(1);
      case Truth::kUnknown: break;
    }
    const IndexPool::Node& n = node(t);
    if (n.kind == Kind::kLt) return compare(Kind::kLe, n.b, n.a);  // !(a < b) ⇔ b ≤ a
    if (n.kind == Kind::kLe) return compare(Kind::kLt, n.b, n.a);
    if (n.kind == Kind::kNot) return as_bool_value(n.a);
    return target.logical_not(t);
  }

  // ---- one node from simplified children ----
  IndexRef make(Kind kind, IndexRef a, IndexRef b, IndexRef c) {
    switch (kind) {
      case Kind::kAdd:
      case Kind::kSub: {
        Linear l = linear(a);
        l.add_scaled(linear(b), kind == Kind::kAdd ? 1 : -1);
        return normalize(l);
      }
      case Kind::kMul: {
        Linear la = linear(a), lb = linear(b);
        if (la.is_constant() || lb.is_constant()) {
          Linear l;
          if (la.is_constant()) l.add_scaled(lb, la.constant);
          else l.add_scaled(la, lb.constant);
          return normalize(l);
        }
        return target.mul(std::min(a, b), std::max(a, b));
      }
      case Kind::kFloorDiv: {
        if (auto d = positive_divisor(b)) return div_const(a, *d);
        auto ca = constant_of(a), cb = constant_of(b);
        if (ca && cb && *cb != 0 && !(*ca == INT64_MIN && *cb == -1)) return target.constant(floor_div_int(*ca, *cb));
        return target.floor_div(a, b);
      }
      case Kind::kMod: {
        if (auto d = positive_divisor(b)) return mod_const(a, *d);
        auto ca = constant_of(a), cb = constant_of(b);
        if (ca && cb && *cb != 0 && !(*ca == INT64_MIN && *cb == -1)) return target.constant(floor_mod_int(*ca, *cb));
        // a % d = a when 0 ≤ a < d for every d in range
        const IndexRange ra = range(a), rd = range(b);
        if (ra.lo >= 0 && rd.lo > 0 && ra.hi < rd.lo) return a;
        return target.mod(a, b);
      }
      case Kind::kMin:
      case Kind::kMax: {
        Linear d = linear(a);
        d.add_scaled(linear(b), -1);
        const IndexRange rd = range(d);
        if (rd.hi <= 0) return kind == Kind::kMin ? a : b;  // a ≤ b
        if (rd.lo >= 0) return kind == Kind::kMin ? b : a;  // a ≥ b
        return kind == Kind::kMin ? target.min(a, b) : target.max(a, b);
      }
      case Kind::kSelect:
        switch (decided(a)) {
          case Truth::kTrue: return b;
          case Truth::kFalse: return c;
          case Truth::kUnknown: return target.select(a, b, c);
        }
        break;
      case Kind::kLt:
      case Kind::kLe:
      case Kind::kEq: return compare(kind, a, b);
      case Kind::kAnd:
      case Kind::kOr: {
        const Truth ta = decided(a), tb = decided(b);
        const Truth absorbing = kind == Kind::kAnd ? Truth::kFalse : Truth::kTrue;
        if (ta == absorbing || tb == absorbing) return target.constant(absorbing == Truth::kTrue ? 1 : 0);
        if (ta != Truth::kUnknown && tb != Truth::kUnknown) return target.constant(kind == Kind::kAnd ? 1 : 0);
        if (ta != Truth::kUnknown) return as_bool_value(b);  // the neutral element drops out
        if (tb != Truth::kUnknown) return as_bool_value(a);
        // The pool folds a && a to a, which is the truth but not the 0/1 value.
        if (a == b) return as_bool_value(a);
        return kind == Kind::kAnd ? target.logical_and(a, b) : target.logical_or(a, b);
      }
      case Kind::kNot: return negate_truth(a);
      case Kind::kConst:
      case Kind::kVar: break;
    }
    return kNoIndex;  // unreachable: constants and variables are handled by value()
  }

  IndexRef value(IndexRef s) {
    if (auto it = value_memo.find(s); it != value_memo.end()) return it->second;
    const IndexPool::Node& n = source.node(s);
    IndexRef result;
    if (n.kind == Kind::kConst) {
      result = target.constant(n.value);
    } else if (n.kind == Kind::kVar) {
      const IndexRange r = var_range(n.value);
      result = r.is_single() ? target.constant(r.lo) : target.var(static_cast<int>(n.value));
    } else {
      IndexRef a = value(n.a);
      IndexRef b = n.b == kNoIndex ? kNoIndex : value(n.b);
      IndexRef c = n.c == kNoIndex ? kNoIndex : value(n.c);
      try {
        result = make(n.kind, a, b, c);
      } catch (const Overflow&) {
        result = rebuild(n.kind, a, b, c);
      }
      // Whatever the form, a node whose range is one value is that value.
      if (const IndexRange r = range(result); r.is_single() && !constant_of(result)) result = target.constant(r.lo);
    }
    value_memo.emplace(s, result);
    return result;
  }

  // The node itself over simplified children, for when simplifying overflows.
  IndexRef rebuild(Kind kind, IndexRef a, IndexRef b, IndexRef c) {
    switch (kind) {
      case Kind::kAdd: return target.add(a, b);
      case Kind::kSub: return target.sub(a, b);
      case Kind::kMul: return target.mul(a, b);
      case Kind::kFloorDiv: return target.floor_div(a, b);
      case Kind::kMod: return target.mod(a, b);
      case Kind::kMin: return target.min(a, b);
      case Kind::kMax: return target.max(a, b);
      case Kind::kSelect: return target.select(a, b, c);
      case Kind::kLt: return target.lt(a, b);
      case Kind::kLe: return target.le(a, b);
      case Kind::kEq: return target.eq(a, b);
      case Kind::kAnd: return as_bool_value(target.logical_and(a, b));
      case Kind::kOr: return as_bool_value(target.logical_or(a, b));
      case Kind::kNot: return target.logical_not(a);
      default: return kNoIndex;
    }
  }

  // Truth context: only "≠ 0" matters, so the neutral operand of && and ||
  // drops out whatever its value.
  IndexRef truth(IndexRef s) {
    if (s == kNoIndex) return kNoIndex;
    if (auto it = truth_memo.find(s); it != truth_memo.end()) return it->second;
    const IndexPool::Node& n = source.node(s);
    IndexRef result;
    if (n.kind == Kind::kAnd || n.kind == Kind::kOr) {
      IndexRef a = truth(n.a), b = truth(n.b);
      const bool is_and = n.kind == Kind::kAnd;
      auto is_true = [&](IndexRef t) { return t == kNoIndex; };
      auto is_false = [&](IndexRef t) { return t != kNoIndex && constant_of(t) == 0; };
      if (is_and) {
        result = is_false(a) || is_false(b) ? target.constant(0) : is_true(a) ? b : is_true(b) ? a : conjoin(a, b);
      } else {
        result = is_true(a) || is_true(b) ? kNoIndex : is_false(a) ? b : is_false(b) ? a : target.logical_or(a, b);
      }
    } else {
      result = value(s);
      switch (decided(result)) {
        case Truth::kTrue: result = kNoIndex; break;
        case Truth::kFalse: result = target.constant(0); break;
        case Truth::kUnknown: break;
      }
    }
    truth_memo.emplace(s, result);
    return result;
  }

  // A conjunct that bounds one variable by a constant — v < c, c < v, v ≤ c,
  // c ≤ v, v == c, the canonical comparison forms — as the range it allows.
  struct VarBound {
    int64_t var;
    IndexRange allowed;
  };
  std::optional<VarBound> var_bound(IndexRef t) const {
    const IndexPool::Node& n = node(t);
    if (n.kind != Kind::kLt && n.kind != Kind::kLe && n.kind != Kind::kEq) return std::nullopt;
    const IndexPool::Node &left = node(n.a), &right = node(n.b);
    const bool var_left = left.kind == Kind::kVar && right.kind == Kind::kConst;
    const bool var_right = right.kind == Kind::kVar && left.kind == Kind::kConst;
    if (!var_left && !var_right) return std::nullopt;
    const int64_t number = var_left ? left.value : right.value, c = var_left ? right.value : left.value;
    if (number < 0 || static_cast<size_t>(number) >= vars.size()) return std::nullopt;
    constexpr IndexRange kNothing{1, 0};
    const bool strict = n.kind == Kind::kLt;
    if (n.kind == Kind::kEq) return VarBound{number, {c, c}};
    if (var_left) return VarBound{number, strict ? (c == INT64_MIN ? kNothing : IndexRange{kNegInf, c - 1}) : IndexRange{kNegInf, c}};
    return VarBound{number, strict ? (c == INT64_MAX ? kNothing : IndexRange{c + 1, kPosInf}) : IndexRange{c, kPosInf}};
  }

  // a && b (two undecided masks) with the bounds on each variable merged: at
  // most a lower and an upper bound per variable (v == c where they meet),
  // none that the variable's range already implies, then the other
  // conjuncts; constant 0 where the bounds contradict. Nested pads and
  // slices produce chains like 1 ≤ i && 2 ≤ i && i < 6 && i < 5.
  IndexRef conjoin(IndexRef a, IndexRef b) {
    std::vector<IndexRef> parts, others;
    target.append_conjuncts(a, parts);
    target.append_conjuncts(b, parts);
    std::map<int64_t, IndexRange> bounds;
    for (IndexRef t : parts) {
      if (std::optional<VarBound> bound = var_bound(t)) {
        IndexRange& r = bounds.emplace(bound->var, var_range(bound->var)).first->second;
        r = {std::max(r.lo, bound->allowed.lo), std::min(r.hi, bound->allowed.hi)};
      } else {
        others.push_back(t);
      }
    }
    IndexRef result = kNoIndex;
    auto conjoin_one = [&](IndexRef t) { result = result == kNoIndex ? t : target.logical_and(result, t); };
    for (const auto& [number, r] : bounds) {
      if (r.empty()) return target.constant(0);
      const IndexRange whole = var_range(number);
      const bool lower = r.lo > whole.lo, upper = r.hi < whole.hi;
      const IndexRef v = target.var(static_cast<int>(number));
      if (lower && upper && r.lo == r.hi) {
        conjoin_one(target.eq(v, target.constant(r.lo)));
        continue;
      }
      if (lower) conjoin_one(target.le(target.constant(r.lo), v));
      if (upper) conjoin_one(target.lt(v, target.constant(r.hi + 1)));
    }
    for (IndexRef t : others) conjoin_one(t);
    return result;
  }

  std::optional<std::vector<IndexRange>> narrowed_ranges(IndexRef mask) {
    std::vector<IndexRange> narrowed = vars;
    if (mask == kNoIndex) return narrowed;
    if (constant_of(mask) == 0) return std::nullopt;
    std::vector<IndexRef> parts;
    target.append_conjuncts(mask, parts);
    for (IndexRef t : parts) {
      if (std::optional<VarBound> bound = var_bound(t)) {
        IndexRange& r = narrowed[bound->var];
        r = {std::max(r.lo, bound->allowed.lo), std::min(r.hi, bound->allowed.hi)};
      }
    }
    for (const IndexRange& r : narrowed)
      if (r.empty()) return std::nullopt;
    return narrowed;
  }
};

IndexSimplifier::IndexSimplifier(const IndexPool& source, IndexPool& target, std::vector<IndexRange> var_ranges)
    : impl_(std::make_unique<Impl>(source, target, std::move(var_ranges))) {}
IndexSimplifier::~IndexSimplifier() = default;
IndexRef IndexSimplifier::value(IndexRef source_node) { return impl_->value(source_node); }
IndexRef IndexSimplifier::truth(IndexRef source_mask) { return impl_->truth(source_mask); }
IndexRange IndexSimplifier::range(IndexRef target_node) { return impl_->range(target_node); }
std::optional<std::vector<IndexRange>> IndexSimplifier::narrowed_ranges(IndexRef target_mask) {
  return impl_->narrowed_ranges(target_mask);
}
const std::vector<IndexRange>& IndexSimplifier::var_ranges() const { return impl_->vars; }

std::vector<IndexRange> kernel_var_ranges(const Kernel& k) {
  std::vector<IndexRange> ranges;
  for (const Shape* shape : {&k.space, &k.reduction})
    for (int64_t extent : *shape) ranges.push_back({0, extent - 1});
  if (k.indirect.empty()) return ranges;
  ranges.resize(static_cast<size_t>(kIndirectVarBase), IndexRange{0, 0});  // unused numbers
  // A loaded index may be any value of its dtype.
  for (int node : k.indirect)
    ranges.push_back(k.exprs[static_cast<size_t>(node)].dtype == DType::I32 ? IndexRange{INT32_MIN, INT32_MAX}
                                                                               : IndexRange{});
  return ranges;
}

std::vector<IndexSlot> index_slots(const Kernel& k) {
  std::vector<IndexSlot> slots;
  for (size_t i = 0; i < k.exprs.size(); ++i) {
    const KernelExpr& e = k.exprs[i];
    if (e.kind != KernelExpr::Kind::kLoad && e.kind != KernelExpr::Kind::kIndex) continue;
    if (e.kind == KernelExpr::Kind::kLoad) slots.push_back({static_cast<int>(i), IndexSlot::kMaskSlot});
    for (size_t axis = 0; axis < e.index.size(); ++axis) slots.push_back({static_cast<int>(i), static_cast<int>(axis)});
  }
  return slots;
}

IndexRef slot_ref(const Kernel& k, IndexSlot slot) {
  const KernelExpr& e = k.exprs.at(slot.expr);
  return slot.is_mask() ? e.valid : e.index.at(slot.axis);
}
IndexRef& slot_ref(Kernel& k, IndexSlot slot) {
  KernelExpr& e = k.exprs.at(slot.expr);
  return slot.is_mask() ? e.valid : e.index.at(slot.axis);
}

IndexRef copy_index(const IndexPool& from, IndexRef r, IndexPool& to) {
  std::unordered_map<IndexRef, IndexRef> copied;
  std::function<IndexRef(IndexRef)> copy = [&](IndexRef s) -> IndexRef {
    if (s == kNoIndex) return kNoIndex;
    if (auto it = copied.find(s); it != copied.end()) return it->second;
    const IndexPool::Node& n = from.node(s);
    IndexRef a = copy(n.a), b = copy(n.b), c = copy(n.c), t = kNoIndex;
    switch (n.kind) {
      case Kind::kConst: t = to.constant(n.value); break;
      case Kind::kVar: t = to.var(static_cast<int>(n.value)); break;
      case Kind::kAdd: t = to.add(a, b); break;
      case Kind::kSub: t = to.sub(a, b); break;
      case Kind::kMul: t = to.mul(a, b); break;
      case Kind::kFloorDiv: t = to.floor_div(a, b); break;
      case Kind::kMod: t = to.mod(a, b); break;
      case Kind::kMin: t = to.min(a, b); break;
      case Kind::kMax: t = to.max(a, b); break;
      case Kind::kSelect: t = to.select(a, b, c); break;
      case Kind::kLt: t = to.lt(a, b); break;
      case Kind::kLe: t = to.le(a, b); break;
      case Kind::kEq: t = to.eq(a, b); break;
      case Kind::kAnd: t = to.logical_and(a, b); break;
      case Kind::kOr: t = to.logical_or(a, b); break;
      case Kind::kNot: t = to.logical_not(a); break;
    }
    copied.emplace(s, t);
    return t;
  };
  return copy(r);
}

void compact_indices(Kernel& k) {
  IndexPool fresh;
  for (IndexSlot slot : index_slots(k)) slot_ref(k, slot) = copy_index(k.indices, slot_ref(k, slot), fresh);
  k.indices = std::move(fresh);
}

Kernel simplify_kernel(const Kernel& raw) {
  Kernel out = raw;
  const std::vector<IndexRange> ranges = kernel_var_ranges(raw);
  if (std::any_of(ranges.begin(), ranges.end(), [](const IndexRange& r) { return r.empty(); })) {
    compact_indices(out);
    return out;
  }
  out.indices = IndexPool{};
  IndexSimplifier whole(raw.indices, out.indices, ranges);
  // One simplifier per set of mask-narrowed ranges: its memo and range facts
  // hold only under that mask.
  std::map<std::vector<IndexRange>, std::unique_ptr<IndexSimplifier>> under_mask;
  for (size_t i = 0; i < raw.exprs.size(); ++i) {
    const KernelExpr& e = raw.exprs[i];
    KernelExpr& simplified = out.exprs[i];
    if (e.kind == KernelExpr::Kind::kIndex) {
      simplified.index[0] = whole.value(e.index[0]);
      simplified.operands = indirect_operands(out, simplified.index, kNoIndex);
    } else if (e.kind == KernelExpr::Kind::kLoad) {
      simplified.valid = whole.truth(e.valid);
      IndexSimplifier* indices = &whole;
      if (auto narrowed = whole.narrowed_ranges(simplified.valid); narrowed && *narrowed != ranges) {
        auto& slot = under_mask[*narrowed];
        if (!slot) slot = std::make_unique<IndexSimplifier>(raw.indices, out.indices, *narrowed);
        indices = slot.get();
      }
      for (size_t axis = 0; axis < e.index.size(); ++axis) simplified.index[axis] = indices->value(e.index[axis]);
      // A mask that never holds may drop a loaded index: so may the operands.
      simplified.operands = indirect_operands(out, simplified.index, simplified.valid);
    }
  }
  compact_indices(out);
  return out;
}

KernelProgram simplify_program(const KernelProgram& raw) {
  KernelProgram out = raw;
  for (Kernel& k : out.kernels) k = simplify_kernel(k);
  return out;
}

}  // namespace smelt::kernel
