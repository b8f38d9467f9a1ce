#include "verify/index_validation.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include <z3++.h>

namespace smelt::verify {
namespace {

using kernel::IndexPool;
using kernel::IndexRef;
using kernel::kNoIndex;
using Kind = IndexPool::Kind;


// The variables an expression uses; each shared node is visited once.
void collect_vars(const IndexPool& pool, IndexRef r, std::set<int64_t>& vars) {
  std::vector<IndexRef> pending{r};
  std::set<IndexRef> seen;
  while (!pending.empty()) {
    const IndexRef at = pending.back();
    pending.pop_back();
    if (at == kNoIndex || !seen.insert(at).second) continue;
    const IndexPool::Node& n = pool.node(at);
    if (n.kind == Kind::kVar) vars.insert(n.value);
    pending.insert(pending.end(), {n.a, n.b, n.c});
  }
}

// An IndexPool expression as a Z3 integer term, with IndexPool::eval's meaning:
// comparisons and logic give 0 / 1, floor division rounds toward −∞ (Z3's div
// is Euclidean, which agrees for positive divisors), mod takes the divisor's sign.
class Z3Index {
 public:
  Z3Index(z3::context& ctx, const std::vector<z3::expr>& vars, const IndexPool& pool)
      : ctx_(ctx), vars_(vars), pool_(pool) {}

  z3::expr value(IndexRef r) {
    if (r == kNoIndex) return ctx_.int_val(1);
    if (auto it = memo_.find(r); it != memo_.end()) return it->second;
    z3::expr e = apply(r, [this](IndexRef child) { return value(child); });
    memo_.emplace(r, e);
    return e;
  }
  z3::expr truth(IndexRef r) { return r == kNoIndex ? ctx_.bool_val(true) : value(r) != 0; }

  // Node `r` over the terms `child(c)` gives for its children.
  template <typename Child>
  z3::expr apply(IndexRef r, Child child) {
    const IndexPool::Node& n = pool_.node(r);
    switch (n.kind) {
      case Kind::kConst: return ctx_.int_val(n.value);
      case Kind::kVar:
        if (n.value < 0 || static_cast<size_t>(n.value) >= vars_.size())
          throw std::invalid_argument("index expression uses variable " + std::to_string(n.value) +
                                      " outside the kernel's " + std::to_string(vars_.size()));
        return vars_[n.value];
      case Kind::kAdd: return child(n.a) + child(n.b);
      case Kind::kSub: return child(n.a) - child(n.b);
      case Kind::kMul: return child(n.a) * child(n.b);
      case Kind::kFloorDiv: return floor_div(child(n.a), child(n.b), n.b);
      case Kind::kMod: {
        z3::expr a = child(n.a), b = child(n.b);
        return a - b * floor_div(a, b, n.b);
      }
      case Kind::kMin: {
        z3::expr a = child(n.a), b = child(n.b);
        return z3::ite(a <= b, a, b);
      }
      case Kind::kMax: {
        z3::expr a = child(n.a), b = child(n.b);
        return z3::ite(a >= b, a, b);
      }
      case Kind::kSelect: return z3::ite(child(n.a) != 0, child(n.b), child(n.c));
      case Kind::kLt: return bool_value(child(n.a) < child(n.b));
      case Kind::kLe: return bool_value(child(n.a) <= child(n.b));
      case Kind::kEq: return bool_value(child(n.a) == child(n.b));
      case Kind::kAnd: return bool_value(child(n.a) != 0 && child(n.b) != 0);
      case Kind::kOr: return bool_value(child(n.a) != 0 || child(n.b) != 0);
      case Kind::kNot: return bool_value(child(n.a) == 0);
    }
    throw std::logic_error("unknown index node kind");
  }

 private:
  z3::expr bool_value(const z3::expr& b) { return z3::ite(b, ctx_.int_val(1), ctx_.int_val(0)); }

  z3::expr floor_div(const z3::expr& a, const z3::expr& b, IndexRef divisor) {
    const IndexPool::Node& d = pool_.node(divisor);
    if (d.kind == Kind::kConst && d.value > 0) return a / b;
    if (d.kind == Kind::kConst && d.value < 0) return (-a) / (-b);  // ⌊a/b⌋ = ⌊−a/−b⌋
    // Division by 0 stays Z3's uninterpreted a div 0 (eval rejects it).
    return z3::ite(b > 0, a / b, z3::ite(b < 0, (-a) / (-b), a / b));
  }

