#pragma once
// smelt::Error: the one exception type every layer's errors derive from, so a
// user (the CLI, the Python package, a C++ caller) catches one type and reads
// its kind, its message and, for bad input in a file, file:line:col. The
// layers keep their own subclasses (smelt::ir::SgTextError, smelt::rules::RuleError, ...)
// for callers that want one kind only. Header-only, standard library only:
// every library, the generic e-graph included, may use it.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace smelt {

enum class ErrorKind : std::uint8_t {
  kParse,              // a .sg file, a pattern or term: FILE:LINE:COL
  kRule,               // a .rules file: FILE:LINE:COL
  kRuleApplication,    // a rule whose right side fails on a match
  kImport,             // an ONNX model that is malformed
  kUnsupported,        // an ONNX model using what smelt does not support
  kShape,              // operands whose shapes or dtypes do not fit the op
  kInput,              // run inputs of the wrong number, dtype or shape
  kInputFile,          // a file that cannot be read (missing, too large, not .npy)
  kMemoryLimit,        // work that would pass the memory limit
  kWorkLimit,          // a run whose element visits would pass the work limit
  kInterpret,          // the reference interpreter cannot evaluate the graph
  kLower,              // code generation failed
  kDevice,             // a device failed while loading or running
  kDeviceUnavailable,  // the target's device or driver is not on this machine
  kExtractInput,       // a serialized e-graph that cannot be extracted from
};

// "parse", "rule", ...: the kind's name in messages, JSON and Python.
constexpr std::string_view error_kind_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kParse: return "parse";
    case ErrorKind::kRule: return "rule";
    case ErrorKind::kRuleApplication: return "rule_application";
    case ErrorKind::kImport: return "import";
    case ErrorKind::kUnsupported: return "unsupported";
    case ErrorKind::kShape: return "shape";
    case ErrorKind::kInput: return "input";
    case ErrorKind::kInputFile: return "input_file";
    case ErrorKind::kMemoryLimit: return "memory_limit";
    case ErrorKind::kWorkLimit: return "work_limit";
    case ErrorKind::kInterpret: return "interpret";
    case ErrorKind::kLower: return "lower";
    case ErrorKind::kDevice: return "device";
    case ErrorKind::kDeviceUnavailable: return "device_unavailable";
    case ErrorKind::kExtractInput: return "extract_input";
  }
  return "error";
}

// Where in a file the error is; line 0 when only the file is known, file ""
// when the error has no file.
struct SourceLocation {
  std::string file;
  int line = 0;
  int col = 0;
};

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, std::string message, SourceLocation where = {})
      : std::runtime_error(located(message, where)), kind_(kind), message_(std::move(message)), where_(std::move(where)) {}

  ErrorKind kind() const { return kind_; }
  // The message without the location; what() is "FILE:LINE:COL: message".
  const std::string& message() const { return message_; }
  const SourceLocation& location() const { return where_; }

 private:
  static std::string located(const std::string& message, const SourceLocation& where) {
    if (where.file.empty()) return message;
    if (where.line <= 0) return where.file + ": " + message;
    return where.file + ":" + std::to_string(where.line) + ":" + std::to_string(where.col) + ": " + message;
  }

  ErrorKind kind_;
  std::string message_;
  SourceLocation where_;
};

}  // namespace smelt
