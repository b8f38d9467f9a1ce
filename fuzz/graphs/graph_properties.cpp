// rapidcheck properties of the random-graph generator (graph_gen.h): every
// generated graph type-checks, prints and re-parses to the same text, and the
// reference interpreter runs it (and its re-parsed copy, with the same results)
// producing the declared output types. Afterwards the generator's coverage is
// checked: every op and every listed feature must have been generated.
// Run by ctest with a fixed seed (RC_PARAMS in CMakeLists.txt); exit status 1
// on any failure.
#include <rapidcheck.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "fuzz/graphs/graph_gen.h"
#include "ir/interpreter.h"
#include "ir/text_format.h"

namespace {

using smelt::fuzz::gen_graph;

bool same_values(const smelt::ir::HostTensor& a, const smelt::ir::HostTensor& b) {
  if (!(a.type == b.type) || a.ints != b.ints || a.reals.size() != b.reals.size()) return false;
  for (size_t i = 0; i < a.reals.size(); ++i)
    if (!(a.reals[i] == b.reals[i] || (std::isnan(a.reals[i]) && std::isnan(b.reals[i])))) return false;
  return true;
}

// What the generated graphs contained, summed over the run.
struct Coverage {
  std::map<std::string, int> ops, features;

  void record(const smelt::ir::Graph& g) {
    std::vector<int> uses(g.size(), 0), view_depth(g.size(), 0);
    for (size_t v = 0; v < g.size(); ++v) {
      const smelt::ir::Node& n = g.node(static_cast<smelt::ir::ValueId>(v));
      ++ops[std::string(smelt::ir::op_name(n.op))];
      ++features["dtype " + std::string(smelt::ir::dtype_name(n.type.dtype))];
      ++features["rank " + std::to_string(n.type.shape.size())];
      for (smelt::ir::ValueId operand : n.operands) ++uses[operand];
      if (smelt::ir::numel(n.type.shape) == 0) ++features["empty tensor"];
      if (smelt::ir::op_class(n.op) == smelt::ir::OpClass::View) {
        view_depth[v] = 1 + view_depth[n.operands[0]];
        if (view_depth[v] >= 3) ++features["view chain of 3+"];
      }
      switch (n.op) {
        case smelt::ir::Op::Slice:
          for (int64_t step : n.attrs.step)
            if (step < 0) ++features["slice with a negative step"];
          break;
        case smelt::ir::Op::ReduceSum:
        case smelt::ir::Op::ReduceMax:
          ++features[n.attrs.keepdims ? "reduction keepdims" : "reduction without keepdims"];
          if (n.attrs.axes.size() > 1) ++features["reduction over 2+ axes"];
          break;
        case smelt::ir::Op::Matmul: {
          const smelt::ir::Shape &a = g.type(n.operands[0]).shape, &b = g.type(n.operands[1]).shape;
          if (n.type.shape.size() > 2) ++features["batched matmul"];
          if (a.size() != b.size() || !std::equal(a.begin(), a.end() - 2, b.begin())) ++features["matmul broadcasting batch axes"];
          if (a.size() >= 3 && b.size() == 2) ++features["matmul of rank 3+ by rank 2"];
          const smelt::ir::Node& rhs = g.node(n.operands[1]);
          if (rhs.op == smelt::ir::Op::Permute && rhs.operands[0] == n.operands[0]) ++features["matmul a * permute(a)"];
          break;
        }
        case smelt::ir::Op::Concat:
          if (n.operands.size() >= 3) ++features["concat of 3+ operands"];
          break;
        case smelt::ir::Op::Reshape: {
          // reshape(slice(reshape(x))) that drops a parts axis: a chunk.
          const smelt::ir::Node& inner = g.node(n.operands[0]);
          if (inner.op == smelt::ir::Op::Slice && g.node(inner.operands[0]).op == smelt::ir::Op::Reshape &&
              n.type.shape.size() + 1 == inner.type.shape.size())
            ++features["chunk (reshape, slice, reshape)"];
          break;
        }
        case smelt::ir::Op::Broadcast:
          if (smelt::ir::numel(g.type(n.operands[0]).shape) > 0 && smelt::ir::numel(n.type.shape) == 0) ++features["broadcast 1 to 0"];
          break;
        default: break;
      }
    }
    for (size_t v = 0; v < g.size(); ++v)
      if (uses[v] >= 2) ++features["value with 2+ consumers"];
    if (g.outputs().size() >= 2) ++features["graph with 2+ outputs"];
    for (smelt::ir::ValueId out : g.outputs())
      if (uses[out] >= 1) ++features["output also read by another op"];
  }