  z3::context& ctx_;
  const std::vector<z3::expr>& vars_;
  const IndexPool& pool_;
  std::unordered_map<IndexRef, z3::expr> memo_;
};

std::string slot_name(const kernel::IndexSlot& slot) {
  return "%" + std::to_string(slot.expr) + (slot.is_mask() ? " mask" : "[" + std::to_string(slot.axis) + "]");
}

void check_same_shape(const kernel::Kernel& raw, const kernel::Kernel& simplified) {
  auto fail = [&](const std::string& what) {
    throw std::invalid_argument("kernel " + raw.name + ": the simplified kernel " + what);
  };
  if (raw.space != simplified.space || raw.reduction != simplified.reduction) fail("has another iteration space");
  if (raw.exprs.size() != simplified.exprs.size()) fail("has another number of exprs");
  for (size_t i = 0; i < raw.exprs.size(); ++i)
    if (raw.exprs[i].kind != simplified.exprs[i].kind || raw.exprs[i].index.size() != simplified.exprs[i].index.size())
      fail("differs at expr " + std::to_string(i) + " beyond its index expressions");
}

}  // namespace

std::string_view outcome_name(IndexOutcome o) {
  switch (o) {
    case IndexOutcome::kUnchanged: return "unchanged";
    case IndexOutcome::kProved: return "proved";
    case IndexOutcome::kCounterexample: return "counterexample";
    case IndexOutcome::kUnknown: return "unknown";
  }
  return "?";
}

int KernelValidation::count(IndexOutcome o) const {
  int n = 0;
  for (const IndexCheck& c : checks) n += c.outcome == o;
  return n;
}

int ValidationReport::count(IndexOutcome o) const {
  int n = 0;
  for (const KernelValidation& k : kernels) n += k.count(o);
  return n;
}

std::string ValidationReport::str() const {
  std::string out;
  for (const KernelValidation& k : kernels) {
    const int counterexamples = k.count(IndexOutcome::kCounterexample), unknown = k.count(IndexOutcome::kUnknown);
    char milliseconds[32];
    std::snprintf(milliseconds, sizeof milliseconds, "%.1f ms", k.seconds * 1e3);
    out += "kernel " + k.kernel + ": " + std::to_string(k.checks.size()) + " index expressions: proved " +
           std::to_string(k.count(IndexOutcome::kProved)) + ", unchanged " + std::to_string(k.count(IndexOutcome::kUnchanged)) +
           ", fell back " + std::to_string(counterexamples + unknown) + " (counterexample " +
           std::to_string(counterexamples) + ", unknown " + std::to_string(unknown) + "), " + milliseconds + "\n";
    for (const IndexCheck& c : k.checks) {
      if (c.outcome != IndexOutcome::kCounterexample && c.outcome != IndexOutcome::kUnknown) continue;
      out += "  " + slot_name(c.slot) + ": kept " + c.raw + ", not " + c.simplified + ": ";
      if (c.outcome == IndexOutcome::kUnknown) {
        out += "unknown (" + c.reason + ")\n";
        continue;
      }
      out += "they differ at";
      for (size_t v = 0; v < c.counterexample.size() && v < k.var_names.size(); ++v)
        out += " " + k.var_names[v] + "=" + std::to_string(c.counterexample[v]);
      out += "\n";
    }
  }
  return out;
}

namespace {

// The nodes under `root`, children before parents, each once.
std::vector<IndexRef> postorder(const IndexPool& pool, IndexRef root) {
  std::vector<IndexRef> order;
  std::set<IndexRef> seen;
  std::vector<std::pair<IndexRef, bool>> stack{{root, false}};
  while (!stack.empty()) {
    auto [at, children_done] = stack.back();
    stack.pop_back();
    if (at == kNoIndex) continue;
    if (children_done) {
      order.push_back(at);
      continue;
    }
    if (!seen.insert(at).second) continue;
    const IndexPool::Node& n = pool.node(at);
    stack.push_back({at, true});
    for (IndexRef child : {n.c, n.b, n.a}) stack.push_back({child, false});
  }
  return order;
}

// Proves the slots of one kernel. Each slot's query runs in a solver scope
// holding its assumptions (variable bounds, the raw mask).
class KernelProver {
 public:
  // `solver` is the session's, with no assertions outside a check's scope.
  KernelProver(z3::context& ctx, z3::solver& solver, const kernel::Kernel& raw, const kernel::Kernel& simplified,
               const std::vector<kernel::IndexRange>& ranges, const std::vector<std::string>& names,
               const IndexValidationOptions& options, std::chrono::steady_clock::time_point program_deadline)
      : raw_(raw), simplified_(simplified), options_(options), ranges_(ranges), ctx_(ctx),
        program_deadline_(program_deadline), vars_(make_vars(names)), raw_terms_(ctx_, vars_, raw.indices),
        simplified_terms_(ctx_, vars_, simplified.indices), solver_(solver) {}

