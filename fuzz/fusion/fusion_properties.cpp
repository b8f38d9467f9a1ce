// Properties of fusion on random well-shaped graphs (fuzz/graphs): the fused
// program computes what the reference interpreter computes, the unfused one
// too, fusion never predicts a slower program than one kernel per op, and the
// extractor's incremental costing equals lowering the whole program.
#include <rapidcheck.h>

#include <cstdio>
#include <optional>
#include <random>
#include <stdexcept>

#include "fuzz/graphs/graph_gen.h"
#include "ir/interpreter.h"
#include "kernel/kernel_interpreter.h"
#include "ir/tensor_compare.h"
#include "ir/text_format.h"
#include "cost/predict.h"
#include "fusion/fusion_search.h"
#include "rules/rule_library.h"
#include "rules/saturate.h"
#include "rules/term_choice.h"
#include "smelt/smelt.h"

namespace {

// The random graph `block` three times in a row, each copy reading the one
// before (its first input, cast to its dtype) and added to it through a sum
// of its first output (a residual): a program that splits into parts, the
// copies alike. The block's other inputs are fresh per copy; its other
// outputs are the program's outputs too.
smelt::ir::Graph repeated(const smelt::ir::Graph& block, int copies) {
  namespace ir = smelt::ir;
  ir::Graph g("repeated");
  const std::vector<ir::ValueId> inputs = block.inputs();
  const ir::TensorType first = block.type(inputs.at(0));
  ir::Attrs input;
  input.result = {ir::DType::F32, first.shape};
  ir::ValueId x = g.add(ir::Op::Input, {}, input, "x");
  auto cast = [&](ir::ValueId v, ir::DType to) {
    ir::Attrs a;
    a.to = to;
    return g.add(ir::Op::Cast, {v}, a);
  };
  for (int c = 0; c < copies; ++c) {
    std::vector<ir::ValueId> to(block.size(), -1);
    for (size_t v = 0; v < block.size(); ++v) {
      const ir::Node& n = block.node(static_cast<ir::ValueId>(v));
      if (static_cast<ir::ValueId>(v) == inputs[0]) {
        to[v] = first.dtype == ir::DType::F32 ? x : cast(x, first.dtype);
        continue;
      }
      std::vector<ir::ValueId> operands;
      for (ir::ValueId o : n.operands) operands.push_back(to[static_cast<size_t>(o)]);
      to[v] = g.add(n.op, std::move(operands), n.attrs, n.op == ir::Op::Input ? "c" + std::to_string(c) + "_" + n.name : "");
    }
    for (size_t o = 1; o < block.outputs().size(); ++o) g.add_output(to[static_cast<size_t>(block.outputs()[o])]);
    ir::ValueId out = to[static_cast<size_t>(block.outputs().at(0))];
    if (block.type(block.outputs()[0]).dtype != ir::DType::F32) out = cast(out, ir::DType::F32);
    const size_t rank = g.type(out).shape.size();
    if (rank > 0) {
      ir::Attrs all;
      for (size_t a = 0; a < rank; ++a) all.axes.push_back(static_cast<int64_t>(a));
      out = g.add(ir::Op::ReduceSum, {out}, all);
    }
    ir::Attrs to_shape;
    to_shape.shape = first.shape;
    out = g.add(ir::Op::Broadcast, {out}, to_shape);
    x = g.add(ir::Op::Add, {x, out});
  }
  g.add_output(x);
  return g;
}

}  // namespace

