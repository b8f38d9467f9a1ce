#pragma once
// Errors of the ONNX importer. Every message names the ONNX node (its name, or its
// index when unnamed), the op and, where one is at fault, the attribute or input.
#include <string>

#include "error/error.h"

namespace smelt::importer {

// A model the importer cannot read or that is malformed: the user's file is bad.
class ImportError : public Error {
 public:
  explicit ImportError(const std::string& message, ErrorKind kind = ErrorKind::kImport) : Error(kind, message) {}
};

// A well-formed model that uses something smelt does not support (an op, an
// attribute value, a dtype such as f64 or u8, a dynamic dimension). The
// conformance runner reports these as skips, with this message as the reason.
class UnsupportedError : public ImportError {
 public:
  explicit UnsupportedError(const std::string& message, std::string static_input = {})
      : ImportError(message, ErrorKind::kUnsupported), static_input_(std::move(static_input)) {}
  // Set when the only problem is that a graph input is used where smelt needs a
  // value known at import time (a shape, axes, slice bounds): binding that input
  // to a value (ImportOptions::static_inputs) makes the model importable.
  const std::string& static_input() const { return static_input_; }

 private:
  std::string static_input_;
};

}  // namespace smelt::importer