  // Prints the table; false if an op or a required feature never appeared.
  bool report() const {
    bool complete = true;
    std::printf("generator coverage (nodes per op / graphs-or-nodes per feature):\n");
    for (int i = 0; i < smelt::ir::kNumOps; ++i) {
      const std::string name(smelt::ir::op_name(static_cast<smelt::ir::Op>(i)));
      const auto it = ops.find(name);
      const int count = it == ops.end() ? 0 : it->second;
      std::printf("  %-12s %6d%s\n", name.c_str(), count, count == 0 ? "   <-- never generated" : "");
      complete &= count > 0;
    }
    static const char* kRequired[] = {
        "dtype f32", "dtype f16", "dtype bf16", "dtype i32", "dtype i64", "dtype bool", "rank 0", "rank 1", "rank 2",
        "rank 3", "rank 4", "empty tensor", "view chain of 3+", "slice with a negative step", "reduction keepdims",
        "reduction without keepdims", "reduction over 2+ axes", "batched matmul", "matmul broadcasting batch axes",
        "matmul a * permute(a)", "concat of 3+ operands", "broadcast 1 to 0", "value with 2+ consumers",
        "graph with 2+ outputs", "matmul of rank 3+ by rank 2", "chunk (reshape, slice, reshape)",
        "output also read by another op",
    };
    for (const char* feature : kRequired) {
      const auto it = features.find(feature);
      const int count = it == features.end() ? 0 : it->second;
      std::printf("  %-32s %6d%s\n", feature, count, count == 0 ? "   <-- never generated" : "");
      complete &= count > 0;
    }
    return complete;
  }
};

}  // namespace

int main() {
  Coverage coverage;
  bool ok = rc::check("random graphs type-check, print and re-parse identically, and interpret to their declared types",
                      [&coverage] {
                        const smelt::ir::Graph g = *gen_graph();
                        const std::string text = smelt::ir::print_graph(g);
                        const smelt::ir::Graph parsed = smelt::ir::parse_graph(text, "<random graph>");
                        RC_ASSERT(smelt::ir::print_graph(parsed) == text);
                        RC_ASSERT(parsed.size() == g.size());
                        for (size_t v = 0; v < g.size(); ++v)
                          RC_ASSERT(parsed.type(static_cast<smelt::ir::ValueId>(v)) == g.type(static_cast<smelt::ir::ValueId>(v)));

                        std::mt19937_64 rng(*rc::gen::arbitrary<uint64_t>());
                        const std::vector<smelt::ir::HostTensor> inputs = smelt::fuzz::random_inputs(g, rng);
                        const std::vector<smelt::ir::HostTensor> results = smelt::ir::interpret(g, inputs);
                        RC_ASSERT(results.size() == g.outputs().size());
                        for (size_t i = 0; i < results.size(); ++i) {
                          const smelt::ir::TensorType& declared = g.type(g.outputs()[i]);
                          RC_ASSERT(results[i].type == declared);
                          const size_t stored = smelt::ir::is_float(declared.dtype) ? results[i].reals.size() : results[i].ints.size();
                          RC_ASSERT(static_cast<int64_t>(stored) == smelt::ir::numel(declared.shape));
                        }
                        const std::vector<smelt::ir::HostTensor> reparsed_results = smelt::ir::interpret(parsed, inputs);
                        for (size_t i = 0; i < results.size(); ++i) RC_ASSERT(same_values(results[i], reparsed_results[i]));
                        coverage.record(g);
                      });
  ok &= coverage.report();
  return ok ? 0 : 1;
}
