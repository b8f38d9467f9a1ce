#include "tests/rules/test_graphs.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <filesystem>
#include <limits>
#include <random>
#include <sstream>
#include <unordered_set>

#include "ir/interpreter.h"
#include "ir/text_format.h"
#include "rules/tensor_analysis.h"

namespace smelt::rules::testing {

using smelt::egraph::EGraph;
using smelt::egraph::Id;

ir::Graph example(const std::string& name) {
  return ir::parse_graph_file(std::string(SMELT_SOURCE_DIR) + "/examples/" + name + ".sg");
}

std::vector<std::string> example_names() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(SMELT_SOURCE_DIR) + "/examples"))
    if (entry.path().extension() == ".sg") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<ir::HostTensor> random_inputs(const ir::Graph& g, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<ir::HostTensor> inputs;
  for (ir::ValueId v : g.inputs()) inputs.push_back(ir::random_tensor(g.type(v), rng));
  return inputs;
}

std::vector<ir::HostTensor> edge_inputs(const ir::Graph& g, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution edge(0.35);
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> float_edges = {0.0,          -0.0,    1.0,      -1.0,  inf,    -inf,
                                           std::nan(""), 65504.0, -65504.0, 1e-40, 3.0e38, 0.5};
  const std::vector<double> int_edges = {0, 1, -1, 2147483647.0, -2147483648.0, 7};
  std::vector<ir::HostTensor> inputs = random_inputs(g, seed + 1);
  for (ir::HostTensor& t : inputs) {
    const std::vector<double>& edges = ir::is_float(t.type.dtype) ? float_edges : int_edges;
    if (t.type.dtype == ir::DType::Bool) continue;
    std::uniform_int_distribution<size_t> pick(0, edges.size() - 1);
    for (int64_t i = 0; i < t.numel(); ++i)
      if (edge(rng)) t.set(i, edges[pick(rng)]);
  }
  return inputs;
}

std::string compare_outputs(const ir::Graph& expected, const ir::Graph& actual,
                            const std::vector<ir::HostTensor>& inputs, double tolerance) {
  if (tolerance == 0) return compare_values(ir::interpret(expected, inputs), ir::interpret(actual, inputs), 0.0);
  // The one rule (ir/tensor_compare.h): each element within `tolerance` of max(|want|, its error scale).
  return ir::compare_outputs(ir::interpret_with_error_scales(expected, inputs), ir::interpret(actual, inputs),
                             ir::Tolerance{tolerance, 0});
}

std::string compare_values(const std::vector<ir::HostTensor>& want, const std::vector<ir::HostTensor>& got,
                           double tolerance) {
  if (tolerance != 0) return ir::compare_outputs(want, got, ir::Tolerance{tolerance, 0});
  if (want.size() != got.size()) return "different numbers of outputs";
  for (size_t o = 0; o < want.size(); ++o) {
    if (want[o].type != got[o].type)
      return "output " + std::to_string(o) + ": type " + ir::type_str(got[o].type) + ", expected " +
             ir::type_str(want[o].type);
    for (int64_t i = 0; i < want[o].numel(); ++i) {
      const double a = want[o].get(i), b = got[o].get(i);
      if (std::isnan(a) && std::isnan(b)) continue;
      if (std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b)) continue;
      std::ostringstream out;
      out << "output " << o << " element " << i << ": " << b << ", expected " << a;
      return out.str();
    }
  }
  return {};
}

std::optional<Id> find_term(const EGraph& graph, const ir::Graph& term, ir::ValueId v) {
  const TensorLang& lang = tensor_analysis(graph).lang();
  if (v < 0) v = term.outputs().at(0);
  std::vector<Id> classes;
  for (const ir::Node& node : term.nodes()) {
    if (classes.size() > static_cast<size_t>(v)) break;
    std::optional<Id> found;
    std::vector<Id> children;
    for (ir::ValueId operand : node.operands) children.push_back(classes.at(static_cast<size_t>(operand)));
    if (auto payload = lang.find_payload(node.op, node.attrs, node.name))
      found = graph.lookup(lang.symbol(node.op), *payload, children);
    if (!found) return std::nullopt;
    classes.push_back(*found);
  }
  return classes.at(static_cast<size_t>(v));
}

bool reaches(const EGraph& graph, Id from, Id to) {
  to = graph.find(to);
  std::vector<Id> stack{graph.find(from)};
  std::unordered_set<Id> seen;
  while (!stack.empty()) {
    const Id cls = stack.back();
    stack.pop_back();
    if (cls == to) return true;
    if (!seen.insert(cls).second) continue;
    for (Id node : graph.class_nodes(cls))
      for (Id child : graph.node(node).children) stack.push_back(graph.find(child));
  }
  return false;
}

}  // namespace smelt::rules::testing
