#include "fusion/fusion_search.h"

#include "cost/predict.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

#include "extract/deadline.h"
#include "rules/tensor_analysis.h"
#include "rules/term_choice.h"

namespace smelt::fusion {

using namespace ir;      // graphs in
using namespace kernel;  // kernels out

using egraph::Id;
using egraph::kNoId;

namespace {

// Where the local search stops: after a number of programs priced (the
// budget, the same on a busy machine) or at the wall clock (a safety net);
// it remembers which fired.
class SearchLimit {
 public:
  SearchLimit(const FusionEvaluator& evaluator, size_t max_evaluations, double seconds)
      : evaluator_(evaluator), first_(evaluator.evaluations()), max_(max_evaluations), deadline_(seconds) {}
  bool passed() const {
    if (stopped_by_.empty()) {
      if (max_ > 0 && evaluator_.evaluations() - first_ >= max_) stopped_by_ = "work limit";
      else if (deadline_.passed()) stopped_by_ = "time limit";
    }
    return !stopped_by_.empty();
  }
  const std::string& stopped_by() const { return stopped_by_; }
  std::chrono::steady_clock::time_point end() const { return deadline_.end(); }

 private:
  const FusionEvaluator& evaluator_;
  size_t first_, max_;
  extract::Deadline deadline_;
  mutable std::string stopped_by_;
};

constexpr double kFreeNs = 1e-6;  // views, factories, inputs: index maps and immediates

// A candidate is better only by more than rounding noise.
bool better(double candidate, double incumbent) {
  return std::isinf(incumbent) ? candidate < incumbent : candidate < incumbent - 1e-9 * incumbent;
}

bool is_output_class(const FusionEvaluator& evaluator, Id cls) {
  for (Id root : evaluator.roots())
    if (root == cls) return true;
  return false;
}

struct Incumbent {
  FusionCandidate candidate;
  double us = std::numeric_limits<double>::infinity();
  std::string start;
};

// Every class of the term's non-input values, outputs first.
std::vector<Id> term_classes(const FusionTerm& term) {
  std::vector<Id> classes;
  for (size_t v = term.graph.size(); v-- > 0;)
    if (term.graph.node(static_cast<ir::ValueId>(v)).op != ir::Op::Input) classes.push_back(term.value_class[v]);
  return classes;
}

bool is_anchor(const FusionTerm& term, ir::ValueId v) {
  return ir::is_anchor_class(ir::op_class(term.graph.node(v).op));
}

// By class: the values of `term` with two or more readers, and its anchors.
std::vector<bool> shared_and_anchors(const FusionTerm& term, size_t num_classes) {
  std::vector<uint32_t> readers(term.graph.size(), 0);
  for (size_t v = 0; v < term.graph.size(); ++v)
    for (ir::ValueId operand : term.graph.node(static_cast<ir::ValueId>(v)).operands) ++readers[operand];
  std::vector<bool> flags(num_classes, false);
  for (size_t v = 0; v < term.graph.size(); ++v)
    if (term.graph.node(static_cast<ir::ValueId>(v)).op != ir::Op::Input &&
        (readers[v] >= 2 || is_anchor(term, static_cast<ir::ValueId>(v))))
      flags[term.value_class[v]] = true;
  return flags;
}

// Store vs recompute, value by value. Materializing a value can make the
// anchors behind it free to inline again (SwiGLU: storing h instead of gate
// and up), so that is tried too: the value stored, every anchor released, the
// lowering re-forcing those still needed.
bool improve_materialization(FusionEvaluator& evaluator, Incumbent& best, const SearchLimit& limit,
                             size_t& improvements) {
  const std::optional<FusionTerm> term = evaluator.read(best.candidate.choice);
  if (!term) return false;
  bool improved = false;
  auto try_flags = [&](std::vector<bool> trial) {
    const FusionPrice c = evaluator.price(*term, evaluator.value_flags(*term, trial));
    if (!better(c.predicted_us, best.us)) return false;
    evaluator.store_flags(*term, c.materialized, trial);
    best.candidate.materialized = std::move(trial);
    best.us = c.predicted_us;
    ++improvements;
    return true;
  };
  for (size_t v = term->graph.size(); v-- > 0;) {
    const Id cls = term->value_class[v];
    if (limit.passed()) break;
    if (term->graph.node(static_cast<ir::ValueId>(v)).op == ir::Op::Input || is_output_class(evaluator, cls)) continue;
    std::vector<bool> flipped = best.candidate.materialized;
    flipped[cls] = !flipped[cls];
    if (try_flags(flipped)) {
      improved = true;
      continue;
    }
    if (!flipped[cls]) continue;
    for (size_t u = 0; u < term->graph.size(); ++u)
      if (is_anchor(*term, static_cast<ir::ValueId>(u)) && term->value_class[u] != cls &&
          !is_output_class(evaluator, term->value_class[u]))
        flipped[term->value_class[u]] = false;
    improved = try_flags(std::move(flipped)) || improved;
  }
  return improved;
}

// A move of the local search: `trial` replaces the incumbent when it is predicted faster.
bool keep_if_better(FusionEvaluator& evaluator, Incumbent& best, FusionCandidate trial, size_t& improvements) {
  const std::optional<double> us = evaluator.evaluate(trial);
  if (!us || !better(*us, best.us)) return false;
  best.candidate = std::move(trial);
  best.us = *us;
  ++improvements;
  return true;
}

bool is_view(const egraph::EGraph& graph, Id node) {
  const rules::TensorAnalysis& analysis = rules::tensor_analysis(graph);
  return ir::op_class(analysis.lang().record(graph.node(node).payload).op) == ir::OpClass::View;
}

// Another node for one class at a time; classes the new node reaches for the
// first time keep their previous choice (complete from the starting terms)
// and start inlined. A view node is also tried with the value it views
// stored: an epilogue moved inside a gemm's reshape (relu(reshape(gemm)) as
// reshape(relu(gemm))) pays only once relu(gemm) is a kernel's output, and
// inlined its gemm would be recomputed in the reader's loop (two moves, the
// first alone rejected).
bool improve_choice(FusionEvaluator& evaluator, Incumbent& best, const SearchLimit& limit, size_t& improvements) {
  const std::optional<FusionTerm> term = evaluator.read(best.candidate.choice);
  if (!term) return false;
  const egraph::EGraph& graph = evaluator.egraph();
  bool improved = false;
  for (Id cls : term_classes(*term)) {
    if (limit.passed()) break;
    const Id current = best.candidate.choice[cls];
    for (Id node : graph.class_nodes(cls)) {
      if (node == current || limit.passed()) continue;
      FusionCandidate trial = best.candidate;
      trial.choice[cls] = node;
      const bool view = is_view(graph, node) && graph.node(node).children.size() == 1;
      if (view) {
        FusionCandidate stored = trial;
        const Id viewed = graph.find(graph.node(node).children[0]);
        if (!stored.materialized[viewed] && !is_output_class(evaluator, cls)) {
          stored.materialized[viewed] = true;
          if (keep_if_better(evaluator, best, std::move(stored), improvements)) {
            improved = true;
            break;
          }
        }
      }
      if (!keep_if_better(evaluator, best, std::move(trial), improvements)) continue;
      improved = true;
      break;  // the class has a new node; later alternatives are measured against it next pass
    }
  }
  return improved;
}

bool is_contraction(const egraph::EGraph& graph, Id node) {
  const rules::TensorAnalysis& analysis = rules::tensor_analysis(graph);
  return ir::op_class(analysis.lang().record(graph.node(node).payload).op) == ir::OpClass::Contraction;
}

// A way for a class to read a shared contraction: its node n, then a chain of
// one-operand views down to a class holding a matmul (the choices to make).
struct ViewPath {
  std::vector<std::pair<Id, Id>> choices;  // (class, node), the first the term's class
  Id anchor = kNoId;                       // the contraction's class
};

// Through the first one-operand view of each class, as deep as kMaxViews: the
// deepest class on the way that holds a contraction is the anchor.
std::optional<ViewPath> view_path(const egraph::EGraph& graph, Id cls, Id node) {
  constexpr int kMaxViews = 3;
  if (!is_view(graph, node) || graph.node(node).children.size() != 1) return std::nullopt;
  std::vector<std::pair<Id, Id>> walked = {{cls, node}};
  std::optional<ViewPath> found;
  for (int depth = 1; depth <= kMaxViews + 1; ++depth) {
    cls = graph.find(graph.node(walked.back().second).children[0]);
    std::optional<Id> view, contraction;
    for (Id n : graph.class_nodes(cls)) {
      if (!contraction && is_contraction(graph, n)) contraction = n;
      if (!view && is_view(graph, n) && graph.node(n).children.size() == 1) view = n;
    }
    if (contraction) {
      found = ViewPath{walked, cls};
      found->choices.emplace_back(cls, *contraction);
    }
    if (!view || depth > kMaxViews) break;
    walked.emplace_back(cls, *view);
  }
  return found;
}

// Horizontal batching needs several classes re-chosen at once: each tower's
// value as a view (slice, reshape) of one batched matmul. One class at a time,
// each change costs a whole batched gemm for one consumer and is refused; so
// every group of term classes that can read one contraction through views
// switches together.
bool improve_shared_anchors(FusionEvaluator& evaluator, Incumbent& best, const SearchLimit& limit,
                            size_t& improvements) {
  const std::optional<FusionTerm> term = evaluator.read(best.candidate.choice);
  if (!term) return false;
  const egraph::EGraph& graph = evaluator.egraph();
  std::vector<std::pair<Id, std::vector<ViewPath>>> by_anchor;
  for (Id cls : term_classes(*term))
    for (Id node : graph.class_nodes(cls)) {
      if (node == best.candidate.choice[cls]) continue;
      std::optional<ViewPath> path = view_path(graph, cls, node);
      if (!path) continue;
      auto it = std::find_if(by_anchor.begin(), by_anchor.end(), [&](const auto& a) { return a.first == path->anchor; });
      if (it == by_anchor.end()) {
        by_anchor.emplace_back(path->anchor, std::vector<ViewPath>{std::move(*path)});
      } else if (std::none_of(it->second.begin(), it->second.end(),
                              [&](const ViewPath& p) { return p.choices[0].first == cls; })) {
        it->second.push_back(std::move(*path));
      }
    }
  bool improved = false;
  for (const auto& [anchor, paths] : by_anchor) {
    if (paths.size() < 2 || limit.passed()) continue;
    FusionCandidate trial = best.candidate;
    for (const ViewPath& p : paths)
      for (const auto& [cls, node] : p.choices) trial.choice[cls] = node;
    trial.materialized[anchor] = true;
    improved = keep_if_better(evaluator, best, std::move(trial), improvements) || improved;
  }
  return improved;
}

}  // namespace

double node_work_ns(const egraph::EGraph& graph, Id node_id, const cost::DeviceProfile& profile) {
  const rules::TensorAnalysis& analysis = rules::tensor_analysis(graph);
  const egraph::NodeView node = graph.node(node_id);
  const ir::Op op = analysis.lang().record(node.payload).op;
  auto elements = [&](Id cls) { return static_cast<double>(ir::numel(analysis.type(graph, cls).shape)); };
  switch (ir::op_class(op)) {
    case ir::OpClass::Elementwise:
      return kFreeNs + cost::elementwise_work_ns(profile, std::string(ir::op_name(op)), elements(graph.find(node_id)));
    case ir::OpClass::Reduction: return kFreeNs + cost::reduction_work_ns(profile, elements(node.children[0]));
    case ir::OpClass::Contraction: {
      const ir::Shape& a = analysis.type(graph, node.children[0]).shape;
      const ir::Shape& out = analysis.type(graph, graph.find(node_id)).shape;
      if (op == ir::Op::Conv) {  // a batch of matmuls: per group, maps x positions x (channels · kernel)
        const ir::Shape& w = analysis.type(graph, node.children[1]).shape;
        const long groups = std::max<long>(1, a[1] / std::max<long>(1, w[1]));
        const long positions = static_cast<long>(ir::numel(out) / std::max<int64_t>(1, out[0] * out[1]));
        return kFreeNs + cost::matmul_work_ns(profile, static_cast<long>(out[0]) * groups, static_cast<long>(out[1]) / groups,
                                              positions, static_cast<long>(ir::numel(w) / std::max<int64_t>(1, w[0])));
      }
      const long n = static_cast<long>(out.back()), k = static_cast<long>(a.back());
      const long m = out.size() < 2 ? 1 : static_cast<long>(out[out.size() - 2]);
      const long batch = static_cast<long>(ir::numel(out)) / std::max(n * m, 1L);
      return kFreeNs + cost::matmul_work_ns(profile, batch, m, n, k);
    }
    default: return kFreeNs;
  }
}

StartingChoices starting_choices(const egraph::EGraph& graph, const cost::DeviceProfile& profile) {
  return {rules::cheapest_terms(graph, [&](Id node) { return node_work_ns(graph, node, profile); }),
          rules::smallest_terms(graph)};
}

FusionExtraction extract_fusion(FusionEvaluator& evaluator, const FusionOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  const egraph::EGraph& graph = evaluator.egraph();
  const size_t evaluations_before = evaluator.evaluations();

  // Complete choices (a node for every class with an acyclic term): what a
  // re-chosen node's new classes fall back to.
  std::optional<StartingChoices> made;
  if (!options.starts) made = starting_choices(graph, evaluator.profile());
  const StartingChoices& starts = options.starts ? *options.starts : *made;
  const rules::TermChoice& work = starts.work;
  const rules::TermChoice& smallest = starts.smallest;
  // The starting points below count in the budget but are priced whatever it says.
  const SearchLimit limit(evaluator, options.max_evaluations, options.time_limit_s);
  auto overlay = [&](const rules::TermChoice& preferred) {
    rules::TermChoice choice = work;
    for (size_t c = 0; c < preferred.size() && c < choice.size(); ++c)
      if (preferred[c] != kNoId) choice[c] = preferred[c];
    return choice;
  };

  Incumbent best;
  auto consider_flags = [&](const rules::TermChoice& choice, std::vector<bool> class_flags, const std::string& name) {
    FusionCandidate candidate{choice, std::move(class_flags)};
    const std::optional<double> us = evaluator.evaluate(candidate);
    if (us && better(*us, best.us)) best = {std::move(candidate), *us, name};
  };
  auto consider = [&](const rules::TermChoice& choice, bool materialize_all, const std::string& name) {
    consider_flags(choice, std::vector<bool>(graph.num_ids(), materialize_all), name);
  };
  // First, whatever the time limit, a start priced in one pass: every value
  // read twice or more and every anchor stored (fusion that recomputes
  // nothing). The starts that inline everything can cost a restart per anchor
  // (a deep chain of softmaxes), so they get only the time left.
  if (const std::optional<FusionTerm> term = evaluator.read(work))
    consider_flags(work, shared_and_anchors(*term, graph.num_ids()), "least work, shared values stored");
  evaluator.stop_pricing_at(limit.end());
  if (!options.original.empty()) consider(overlay(options.original), false, "original");
  consider(work, false, "least work");
  consider(overlay(smallest), false, "smallest");
  if (best.us == std::numeric_limits<double>::infinity())
    throw std::invalid_argument("extract_fusion: no starting term reaches every root");

  FusionExtraction result;
  bool local_optimum = !options.local_search;
  auto local_search = [&] {
    if (!options.local_search) return;
    local_optimum = false;
    for (;;) {
      bool improved = improve_materialization(evaluator, best, limit, result.improvements);
      improved = improve_choice(evaluator, best, limit, result.improvements) || improved;
      improved = improve_shared_anchors(evaluator, best, limit, result.improvements) || improved;
      if (limit.passed()) break;
      if (!improved) {
        local_optimum = true;
        break;
      }
    }
  };
  local_search();
  // Never worse than the unfused program of the graph as given (where time is
  // left: smelt::fuse compares with the unmerged unfused program anyway).
  // Where it wins, the search goes on from it: as it is, it stores values no
  // kernel reads (perm_before_chain's pick kept a permuted copy and a cosine
  // beside the kernels that used them: 1.2x the fastest program measured,
  // both thread counts, Intel Xeon, 2026-12-02).
  if (!options.original.empty() && !limit.passed()) {
    const double before = best.us;
    consider(overlay(options.original), true, "original, every value materialized");
    if (better(best.us, before)) local_search();
  }
  evaluator.stop_pricing_at(std::chrono::steady_clock::time_point::max());

  result.candidate = best.candidate;
  result.term = *evaluator.read(best.candidate.choice);
  result.cost = evaluator.cost(result.term, evaluator.value_flags(result.term, best.candidate.materialized));
  result.start = best.start;
  result.finished = local_optimum;
  if (!local_optimum) result.stopped_by = limit.stopped_by().empty() ? "time limit" : limit.stopped_by();
  result.evaluations = evaluator.evaluations() - evaluations_before;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace smelt::fusion
