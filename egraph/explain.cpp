// Turning the proof forest into a chain of rewrites (egg's flat explanations).
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "egraph/egraph.h"
#include "egraph/explain_state.h"
#include "egraph/explanation.h"
#include "egraph/term_syntax.h"

namespace smelt::egraph {

std::string Explanation::to_string() const {
  std::string out;
  for (const ExplanationStep& step : steps) {
    if (!step.rule.empty()) out += (step.backward ? "  <= " : "  => ") + step.rule + "\n";
    out += step.term + "\n";
  }
  return out;
}

class Explainer {
 public:
  Explainer(const EGraph& graph, const ExplainOptions& options)
      : graph_(graph), state_(*graph.explain_), options_(options) {}

  Explanation explain(Id a, Id b) {
    Explanation out;
    out.steps.push_back({options_.whole_terms ? term(a) : std::string(), "", false, ""});
    explain_in_context(a, b, "", "", out);
    return out;
  }

 private:
  // The concrete term an id stands for: its node as added, children expanded.
  const std::string& term(Id id) {
    if (auto it = terms_.find(id); it != terms_.end()) return it->second;
    const NodeView node = state_.originals.view(id);
    std::string text = format_operator(node.op, node.payload, graph_.symbols());
    if (!node.children.empty()) {
      std::string inner = "(" + text;
      for (Id child : node.children) {
        inner += " " + term(child);
        if (inner.size() > options_.max_term_chars) break;
      }
      text = inner + ")";
    }
    if (text.size() > options_.max_term_chars) text = text.substr(0, options_.max_term_chars) + "...";
    return terms_.emplace(id, std::move(text)).first->second;
  }

  // Appends the steps turning term(a) into term(b), where the whole term is
  // prefix + term + suffix.
  void explain_in_context(Id a, Id b, const std::string& prefix, const std::string& suffix,
                          Explanation& out) {
    if (a == b) return;
    const ProofForest::Path path = state_.forest.path(a, b);
    if (path.from_a.empty()) throw std::logic_error("egraph: ids are not connected in the proof forest");
    for (std::size_t i = 0; i + 1 < path.from_a.size(); ++i)
      step(path.from_a[i], path.from_a[i + 1], state_.forest.edge(path.from_a[i]), true, prefix, suffix, out);
    for (std::size_t i = path.from_b.size() - 1; i > 0; --i)
      step(path.from_b[i], path.from_b[i - 1], state_.forest.edge(path.from_b[i - 1]), false, prefix,
           suffix, out);
  }

  // One proof edge, walked from x to y; `along` says whether x -> y is the
  // edge's own direction.
  void step(Id x, Id y, const ProofForest::Edge& edge, bool along, const std::string& prefix,
            const std::string& suffix, Explanation& out) {
    if (edge.why.kind != Justification::Kind::kCongruence) {
      const std::string rule =
          edge.why.kind == Justification::Kind::kRule ? graph_.rule_name(edge.why.rule) : "<given>";
      out.steps.push_back({options_.whole_terms ? prefix + term(y) + suffix : std::string(), rule,
                           edge.forward != along, term(y)});
      return;
    }
    // Same operator: rewrite child by child inside the node.
    const NodeView from = state_.originals.view(x);
    const NodeView to = state_.originals.view(y);
    const std::string op = format_operator(from.op, from.payload, graph_.symbols());
    for (std::size_t i = 0; i < from.children.size(); ++i) {
      if (from.children[i] == to.children[i]) continue;
      if (!options_.whole_terms) {
        explain_in_context(from.children[i], to.children[i], "", "", out);
        continue;
      }
      std::string child_prefix = prefix + "(" + op;
      for (std::size_t k = 0; k < i; ++k) child_prefix += " " + term(to.children[k]);
      child_prefix += " ";
      std::string child_suffix;
      for (std::size_t k = i + 1; k < from.children.size(); ++k) child_suffix += " " + term(from.children[k]);
      child_suffix += ")" + suffix;
      explain_in_context(from.children[i], to.children[i], child_prefix, child_suffix, out);
    }
  }

  const EGraph& graph_;
  const EGraph::ExplainState& state_;
  const ExplainOptions options_;
  std::unordered_map<Id, std::string> terms_;
};

Explanation EGraph::explain_ids(Id a, Id b, const ExplainOptions& options) const {
  if (!explain_) throw std::logic_error("egraph: explanations are off (EGraphOptions::explanations)");
  if (a >= store_.size() || b >= store_.size()) throw std::invalid_argument("egraph: explain of an unknown id");
  if (find(a) != find(b)) throw std::invalid_argument("egraph: the terms are not equal");
  return Explainer(*this, options).explain(a, b);
}

Explanation EGraph::explain_equivalence(const RecExpr& a, const RecExpr& b, const ExplainOptions& options) {
  if (!explain_) throw std::logic_error("egraph: explanations are off (EGraphOptions::explanations)");
  const Id ia = add_expr_uncanonical(a);
  const Id ib = add_expr_uncanonical(b);
  rebuild();  // adding a known term may have joined a new spelling to its class
  return explain_ids(ia, ib, options);
}

}  // namespace smelt::egraph
