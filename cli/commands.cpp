#include "cli/command.h"
#include "cli/commands.h"

#include <memory>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "cli/format.h"
#include "cli/run_command.h"
#include "smelt/smelt.h"

namespace smelt::cli {

int report_error(const Error& e) {
  switch (e.kind()) {
    case ErrorKind::kLower:
    case ErrorKind::kDevice:
    case ErrorKind::kShape:
      std::cerr << "internal error: " << e.what() << "\n";
      return kInternalError;
    default:
      break;
  }
  if (e.location().line > 0) {
    std::cerr << e.what() << "\n";
  } else {
    std::cerr << "error: " << e.what();
    if (e.kind() == ErrorKind::kMemoryLimit) std::cerr << " (--memory-limit sets the limit)";
    if (e.kind() == ErrorKind::kWorkLimit) std::cerr << " (--work-limit sets the limit)";
    std::cerr << "\n";
  }
  return kBadInput;
}

namespace {

using nlohmann::json;

json type_json(const ir::TensorType& t) {
  return {{"dtype", std::string(ir::dtype_name(t.dtype))}, {"shape", t.shape}};
}

json values_json(const ir::Graph& g, const std::vector<ir::ValueId>& values) {
  json list = json::array();
  for (ir::ValueId v : values) {
    json entry = type_json(g.type(v));
    entry["name"] = value_name(g, v);
    list.push_back(entry);
  }
  return list;
}

std::string values_text(const ir::Graph& g, const std::vector<ir::ValueId>& values) {
  std::string text;
  for (ir::ValueId v : values)
    text += (text.empty() ? "" : ", ") + value_name(g, v) + " " + ir::type_str(g.type(v));
  return text;
}

std::string format_double(double v) { return formatted("%.9g", v); }
std::string format_seconds(double v) { return formatted("%.3f", v); }

}  // namespace

int check_command(const CheckOptions& options) {
  ir::Graph g = smelt::load_graph(options.file);
  std::map<std::string, int> op_counts;
  for (const ir::Node& n : g.nodes()) ++op_counts[std::string(ir::op_name(n.op))];
  std::vector<ir::ValueId> inputs = g.inputs();
  if (options.json) {
    json out = {{"file", options.file},
                {"graph", g.name()},
                {"ok", true},
                {"values", g.size()},
                {"ops", op_counts},
                {"inputs", values_json(g, inputs)},
                {"outputs", values_json(g, g.outputs())}};
    std::cout << out.dump() << "\n";
  } else {
    std::cout << options.file << ": ok: graph " << (g.name().empty() ? "(unnamed)" : g.name())
              << ", " << g.size() << " values, " << inputs.size() << " inputs, outputs: "
              << values_text(g, g.outputs()) << "\n";
  }
  return kOk;
}

int run_command(const RunOptions& options) {
  if (options.target == "reference" && options.check) {
    std::cerr << "error: --check compares a compiled target with the reference; use --target host|cuda|hip\n";
    return kUsage;
  }
  if (options.target != "reference") return run_compiled_command(options);
  ir::Graph g = smelt::load_graph(options.file);
  std::vector<ir::HostTensor> inputs = run_inputs(g, options);
  auto start = std::chrono::steady_clock::now();
  std::vector<ir::HostTensor> outputs = smelt::run_reference(g, inputs);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  save_outputs(g, outputs, options.outputs);

  if (options.json) {
    json list = json::array();
    for (size_t i = 0; i < outputs.size(); ++i) {
      json entry = type_json(outputs[i].type);
      entry["name"] = value_name(g, g.outputs()[i]);
      entry["checksum"] = ir::checksum(outputs[i]);
      list.push_back(entry);
    }
    json out = {{"file", options.file}, {"graph", g.name()},  {"target", "reference"},
                {"seed", options.seed}, {"outputs", list},    {"seconds", seconds}};
    std::cout << out.dump() << "\n";
  } else {
    for (size_t i = 0; i < outputs.size(); ++i)
      std::cout << value_name(g, g.outputs()[i]) << ": " << ir::type_str(outputs[i].type)
                << " checksum=" << format_double(ir::checksum(outputs[i])) << "\n";
    std::cout << "ran " << g.size() << " ops on the reference interpreter in "
              << format_seconds(seconds) << " s (inputs: "
              << (options.inputs == "random" ? "random, seed " + std::to_string(options.seed) : options.inputs) << ")\n";
  }
  return kOk;
}

Registered register_check(CLI::App& app, SharedOptions& shared) {
  auto check = std::make_shared<CheckOptions>();
  CLI::App* check_cmd = app.add_subcommand(
      "check", "Parse and shape-check a graph (.sg or .onnx); print a one-line summary");
  check_cmd->add_option("file", check->file, "The graph (.sg or .onnx)")->required();
  check_cmd->add_flag("--json", check->json, "Print one JSON object instead of text");
  add_memory_limit_option(check_cmd, shared);

  return {check_cmd, [check] { return check_command(*check); }};
}

}  // namespace smelt::cli