  void check(IndexCheck& check) {
    using Clock = std::chrono::steady_clock;
    deadline_ = std::min(program_deadline_, Clock::now() + std::chrono::milliseconds(uint64_t{kSlotBudgetQueries} *
                                                                                        options_.query_timeout_ms));
    const kernel::IndexSlot slot = check.slot;
    const IndexRef raw_ref = kernel::slot_ref(raw_, slot), simplified_ref = kernel::slot_ref(simplified_, slot);
    const kernel::KernelExpr& expr = raw_.exprs[slot.expr];
    const bool is_load_index = !slot.is_mask() && expr.kind == kernel::KernelExpr::Kind::kLoad;
    // A mask keeps its truth; an index keeps its value (where the load's raw mask holds).
    const z3::expr before = slot.is_mask() ? raw_terms_.truth(raw_ref) : raw_terms_.value(raw_ref);
    const z3::expr after = slot.is_mask() ? simplified_terms_.truth(simplified_ref) : simplified_terms_.value(simplified_ref);
    std::set<int64_t> raw_vars, simplified_vars;
    collect_vars(raw_.indices, raw_ref, raw_vars);
    if (is_load_index) collect_vars(raw_.indices, expr.valid, raw_vars);
    collect_vars(simplified_.indices, simplified_ref, simplified_vars);
    if (z3::eq(before, after)) {
      check.outcome = IndexOutcome::kUnchanged;
      return;
    }
    if (!std::includes(raw_vars.begin(), raw_vars.end(), simplified_vars.begin(), simplified_vars.end())) {
      // A new variable could move a load into the reduction loop (or out of
      // an empty one): never worth proving.
      check.outcome = IndexOutcome::kUnknown;
      check.reason = "uses a variable the raw expression does not";
      return;
    }
    solver_.push();
    // Only the variables involved are bounded: an empty extent elsewhere (an
    // unused empty reduction) must not make the query vacuous.
    for (int64_t v : raw_vars) solver_.add(vars_[v] >= ctx_.int_val(ranges_[v].lo) && vars_[v] <= ctx_.int_val(ranges_[v].hi));
    if (is_load_index) solver_.add(raw_terms_.truth(expr.valid));
    // One query first, but not for long: the stepwise proof below is
    // usually faster than waiting for a hard single query to time out.
    z3::check_result answer = refute(before != after, std::max(1u, options_.query_timeout_ms / kFirstQueryShare));
    if (answer == z3::unknown) {
      check.reason = solver_.reason_unknown();
      answer = prove_stepwise(check, raw_ref, after, is_load_index ? expr.valid : kNoIndex);
    }
    switch (answer) {
      case z3::unsat: check.outcome = IndexOutcome::kProved; break;
      case z3::sat: check.outcome = IndexOutcome::kCounterexample; check.counterexample = model_values_; break;
      case z3::unknown: check.outcome = IndexOutcome::kUnknown; break;
    }
    if (answer != z3::unknown) check.reason.clear();
    solver_.pop();
  }

 private:
  // A slot may spend this many query timeouts in all (the stepwise proof
  // makes one query per raw node).
  static constexpr unsigned kSlotBudgetQueries = 5;
  static constexpr unsigned kFirstQueryShare = 4;

  std::vector<z3::expr> make_vars(const std::vector<std::string>& names) {
    std::vector<z3::expr> vars;
    for (const std::string& name : names) vars.push_back(ctx_.int_const(name.c_str()));
    return vars;
  }

  // Is `difference` satisfiable under the current assumptions? Keeps the
  // variables' values of a model in model_values_.
  z3::check_result refute(const z3::expr& difference, unsigned timeout_ms = 0) {
    using namespace std::chrono;
    const auto left = duration_cast<milliseconds>(deadline_ - steady_clock::now()).count();
    if (left <= 0) return z3::unknown;
    z3::params params(ctx_);
    params.set("timeout", static_cast<unsigned>(std::min<int64_t>(left, timeout_ms ? timeout_ms : options_.query_timeout_ms)));
    solver_.set(params);
    solver_.push();
    solver_.add(difference);
    const z3::check_result answer = solver_.check();
    if (answer == z3::sat) {
      z3::model model = solver_.get_model();
      model_values_.clear();
      for (const z3::expr& v : vars_) model_values_.push_back(model.eval(v, true).get_numeral_int64());
    }
    solver_.pop();
    return answer;
  }

