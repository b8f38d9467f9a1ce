#include "tests/fusion/fusion_test_util.h"

#include "ir/tensor_compare.h"
#include "rules/rule_library.h"
#include "rules/saturate.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <sstream>

#include "ir/interpreter.h"
#include "kernel/kernel_interpreter.h"
#include "ir/text_format.h"

namespace smelt::fusion_testing {

namespace {
std::string example_path(const std::string& name) {
  return std::string(SMELT_SOURCE_DIR) + "/examples/" + name + ".sg";
}

// Integer tokens to replace in each large example; every extent that must
// stay consistent (slices of halves, reshapes into heads) is mapped together.
const std::map<std::string, std::map<std::string, std::string>>& scalings() {
  static const std::map<std::string, std::map<std::string, std::string>> kScalings = {
      {"mlir_dot_slice", {{"64", "4"}, {"1024", "8"}, {"4096", "12"}, {"2048", "6"}}},
      {"llama_mlp_swiglu", {{"128", "4"}, {"512", "8"}, {"1376", "6"}}},
      {"llama_attention_rope", {{"128", "4"}, {"512", "16"}, {"8", "2"}, {"64", "8"}, {"32", "4"}}},
  };
  return kScalings;
}
}  // namespace

ir::Graph example(const std::string& name) { return ir::parse_graph_file(example_path(name)); }

ir::Graph test_graph(const std::string& name) {
  return ir::parse_graph_file(std::string(SMELT_SOURCE_DIR) + "/tests/fusion/graphs/" + name + ".sg");
}

std::vector<std::string> example_names() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(SMELT_SOURCE_DIR) + "/examples"))
    if (entry.path().extension() == ".sg") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<cost::ShippedProfile> shipped_host_profiles() {
  std::vector<cost::ShippedProfile> host;
  for (const cost::ShippedProfile& s : cost::shipped_profiles())
    if (s.profile.device == "host") host.push_back(s);
  return host;
}

bool is_large_example(const std::string& name) { return scalings().count(name) > 0; }

ir::Graph scaled_example(const std::string& name) {
  auto it = scalings().find(name);
  if (it == scalings().end()) return example(name);
  std::ifstream in(example_path(name));
  std::stringstream text;
  text << in.rdbuf();
  const std::string source = text.str();
  // Whole integer tokens only: not digits of names (w_t0), dtypes (f32) or decimals (0.125).
  static const std::regex kInteger(R"((^|[^\w.])(\d+)(?![\w.]))");
  std::string scaled;
  auto last = source.cbegin();
  for (std::sregex_iterator m(source.begin(), source.end(), kInteger), end; m != end; ++m) {
    const auto digits = (*m)[2];
    scaled.append(last, digits.first);
    auto replacement = it->second.find(digits.str());
    scaled += replacement == it->second.end() ? digits.str() : replacement->second;
    last = digits.second;
  }
  scaled.append(last, source.cend());
  return ir::parse_graph(scaled, name + " (scaled)");
}

std::vector<ir::HostTensor> random_inputs(const ir::Graph& g, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<ir::HostTensor> inputs;
  for (ir::ValueId v : g.inputs()) inputs.push_back(ir::random_tensor(g.type(v), rng));
  return inputs;
}

std::string check_program(const ir::Graph& g, const kernel::KernelProgram& program, uint64_t seed) {
  const std::vector<ir::HostTensor> inputs = random_inputs(g, seed);
  return ir::compare_outputs(ir::interpret_with_error_scales(g, inputs), kernel::run_kernels(program, inputs));
}

int count_ops(const kernel::KernelProgram& program, ir::Op op) {
  int count = 0;
  for (const kernel::Kernel& k : program.kernels)
    for (const kernel::KernelExpr& e : k.exprs)
      count += e.kind == kernel::KernelExpr::Kind::kElementwise && e.op == op;
  return count;
}

const std::vector<rules::CompiledRule>& default_compiled() {
  static const std::vector<rules::Rule> rules = rules::default_rules();
  static const std::vector<rules::CompiledRule> compiled = rules::compile_rules(rules);
  return compiled;
}

}  // namespace smelt::fusion_testing