int main() {
  bool ok = true;
  ok &= rc::check("a repeated block, searched in parts, equals the reference and is never predicted slower", [] {
    const smelt::ir::Graph block = *smelt::fuzz::gen_graph();
    RC_PRE(!block.inputs().empty() && !block.outputs().empty());
    const smelt::ir::Graph g = repeated(block, 3);
    smelt::FuseOptions options;
    options.limits.extraction_s = 60;  // the work budget stops it
    const smelt::FusionResult result = smelt::fuse(g, options);
    std::mt19937_64 rng(11);
    const std::vector<smelt::ir::HostTensor> inputs = smelt::fuzz::random_inputs(g, rng);
    RC_LOG() << smelt::ir::print_graph(g) << "\n" << smelt::kernel::print_program(result.after);
    RC_TAG(result.parts.size() > 1 ? "split into parts" : "one part");
    RC_ASSERT(smelt::ir::compare_outputs(smelt::ir::interpret_with_error_scales(g, inputs),
                                         smelt::kernel::run_kernels(result.after, inputs)) == "");
    RC_ASSERT(result.predicted_us_after <= result.predicted_us_before * (1 + 1e-12));
  });
  ok &= rc::check("fused and unfused programs equal the reference interpreter", [] {
    const smelt::ir::Graph g = *smelt::fuzz::gen_graph();
    smelt::FuseOptions options;
    options.limits.extraction_s = 0.2;
    smelt::FusionResult result = smelt::fuse(g, options);
    std::mt19937_64 rng(7);
    std::vector<smelt::ir::HostTensor> inputs = smelt::fuzz::random_inputs(g, rng);
    smelt::ir::Reference want = smelt::ir::interpret_with_error_scales(g, inputs);
    RC_LOG() << smelt::ir::print_graph(g) << "\n" << smelt::kernel::print_program(result.after);
    RC_ASSERT(smelt::ir::compare_outputs(want, smelt::kernel::run_kernels(result.before, inputs)) == "");
    RC_ASSERT(smelt::ir::compare_outputs(want, smelt::kernel::run_kernels(result.after, inputs)) == "");
  });
  ok &= rc::check("fusion is never predicted slower than one kernel per op", [] {
    const smelt::ir::Graph g = *smelt::fuzz::gen_graph();
    smelt::FuseOptions options;
    options.limits.extraction_s = 0.2;
    smelt::FusionResult result = smelt::fuse(g, options);
    RC_ASSERT(result.predicted_us_after <= result.predicted_us_before * (1 + 1e-12));
  });
  ok &= rc::check("incremental costing equals lowering the whole program", [] {
    // The local search with the evaluator's debug check on: every move it
    // prices incrementally is also lowered in full, and a difference throws.
    // Then a random walk of moves, compared the same way.
    const smelt::ir::Graph g = *smelt::fuzz::gen_graph();
    static const std::vector<smelt::rules::Rule> rule_set = smelt::rules::default_rules();
    static const std::vector<smelt::rules::CompiledRule> compiled = smelt::rules::compile_rules(rule_set);
    const smelt::rules::Saturation sat = smelt::rules::saturate(g, std::span<const smelt::rules::CompiledRule>(compiled));
    smelt::fusion::FusionEvaluator evaluator(sat.egraph, sat.classes.outputs, smelt::cost::default_host_profile());
    evaluator.check_incremental(true);
    smelt::fusion::FusionOptions options;
    options.time_limit_s = 0.2;
    options.original = smelt::fusion::original_choice(sat.egraph, g, sat.classes);
    RC_LOG() << smelt::ir::print_graph(g);
    try {
      smelt::fusion::extract_fusion(evaluator, options);
    } catch (const std::logic_error& e) {
      RC_FAIL(e.what());
    }
    const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
    std::mt19937_64 rng(seed);
    smelt::fusion::FusionCandidate candidate{smelt::rules::random_terms(sat.egraph, seed),
                                              std::vector<bool>(sat.egraph.num_ids(), false)};
    for (int move = 0; move < 20; ++move) {
      const std::optional<smelt::fusion::FusionTerm> term = evaluator.read(candidate.choice);
      if (!term) break;
      const size_t v = rng() % term->graph.size();
      const smelt::egraph::Id cls = term->value_class[v];
      if (cls == smelt::egraph::kNoId) continue;
      if (rng() % 2 == 0) {
        candidate.materialized[cls] = !candidate.materialized[cls];
      } else {
        const auto nodes = sat.egraph.class_nodes(cls);
        const smelt::egraph::Id previous = candidate.choice[cls];
        candidate.choice[cls] = nodes[rng() % nodes.size()];
        if (!evaluator.read(candidate.choice)) candidate.choice[cls] = previous;  // a cycle: undone
      }
      const std::optional<smelt::fusion::FusionTerm> moved = evaluator.read(candidate.choice);
      RC_ASSERT(moved.has_value());
      const std::vector<bool> flags = evaluator.value_flags(*moved, candidate.materialized);
      smelt::fusion::FusionPrice incremental;
      try {
        incremental = evaluator.price(*moved, flags);
      } catch (const std::logic_error& e) {
        RC_FAIL(e.what());
      }
      const smelt::fusion::FusionCost full = evaluator.cost(*moved, flags);
      RC_ASSERT(incremental.predicted_us == full.predicted_us);
      RC_ASSERT(incremental.materialized == full.lowering.materialized);
    }
  });
  return ok ? 0 : 1;
}