  // When one query is too hard (a coordinate of a reshape round trip, say):
  // bottom-up over the raw expression, each node — over its children's proven
  // forms — is shown equal to the simplifier's form of that node, which then
  // stands for it. Every step is a small query; a step that fails keeps the
  // node as it is. The simplifier only supplies candidates: every equality
  // used is proved, so the final query's answer is about the raw expression.
  z3::check_result prove_stepwise(IndexCheck& check, IndexRef raw_ref, const z3::expr& after, IndexRef raw_mask) {
    kernel::IndexPool hint_pool;
    kernel::IndexSimplifier whole(raw_.indices, hint_pool, ranges_);
    std::unique_ptr<kernel::IndexSimplifier> under_mask;
    kernel::IndexSimplifier* hints = &whole;
    if (raw_mask != kNoIndex)
      if (auto narrowed = whole.narrowed_ranges(whole.truth(raw_mask)); narrowed && *narrowed != ranges_) {
        under_mask = std::make_unique<kernel::IndexSimplifier>(raw_.indices, hint_pool, *narrowed);
        hints = under_mask.get();
      }
    Z3Index hint_terms(ctx_, vars_, hint_pool);
    std::unordered_map<IndexRef, z3::expr> proven;  // raw node → a term proved equal to it
    for (IndexRef node : postorder(raw_.indices, raw_ref)) {
      z3::expr current = raw_terms_.apply(node, [&](IndexRef child) { return proven.at(child); });
      const z3::expr hint = hint_terms.value(hints->value(node));
      if (!z3::eq(current, hint)) {
        const z3::check_result step = refute(current != hint);
        if (step == z3::unsat) {
          current = hint;
          ++check.steps;
        }
      }
      proven.emplace(node, current);
    }
    const z3::expr& root = proven.at(raw_ref);
    return refute((check.slot.is_mask() ? root != 0 : root) != after);
  }

