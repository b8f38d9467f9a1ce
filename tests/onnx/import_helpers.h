#pragma once
// What the importer's test files share: importing a model built in memory and
// the message of an import the importer refuses.
#include <gtest/gtest.h>

#include <string>

#include "import/import_error.h"
#include "import/onnx_import.h"
#include "tests/onnx/model_builder.h"

namespace smelt::onnx_testing {

inline constexpr int kF32 = onnx::TensorProto::FLOAT, kI64 = onnx::TensorProto::INT64;

inline importer::ImportResult import(const ModelBuilder& m, const importer::ImportOptions& options = {}) {
  return importer::import_model_bytes(m.bytes(), "test.onnx", options);
}

// The message of the UnsupportedError that importing `m` throws.
inline std::string unsupported_message(const ModelBuilder& m) {
  try {
    import(m);
  } catch (const importer::UnsupportedError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an UnsupportedError";
  return {};
}

}  // namespace smelt::onnx_testing
