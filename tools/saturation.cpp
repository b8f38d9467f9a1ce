// smelt::tools::saturate_graph and its serialization and picture (smelt/saturate.h).
#include "tools/saturation.h"

#include <chrono>
#include <cstdio>
#include <unordered_map>

#include "cost/calibrate.h"
#include "egraph/explanation.h"
#include "egraph/rec_expr.h"
#include "egraph/serialize.h"
#include "ir/dtype.h"
#include "extract/extractor.h"
#include "fusion/fusion_search.h"
#include "extract/problem.h"
#include "rules/rule_library.h"
#include "rules/tensor_analysis.h"
#include "tools/rule_files.h"

namespace smelt::tools {
namespace {

using egraph::Id;
using Clock = std::chrono::steady_clock;

cost::DeviceProfile profile_of(const SaturateOptions& options) {
  return (options.profile ? *options.profile : cost::default_host_profile()).for_threads(options.threads);
}

// The nodes of the term `choice` picks from the roots, and the term itself.
struct PickedTerm {
  std::vector<Id> nodes;
  egraph::RecExpr expr;
  std::vector<Id> roots;  // by root: its index in expr
};

PickedTerm read_term(const egraph::EGraph& graph, const rules::TermChoice& choice, std::span<const Id> roots) {
  PickedTerm term;
  std::unordered_map<Id, Id> index;  // class -> node index in expr
  for (Id root : roots) {
    // Iterative post-order over the chosen nodes (terms may be deep).
    std::vector<std::pair<Id, bool>> stack{{graph.find(root), false}};
    while (!stack.empty()) {
      const auto [cls, children_done] = stack.back();
      stack.pop_back();
      if (index.contains(cls)) continue;
      const Id node = choice.at(cls);
      const egraph::NodeView view = graph.node(node);
      if (!children_done) {
        stack.emplace_back(cls, true);
        for (Id child : view.children)
          if (!index.contains(graph.find(child))) stack.emplace_back(graph.find(child), false);
        continue;
      }
      egraph::ENode e{view.op, view.payload, {}};
      for (Id child : view.children) e.children.push_back(index.at(graph.find(child)));
      index.emplace(cls, term.expr.add(std::move(e)));
      term.nodes.push_back(node);
    }
    term.roots.push_back(index.at(graph.find(root)));
  }
  return term;
}

// The sub-expression of `expr` rooted at `root`, as a RecExpr of its own.
// Children come before parents in a RecExpr: one backward pass marks what the
// root reaches, one forward pass copies it (no recursion: terms may be deep).
egraph::RecExpr subterm(const egraph::RecExpr& expr, Id root) {
  const std::vector<egraph::ENode>& nodes = expr.nodes();
  std::vector<bool> reached(nodes.size(), false);
  reached[root] = true;
  for (size_t i = root + 1; i-- > 0;)
    if (reached[i])
      for (Id child : nodes[i].children) reached[child] = true;
  std::vector<Id> moved(nodes.size(), egraph::kNoId);
  egraph::RecExpr out;
  for (size_t i = 0; i <= root; ++i) {
    if (!reached[i]) continue;
    egraph::ENode e = nodes[i];
    for (Id& child : e.children) child = moved[child];
    moved[i] = out.add(std::move(e));
  }
  return out;
}

}  // namespace

SaturateResult saturate_graph(const ir::Graph& graph, const SaturateOptions& options) {
  const std::vector<rules::Rule> rule_list =
      options.rule_files.empty() ? rules::default_rules() : read_rule_files(options.rule_files);
  const std::vector<rules::CompiledRule> compiled = rules::compile_rules(rule_list);
  SaturateResult r;
  r.saturation = rules::saturate(graph, compiled, options.limits, options.scheduler, options.explain);
  egraph::EGraph& eg = r.saturation.egraph;
  const std::vector<Id>& outputs = r.saturation.classes.outputs;

  const cost::DeviceProfile profile = profile_of(options);
  fusion::FusionEvaluator evaluator(eg, outputs, profile);
  evaluator.name_classes(graph, r.saturation.classes);
  fusion::FusionOptions fusion_options;
  fusion_options.time_limit_s = options.extraction_s;
  fusion_options.original = fusion::original_choice(eg, graph, r.saturation.classes);
  const fusion::FusionExtraction picked = fusion::extract_fusion(evaluator, fusion_options);
  r.picked_us = picked.cost.predicted_us;
  r.picked_kernels = picked.cost.lowering.program.kernels.size();
  r.extraction_s = picked.seconds;
  r.extraction_finished = picked.finished;
  fusion::FusionCandidate as_given{fusion_options.original, std::vector<bool>(eg.num_ids(), false)};
  if (const std::optional<double> us = evaluator.evaluate(as_given)) r.input_us = *us;

  const PickedTerm input = read_term(eg, fusion_options.original, outputs);
  const PickedTerm chosen = read_term(eg, picked.candidate.choice, outputs);
  r.input_nodes = input.nodes;
  r.picked_nodes = chosen.nodes;
  if (options.explain) {
    const Clock::time_point start = Clock::now();
    for (size_t o = 0; o < outputs.size(); ++o) {
      // Rule names and the subterms they produced, not the whole term per step
      // (a GPT-2 block's graph spelled as a tree: 655 MB).
      const egraph::Explanation why = eg.explain_equivalence(subterm(input.expr, input.roots[o]),
                                                             subterm(chosen.expr, chosen.roots[o]),
                                                             {.whole_terms = false, .max_term_chars = 120});
      // One line per run of one rule (a flat explanation repeats a rule once
      // per copy of a shared subterm), with the subterm it produced, shortened.
      std::string text;
      size_t line = 0;
      for (size_t s = 1; s < why.steps.size();) {
        size_t end = s + 1;
        while (end < why.steps.size() && why.steps[end].rule == why.steps[s].rule &&
               why.steps[end].backward == why.steps[s].backward)
          ++end;
        std::string term = why.steps[end - 1].rewritten;
        if (term.size() > 120) term = term.substr(0, 117) + "...";
        text += std::to_string(++line) + ". " + (why.steps[s].backward ? "<= " : "=> ") + why.steps[s].rule +
                (end - s > 1 ? " (x" + std::to_string(end - s) + ")" : "") + ": " + term + "\n";
        s = end;
      }
      r.explanations.push_back(text);
    }
    r.explain_s = std::chrono::duration<double>(Clock::now() - start).count();
  }
  return r;
}

SerializedSaturation serialize_saturation(const SaturateResult& result, const SaturateOptions& options,
                                          const std::string& extractor) {
  const egraph::EGraph& eg = result.saturation.egraph;
  const cost::DeviceProfile profile = profile_of(options);
  const egraph::NodeCost cost = [&](const egraph::EGraph& g, Id node) { return fusion::node_work_ns(g, node, profile); };
  std::vector<Id> roots;
  for (Id o : result.saturation.classes.outputs) roots.push_back(eg.find(o));
  SerializedSaturation s;
  s.json = egraph::export_json(eg, roots, cost);
  // The same nodes and costs extracted here: `smelt extract` on the file agrees.
  const extract::Problem problem = extract::problem_from_egraph(eg, roots, cost);
  const std::unique_ptr<extract::Extractor> chosen = extract::make_extractor(extractor);
  if (!chosen) throw std::invalid_argument("unknown extractor \"" + extractor + "\"");
  const extract::ExtractResult extracted = chosen->extract(problem, extract::ExtractOptions{options.extraction_s});
  s.extractor = extractor;
  s.dag_cost = extract::dag_cost(problem, extracted.extraction);
  s.nodes = problem.num_nodes();
  s.classes = problem.num_classes();
  return s;
}

std::string saturation_dot(const SaturateResult& result) {
  const egraph::EGraph& eg = result.saturation.egraph;
  const rules::TensorAnalysis& analysis = rules::tensor_analysis(eg);
  egraph::DotStyle style;
  style.label = [&](const egraph::EGraph& g, Id node) {
    const egraph::NodeView view = g.node(node);
    const rules::AttrRecord& record = analysis.lang().record(view.payload);
    std::string label = std::string(ir::op_name(record.op));
    if (!record.name.empty()) label += " " + record.name;
    if (record.op == ir::Op::Constant && record.attrs.values.size() == 1) {
      char value[32];
      std::snprintf(value, sizeof value, " %g", record.attrs.values.front());
      label += value;
    }
    const ir::TensorType& type = analysis.type(g, g.find(node));
    label += "\n" + std::string(ir::dtype_name(type.dtype)) + "[";
    for (size_t i = 0; i < type.shape.size(); ++i) label += (i ? "," : "") + std::to_string(type.shape[i]);
    return label + "]";
  };
  style.highlights = {{result.input_nodes, "lightblue"}, {result.picked_nodes, "gold"}};
  style.title = "e-classes dotted (outputs bold); blue: the graph as given; gold: the term extraction picked";
  for (Id o : result.saturation.classes.outputs) style.roots.push_back(eg.find(o));
  return egraph::export_dot(eg, style);
}

}  // namespace smelt::tools