  const kernel::Kernel& raw_;
  const kernel::Kernel& simplified_;
  const IndexValidationOptions& options_;
  const std::vector<kernel::IndexRange>& ranges_;
  z3::context& ctx_;
  const std::chrono::steady_clock::time_point program_deadline_;
  std::vector<z3::expr> vars_;
  Z3Index raw_terms_, simplified_terms_;
  z3::solver& solver_;
  std::chrono::steady_clock::time_point deadline_;
  std::vector<int64_t> model_values_;
};

}  // namespace

namespace {

// What the kernels of one program share: one Z3 context and solver, made at
// the first slot that needs a proof (a context costs milliseconds; most
// kernels have nothing to prove; a solver made and freed per kernel was a
// quarter of GPT-2's proofs), the program's deadline, and the queries already
// proved. A whole model repeats its layers: GPT-2's twelve give the same
// query twelve times (same printed expressions over variables of the same
// ranges), and each is proved once (2026-11-30, AMD EPYC: GPT-2 compiles in 3.9 s, was 5.7).
struct ProofSession {
  explicit ProofSession(const IndexValidationOptions& limits)
      : options(limits),
        deadline(std::chrono::steady_clock::now() +
                 std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                     std::chrono::duration<double>(std::clamp(limits.time_limit_s, 0.0, 1e7)))) {}
  z3::context& context() {
    if (!ctx) ctx = std::make_unique<z3::context>();
    return *ctx;
  }
  z3::solver& solver() {
    if (!z3_solver) {
      z3_solver = std::make_unique<z3::solver>(context());
      if (options.query_resource_limit != 0) {
        z3::params params(context());
        params.set("rlimit", options.query_resource_limit);
        z3_solver->set(params);
      }
    }
    return *z3_solver;
  }
  const IndexValidationOptions& options;
  std::chrono::steady_clock::time_point deadline;
  bool stopped_at_time_limit = false;
  std::unique_ptr<z3::context> ctx;
  std::unique_ptr<z3::solver> z3_solver;  // after ctx: freed before it
  // A proved query's key (proof_key) → the steps its proof took.
  std::unordered_map<std::string, int> proved;
};

// What a slot's query depends on: the raw and simplified expressions and, for
// a load's index, the raw mask it assumes (all printed with the kernel's
// variable names), and the range of every variable they use.
std::string proof_key(const kernel::Kernel& raw, const kernel::IndexSlot& slot, const IndexCheck& check,
                      const std::vector<std::string>& names, const std::vector<kernel::IndexRange>& ranges) {
  const kernel::KernelExpr& expr = raw.exprs[slot.expr];
  const bool is_load_index = !slot.is_mask() && expr.kind == kernel::KernelExpr::Kind::kLoad;
  std::string key = (slot.is_mask() ? "mask " : "value ") + check.raw + " -> " + check.simplified;
  std::set<int64_t> vars;
  collect_vars(raw.indices, kernel::slot_ref(raw, slot), vars);
  if (is_load_index) {
    key += " where " + raw.indices.str(expr.valid, names);
    collect_vars(raw.indices, expr.valid, vars);
  }
  for (int64_t v : vars)
    key += " " + names.at(static_cast<size_t>(v)) + ":" + std::to_string(ranges.at(static_cast<size_t>(v)).lo) + ".." +
           std::to_string(ranges.at(static_cast<size_t>(v)).hi);
  return key;
}

KernelValidation validate_kernel_in(ProofSession& session, const kernel::Kernel& raw, kernel::Kernel& simplified,
                                    const IndexValidationOptions& options) {
  using Clock = std::chrono::steady_clock;
  const auto kernel_start = Clock::now();
  check_same_shape(raw, simplified);
  KernelValidation result;
  result.kernel = raw.name;
  result.var_names = kernel_var_names(raw);
  std::vector<kernel::IndexRange> ranges;  // of raw's variables, once a slot needs them
  std::unique_ptr<KernelProver> prover;
  for (const kernel::IndexSlot& slot : kernel::index_slots(raw)) {
    const auto start = Clock::now();
    const IndexRef raw_ref = kernel::slot_ref(raw, slot);
    IndexCheck check;
    check.slot = slot;
    check.raw = raw.indices.str(raw_ref, result.var_names);
    check.simplified = simplified.indices.str(kernel::slot_ref(simplified, slot), result.var_names);
    if (check.raw == check.simplified) {
      // The same printed expression (every node printed, variables named) is the same expression.
      check.outcome = IndexOutcome::kUnchanged;
    } else if (start >= session.deadline) {
      check.outcome = IndexOutcome::kUnknown;
      check.reason = "the proofs' time limit was reached";
      session.stopped_at_time_limit = true;
    } else {
      try {
        if (ranges.empty()) ranges = kernel::kernel_var_ranges(raw);
        const std::string key = proof_key(raw, slot, check, result.var_names, ranges);
        if (auto hit = session.proved.find(key); hit != session.proved.end()) {
          check.outcome = IndexOutcome::kProved;
          check.steps = hit->second;
          check.reused = true;
        } else {
          if (!prover)
            prover = std::make_unique<KernelProver>(session.context(), session.solver(), raw, simplified, ranges,
                                                    result.var_names, options, session.deadline);
          prover->check(check);
          if (check.outcome == IndexOutcome::kProved) session.proved.emplace(key, check.steps);
        }
        if (check.outcome == IndexOutcome::kUnknown && Clock::now() >= session.deadline) {
          check.reason = "the proofs' time limit was reached";
          session.stopped_at_time_limit = true;
        }
      } catch (const z3::exception& e) {
        check.outcome = IndexOutcome::kUnknown;
        check.reason = std::string("solver error: ") + e.msg();
      }
    }
    if (check.outcome == IndexOutcome::kCounterexample || check.outcome == IndexOutcome::kUnknown)
      kernel::slot_ref(simplified, slot) = kernel::copy_index(raw.indices, raw_ref, simplified.indices);
    check.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    result.checks.push_back(std::move(check));
  }
  kernel::compact_indices(simplified);
  result.seconds = std::chrono::duration<double>(Clock::now() - kernel_start).count();
  return result;
}

}  // namespace

KernelValidation validate_kernel(const kernel::Kernel& raw, kernel::Kernel& simplified, const IndexValidationOptions& options) {
  ProofSession session(options);
  return validate_kernel_in(session, raw, simplified, options);
}

ValidationReport validate_and_simplify(kernel::KernelProgram& program, const IndexValidationOptions& options) {
  ValidationReport report;
  ProofSession session(options);
  for (kernel::Kernel& kernel : program.kernels) {
    kernel::Kernel simplified = kernel::simplify_kernel(kernel);
    report.kernels.push_back(validate_kernel_in(session, kernel, simplified, options));
    kernel = std::move(simplified);
  }
  report.stopped_at_time_limit = session.stopped_at_time_limit;
  return report;
}

}  // namespace smelt::verify
