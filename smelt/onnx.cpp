// ONNX import and backend-style test directories (smelt/onnx.h).
#include "smelt/onnx.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "import/onnx_test_case.h"
#include "ir/interpreter.h"
#include "ir/text_format.h"
#include "smelt/compile.h"
#include "smelt/smelt.h"

namespace smelt {
namespace {

using importer::ImportError;
using importer::UnsupportedError;

std::string lowercase(const std::string& s) {
  std::string lower;
  for (char c : s) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower;
}

// The longest of `ops` that the squashed test name starts with ("" if none).
std::string longest_prefix_op(const std::string& squashed, const std::vector<std::string>& ops) {
  std::string best;
  for (const std::string& op : ops)
    if (squashed.rfind(lowercase(op), 0) == 0 && op.size() > best.size()) best = op;
  return best;
}

// The op a test is about, for grouping: "test_layer_normalization_2d_axis0" ->
// LayerNormalization, "test_tril_neg" -> Trilu; "_expanded" tests (the op written
// out as a function body) get their own group.
std::string primary_op(const std::string& test_name, const std::vector<std::string>& op_types) {
  const std::string name = test_name.rfind("test_", 0) == 0 ? test_name.substr(5) : test_name;
  const bool expanded = name.find("_expanded") != std::string::npos;
  const std::string suffix = expanded ? " (expanded)" : "";
  std::string squashed;
  for (char c : lowercase(name))
    if (c != '_') squashed += c;
  const std::string first_word = lowercase(name.substr(0, name.find('_')));
  std::vector<std::string> candidates = op_types;
  if (expanded) {  // the op itself is not in the model: any op smelt knows may be it
    std::vector<std::string> known = importer::supported_op_types();
    candidates.insert(candidates.end(), known.begin(), known.end());
  }
  std::string op = longest_prefix_op(squashed, candidates);
  if (op.empty())
    for (const std::string& candidate : op_types)
      if (lowercase(candidate).rfind(first_word, 0) == 0) op = candidate;
  if (op.empty() && !op_types.empty() &&
      std::all_of(op_types.begin(), op_types.end(), [&](const std::string& t) { return t == op_types[0]; }))
    op = op_types[0];
  if (op.empty()) op = longest_prefix_op(squashed, importer::supported_op_types());
  return (op.empty() ? first_word : op) + suffix;
}

// The shipped output against what a target computed, by the one rule, with
// the reference interpreter's error scale of each element.
OnnxOutputCheck compare(const ir::HostTensor& want, const ir::HostTensor& got, const ir::HostTensor* scale,
                        const ir::Tolerance& tolerance) {
  OnnxOutputCheck check;
  if (want.type != got.type) {
    check.problem = "expected " + ir::type_str(want.type) + ", got " + ir::type_str(got.type);
    return check;
  }
  check.difference = ir::compare_output(want, got, scale, tolerance);
  check.ok = check.difference.ok;
  if (!check.ok) check.detail = ir::describe_difference(want, got, check.difference);
  return check;
}

CompileOptions quick_compile_options() {
  CompileOptions options;
  options.target = lower::Target::kHost;
  options.limits.iterations = 4;
  options.limits.nodes = 5'000;
  options.limits.saturation_s = 0.25;
  options.limits.extraction_s = 0.25;
  options.threads = 1;
  return options;
}

// The one place a target is run. "host" is the compiled path (smelt::compile).
std::vector<ir::HostTensor> run_on_target(const ir::Graph& g, const std::string& target,
                                          const std::vector<ir::HostTensor>& inputs, const OnnxTestOptions& options,
                                          const ir::Reference& oracle) {
  if (target == "reference") return oracle.values;
  if (target == "host") {
    Program program = compile(g, options.quick_compile ? quick_compile_options() : CompileOptions{});
    return program.run(inputs);
  }
  throw std::invalid_argument("unknown target '" + target + "' (reference, host)");
}

// Imports the model for one data set, binding the inputs it needs as shapes.
importer::ImportResult import_for(const importer::OnnxTestCase& test, const importer::ModelSummary& summary,
                                  const importer::OnnxDataSet& data, std::vector<std::string>& bound) {
  importer::ImportOptions options;
  for (const std::string& name : bound) {
    auto at = std::find(summary.input_names.begin(), summary.input_names.end(), name);
    options.static_inputs[name] = data.inputs.at(static_cast<size_t>(at - summary.input_names.begin()));
  }
  for (;;) {
    try {
      return importer::import_model_file(test.model_path, options);
    } catch (const UnsupportedError& e) {
      auto at = std::find(summary.input_names.begin(), summary.input_names.end(), e.static_input());
      if (e.static_input().empty() || at == summary.input_names.end() || options.static_inputs.count(e.static_input()))
        throw;
      options.static_inputs[e.static_input()] = data.inputs.at(static_cast<size_t>(at - summary.input_names.begin()));
      bound.push_back(e.static_input());
    }
  }
}

// What `smelt import` writes for the model must read back as the same graph.
void check_text_round_trip(const ir::Graph& g, const std::string& model_path) {
  const std::string text = ir::print_graph(g);
  const std::string sg_name = model_path + " imported as .sg";
  try {
    if (ir::print_graph(ir::parse_graph(text, sg_name)) != text)
      throw ImportError(sg_name + ": the text reads back as a different graph");
  } catch (const ir::SgTextError& e) {
    throw ImportError(std::string(e.what()) + " (the .sg text of an imported model must read back)");
  }
}

void run_data_set(const importer::OnnxTestCase& test, const importer::ModelSummary& summary,
                  const importer::OnnxDataSet& data, const OnnxTestOptions& options, OnnxTestResult& result) {
  const std::string set_name = data.dir.substr(data.dir.find_last_of('/') + 1);
  if (data.inputs.size() != summary.input_names.size())
    throw ImportError(data.dir + ": " + std::to_string(data.inputs.size()) + " input files for a model with " +
                      std::to_string(summary.input_names.size()) + " inputs");
  importer::ImportResult imported = import_for(test, summary, data, result.bound_inputs);
  check_text_round_trip(imported.graph, test.model_path);
  std::vector<ir::HostTensor> inputs;
  const std::vector<ir::ValueId> graph_inputs = imported.graph.inputs();
  for (size_t i = 0; i < imported.input_names.size(); ++i) {
    auto at = std::find(summary.input_names.begin(), summary.input_names.end(), imported.input_names[i]);
    const ir::HostTensor& t = data.inputs.at(static_cast<size_t>(at - summary.input_names.begin()));
    if (t.type != imported.graph.type(graph_inputs[i]))
      throw ImportError(data.dir + ": input '" + imported.input_names[i] + "' holds " + ir::type_str(t.type) +
                        ", the model declares " + ir::type_str(imported.graph.type(graph_inputs[i])));
    inputs.push_back(t);
  }
  if (data.outputs.size() != imported.output_names.size())
    throw ImportError(data.dir + ": " + std::to_string(data.outputs.size()) + " output files for a model with " +
                      std::to_string(imported.output_names.size()) + " outputs");
  // The interpreter once: its values are the "reference" target's, its error
  // scales judge every target's elements.
  ir::Reference oracle;
  std::string oracle_error;
  try {
    oracle = reference(imported.graph, inputs);
  } catch (const std::exception& e) {
    oracle_error = e.what();
  }
  for (const std::string& target : options.targets) {
    std::vector<ir::HostTensor> outputs;
    std::string run_error = oracle_error;
    try {
      if (run_error.empty()) outputs = run_on_target(imported.graph, target, inputs, options, oracle);
    } catch (const std::exception& e) {
      run_error = e.what();
    }
    for (size_t i = 0; i < data.outputs.size(); ++i) {
      OnnxOutputCheck check = run_error.empty() ? compare(data.outputs[i], outputs.at(i), &oracle.error_scales.at(i),
                                                          options.tolerance)
                                                : OnnxOutputCheck{};
      if (!run_error.empty()) check.problem = run_error;
      check.target = target;
      check.output = imported.output_names[i];
      check.data_set = set_name;
      result.checks.push_back(std::move(check));
    }
  }
}

}  // namespace

ir::Graph import_onnx(const std::string& path, const importer::ImportOptions& options) {
  return importer::import_model_file(path, options).graph;
}

std::vector<std::string> onnx_test_target_names() { return {"reference", "host"}; }

std::string_view onnx_test_status_name(OnnxTestStatus s) {
  switch (s) {
    case OnnxTestStatus::Passed:
      return "passed";
    case OnnxTestStatus::Failed:
      return "failed";
    case OnnxTestStatus::Skipped:
      return "skipped";
  }
  return "?";
}

OnnxTestResult run_onnx_test(const std::string& dir, const OnnxTestOptions& options) {
  OnnxTestResult result;
  result.dir = dir;
  std::string trimmed = dir;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
  result.name = trimmed.substr(trimmed.find_last_of('/') + 1);
  result.op = result.name;
  try {
    importer::ModelSummary summary = importer::summarize_model(dir + "/model.onnx");
    result.op_types = summary.op_types;
    result.op = primary_op(result.name, summary.op_types);
    if (!summary.unsupported_signature.empty()) throw UnsupportedError(summary.unsupported_signature);
    importer::OnnxTestCase test = importer::load_test_case(dir);
    for (const importer::OnnxDataSet& data : test.data_sets) run_data_set(test, summary, data, options, result);
  } catch (const UnsupportedError& e) {
    result.status = OnnxTestStatus::Skipped;
    result.reason = e.what();
    return result;
  } catch (const std::exception& e) {
    result.status = OnnxTestStatus::Failed;
    result.reason = e.what();
    return result;
  }
  result.status = OnnxTestStatus::Passed;
  for (const OnnxOutputCheck& check : result.checks) {
    if (check.ok) continue;
    result.status = OnnxTestStatus::Failed;
    if (result.reason.empty())
      result.reason = check.target + " " + check.output + " (" + check.data_set + "): " +
                      (check.problem.empty() ? check.detail : check.problem);
  }
  return result;
}

}  // namespace smelt
