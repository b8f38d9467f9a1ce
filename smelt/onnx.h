#pragma once
// ONNX in the public API: import a model, and run an ONNX backend-style test
// directory (model.onnx + test_data_set_*/{input,output}_*.pb) through the
// reference interpreter and the compiled host path, compared with the shipped
// outputs by ir/tensor_compare.h's rule (error scales from the interpreter). `smelt test` and the conformance runner (tests/onnx) share this code.
#include <string>
#include <vector>

#include "import/import_error.h"
#include "import/onnx_import.h"
#include "ir/graph.h"
#include "ir/tensor_compare.h"

namespace smelt {

// Imports a model (import/onnx_import.h). Throws importer::ImportError, or its
// subclass importer::UnsupportedError for an op, attribute or dtype smelt lacks.
ir::Graph import_onnx(const std::string& path, const importer::ImportOptions& options = {});

// Where a test runs: "reference" (the interpreter) and "host" (smelt::compile).
std::vector<std::string> onnx_test_target_names();

struct OnnxTestOptions {
  std::vector<std::string> targets = onnx_test_target_names();
  // smelt's one rule (ir/tensor_compare.h): each element within rtol of
  // max(|expected|, its error scale from the reference interpreter).
  ir::Tolerance tolerance;
  // Fast optimizer limits for the compiled path (a conformance run compiles
  // hundreds of small models).
  bool quick_compile = true;
};

// One output of one data set on one target.
struct OnnxOutputCheck {
  std::string target, output, data_set;
  ir::OutputDifference difference;
  std::string detail;  // describe_difference's line when it failed
  bool ok = false;
  std::string problem;  // a dtype or shape mismatch, a run error; empty when only numbers are compared
};

enum class OnnxTestStatus { Passed, Failed, Skipped };
std::string_view onnx_test_status_name(OnnxTestStatus s);

struct OnnxTestResult {
  std::string name, dir;
  std::string op;                     // the op the test is about (for grouping)
  std::vector<std::string> op_types;  // every op type in the model
  OnnxTestStatus status = OnnxTestStatus::Failed;
  std::string reason;                     // why it failed or was skipped
  std::vector<std::string> bound_inputs;  // inputs bound as constants (they feed shapes)
  std::vector<OnnxOutputCheck> checks;
};

// Never throws for a bad test: a malformed one fails, an unsupported one is skipped.
OnnxTestResult run_onnx_test(const std::string& dir, const OnnxTestOptions& options = {});

}  // namespace smelt
