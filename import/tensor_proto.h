#pragma once
// ONNX TensorProto <-> smelt host tensors: the dtype mapping and the element data,
// read from raw_data (little-endian bytes) or from the typed repeated fields.
#include <optional>
#include <string>

#include "ir/host_tensor.h"

namespace onnx {
class TensorProto;
}

namespace smelt::importer {

// The smelt dtype of an ONNX TensorProto::DataType, or nothing where smelt has none
// (f64, u8, i8, i16, u16, u32, u64, string, complex).
std::optional<ir::DType> dtype_from_onnx(int onnx_type);
// "DOUBLE", "UINT8", ... for messages.
std::string onnx_type_name(int onnx_type);

// Throws UnsupportedError for a dtype smelt lacks or external data, ImportError for
// a tensor whose data does not match its shape, MemoryLimitError for one
// above the memory limit (before allocating). `what` names it in messages.
ir::HostTensor tensor_from_proto(const onnx::TensorProto& proto, const std::string& what);

// Reads a serialized TensorProto (the test_data_set_*/input_*.pb files).
ir::HostTensor read_tensor_file(const std::string& path);

}  // namespace smelt::importer
