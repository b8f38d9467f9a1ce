#include "fusion/exact_search.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <stdexcept>

#include "extract/deadline.h"
#include "rules/tensor_analysis.h"

namespace smelt::fusion {

using namespace ir;      // graphs in
using namespace kernel;  // kernels out
using extract::Deadline;

using egraph::Id;
using egraph::kNoId;

namespace {

bool is_commutative(ir::Op op) {
  return op == ir::Op::Add || op == ir::Op::Mul || op == ir::Op::Max || op == ir::Op::Min || op == ir::Op::Eq;
}

class ExactSearch {
 public:
  ExactSearch(FusionEvaluator& evaluator, double seconds, size_t max_programs)
      : evaluator_(evaluator), graph_(evaluator.egraph()), deadline_(seconds), max_programs_(max_programs),
        choice_(graph_.num_ids(), kNoId) {}

  void run() {
    std::vector<Id> pending(evaluator_.roots().rbegin(), evaluator_.roots().rend());
    search(std::move(pending));
  }

  // A limit (time or programs) stopped the search before the space was exhausted.
  bool stopped() const { return stopped_; }
  bool found() const { return best_us_ < std::numeric_limits<double>::infinity(); }
  const FusionCandidate& best() const { return best_; }

 private:
  // Assigns the classes still pending, one per level; a class assigned higher
  // up keeps its node. At the bottom the term is complete.
  void search(std::vector<Id> pending) {
    if (deadline_.passed()) {
      stopped_ = true;
      return;
    }
    while (!pending.empty() && choice_[pending.back()] != kNoId) pending.pop_back();
    if (pending.empty()) {
      search_materializations();
      return;
    }
    const Id cls = pending.back();
    pending.pop_back();
    for (Id node : distinct_nodes(cls)) {
      if (closes_cycle(cls, node)) continue;
      choice_[cls] = node;
      std::vector<Id> next = pending;
      for (Id child : graph_.node(node).children) next.push_back(graph_.find(child));
      search(std::move(next));
      if (stopped_) break;
    }
    choice_[cls] = kNoId;
  }

  // Whether giving `cls` the node `node` closes a cycle through the classes
  // already assigned: then every completion is cyclic, and the subtree is skipped.
  bool closes_cycle(Id cls, Id node) {
    std::vector<Id> stack;
    for (Id child : graph_.node(node).children) stack.push_back(graph_.find(child));
    visited_.assign(graph_.num_ids(), false);
    while (!stack.empty()) {
      const Id c = stack.back();
      stack.pop_back();
      if (c == cls) return true;
      if (visited_[c] || choice_[c] == kNoId) continue;
      visited_[c] = true;
      for (Id child : graph_.node(choice_[c]).children) stack.push_back(graph_.find(child));
    }
    return false;
  }

  // Every subset of the term's values that are neither inputs nor outputs,
  // in Gray-code order (one flip per step).
  void search_materializations() {
    const std::optional<FusionTerm> term = evaluator_.read(choice_);
    if (!term) return;  // a cycle
    std::vector<ir::ValueId> toggles;
    std::vector<bool> is_output(term->graph.size(), false);
    for (ir::ValueId v : term->graph.outputs()) is_output[v] = true;
    for (size_t v = 0; v < term->graph.size(); ++v)
      if (term->graph.node(static_cast<ir::ValueId>(v)).op != ir::Op::Input && !is_output[v])
        toggles.push_back(static_cast<ir::ValueId>(v));
    std::vector<bool> flags(term->graph.size(), false);
    const uint64_t subsets = toggles.size() >= 63 ? UINT64_MAX : uint64_t{1} << toggles.size();
    for (uint64_t step = 0; step < subsets; ++step) {
      if (step > 0) {
        const size_t flip = static_cast<size_t>(__builtin_ctzll(step));
        flags[toggles[flip]] = !flags[toggles[flip]];
      }
      if (deadline_.passed() || priced_ >= max_programs_) {
        stopped_ = true;
        return;
      }
      ++priced_;
      const FusionPrice c = evaluator_.price(*term, flags);
      if (c.predicted_us < best_us_) {
        best_us_ = c.predicted_us;
        best_.choice = choice_;
        best_.materialized.assign(graph_.num_ids(), false);
        evaluator_.store_flags(*term, c.materialized, best_.materialized);
      }
    }
  }

  // The class's nodes, one per commutative-operand-order variant.
  const std::vector<Id>& distinct_nodes(Id cls) {
    auto it = distinct_.find(cls);
    if (it != distinct_.end()) return it->second;
    const rules::TensorLang& lang = rules::tensor_analysis(graph_).lang();
    std::vector<Id> nodes;
    std::map<std::tuple<uint32_t, uint64_t, std::vector<Id>>, Id> seen;
    for (Id node : graph_.class_nodes(cls)) {
      const egraph::NodeView view = graph_.node(node);
      std::vector<Id> children;
      for (Id child : view.children) children.push_back(graph_.find(child));
      if (std::find(children.begin(), children.end(), cls) != children.end()) continue;  // never acyclic
      if (is_commutative(lang.record(view.payload).op)) std::sort(children.begin(), children.end());
      if (seen.emplace(std::make_tuple(view.op, view.payload, children), node).second) nodes.push_back(node);
    }
    return distinct_.emplace(cls, std::move(nodes)).first->second;
  }

  FusionEvaluator& evaluator_;
  const egraph::EGraph& graph_;
  Deadline deadline_;
  const size_t max_programs_;
  size_t priced_ = 0;
  rules::TermChoice choice_;
  std::map<Id, std::vector<Id>> distinct_;
  FusionCandidate best_;
  double best_us_ = std::numeric_limits<double>::infinity();
  bool stopped_ = false;
  std::vector<bool> visited_;
};

}  // namespace

FusionExtraction extract_fusion_exact(FusionEvaluator& evaluator, const FusionExactOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  const size_t evaluations_before = evaluator.evaluations();
  if (evaluator.egraph().num_classes() > options.max_classes)
    throw std::invalid_argument("extract_fusion_exact: " + std::to_string(evaluator.egraph().num_classes()) +
                                " e-classes, more than the " + std::to_string(options.max_classes) +
                                " an exhaustive search is attempted on");
  FusionExtraction result;
  ExactSearch search(evaluator, options.time_limit_s, options.max_programs);
  search.run();
  if (!search.found()) throw std::invalid_argument("extract_fusion_exact: no acyclic term found within the limits");
  result.candidate = search.best();
  result.term = *evaluator.read(result.candidate.choice);
  result.cost = evaluator.cost(result.term, evaluator.value_flags(result.term, result.candidate.materialized));
  result.start = "exhaustive";
  result.finished = !search.stopped();
  result.evaluations = evaluator.evaluations() - evaluations_before;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace smelt::fusion
