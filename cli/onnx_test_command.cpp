#include "cli/onnx_test_command.h"

#include <memory>
#include <algorithm>
#include <iostream>

#include "cli/command.h"
#include "cli/commands.h"
#include "cli/format.h"
#include "smelt/smelt.h"

namespace smelt::cli {

int onnx_test_command(const OnnxTestCommandOptions& options) {
  smelt::OnnxTestOptions test_options;
  test_options.tolerance.rtol = options.rtol;
  test_options.tolerance.atol = options.atol;
  const std::vector<std::string> available = smelt::onnx_test_target_names();
  if (options.target != "all") {
    if (std::find(available.begin(), available.end(), options.target) == available.end()) {
      std::cerr << "error: unknown target '" << options.target << "'\n";
      return kBadInput;
    }
    test_options.targets = {options.target};
  }
  smelt::OnnxTestResult result = smelt::run_onnx_test(options.dir, test_options);
  for (const smelt::OnnxOutputCheck& check : result.checks) {
    std::cout << result.name << " " << check.data_set << " " << check.target << " " << check.output << ": ";
    if (!check.problem.empty())
      std::cout << check.problem;
    else if (!check.ok)
      std::cout << check.detail;
    else
      std::cout << "max abs error " << formatted("%.3g", check.difference.max_abs) << formatted(", worst %.3g", check.difference.worst_ratio)
                << " of its bound" << (check.difference.unchecked > 0 ? ", " + std::to_string(check.difference.unchecked) + " unchecked" : std::string());
    std::cout << (check.ok ? "  ok" : "  MISMATCH") << "\n";
  }
  if (!result.bound_inputs.empty()) {
    std::cout << result.name << ": inputs bound as constants (they feed shapes):";
    for (const std::string& name : result.bound_inputs) std::cout << " " << name;
    std::cout << "\n";
  }
  std::cout << result.name << ": " << smelt::onnx_test_status_name(result.status) << "\n";
  if (result.status == smelt::OnnxTestStatus::Passed) return kOk;
  std::cerr << "error: " << result.reason << "\n";
  return kBadInput;
}

Registered register_onnx_test(CLI::App& app, SharedOptions& shared) {
  auto onnx_test = std::make_shared<OnnxTestCommandOptions>();
  CLI::App* test_cmd = app.add_subcommand(
      "test", "Run one ONNX backend test directory (model.onnx + test_data_set_*); per output the max errors");
  test_cmd->add_option("dir", onnx_test->dir, "The test directory")->required();
  test_cmd->add_option("--target", onnx_test->target, "Where to run: reference, host or all")
      ->check(CLI::IsMember({"reference", "host", "all"}))
      ->default_val("all");
  test_cmd
      ->add_option("--rtol", onnx_test->rtol,
                   "Relative tolerance of each element, of max(|expected|, its error scale: the size of the terms "
                   "that produced it); default the dtype's: 1e-4 f32, 1e-2 f16, 2e-2 bf16, 0 integers")
      ->check(CLI::NonNegativeNumber);
  test_cmd->add_option("--atol", onnx_test->atol, "Absolute tolerance added to every element's bound")
      ->check(CLI::NonNegativeNumber)
      ->default_val(0);
  add_memory_limit_option(test_cmd, shared);
  add_work_limit_option(test_cmd, shared);

  return {test_cmd, [onnx_test] { return onnx_test_command(*onnx_test); }};
}

}  // namespace smelt::cli
