#include "import/tensor_proto.h"

#include <algorithm>
#include <cstring>

#include "import/import_error.h"
#include "error/input_file.h"
#include "error/memory_limit.h"
#include "onnx/onnx_pb.h"

namespace smelt::importer {
namespace {

using onnx::TensorProto;

size_t raw_width(int onnx_type) {
  return onnx_type == TensorProto::FLOAT16 || onnx_type == TensorProto::BFLOAT16 ? 2
         : onnx_type == TensorProto::BOOL                                        ? 1
         : onnx_type == TensorProto::INT64                                       ? 8
                                                                                 : 4;
}

template <typename T>
T load_little_endian(const std::string& bytes, size_t index) {
  T value;
  std::memcpy(&value, bytes.data() + index * sizeof(T), sizeof(T));  // x86-64 / aarch64: little-endian
  return value;
}

// f32 raw_data (nearly all of a model's bytes) as doubles: every float is a
// double exactly, so no rounding per element. Copied in blocks through an
// aligned buffer and appended converted, without first zeroing the list (a
// second pass over GPT-2's 950 MB of doubles).
std::vector<double> doubles_from_raw_floats(const std::string& raw, size_t n) {
  std::vector<double> values;
  values.reserve(n);
  constexpr size_t kBlock = 4096;
  float block[kBlock];
  for (size_t i = 0; i < n; i += kBlock) {
    const size_t count = std::min(kBlock, n - i);
    std::memcpy(block, raw.data() + i * sizeof(float), count * sizeof(float));  // x86-64 / aarch64: little-endian
    values.insert(values.end(), block, block + count);
  }
  return values;
}

// Fills `t` from raw_data, which holds raw_width(onnx_type) bytes per element (checked).
void fill_from_raw(ir::HostTensor& t, const std::string& raw, int onnx_type) {
  const int64_t n = t.numel();
  for (int64_t i = 0; i < n; ++i) {
    switch (onnx_type) {
      case TensorProto::FLOAT:
        t.set(i, load_little_endian<float>(raw, i));
        break;
      case TensorProto::FLOAT16:
        t.set(i, ir::f16_bits_to_f32(load_little_endian<uint16_t>(raw, i)));
        break;
      case TensorProto::BFLOAT16:
        t.set(i, ir::bf16_bits_to_f32(load_little_endian<uint16_t>(raw, i)));
        break;
      case TensorProto::INT32:
        t.set_int(i, load_little_endian<int32_t>(raw, i));
        break;
      case TensorProto::INT64:
        t.set_int(i, load_little_endian<int64_t>(raw, i));
        break;
      case TensorProto::BOOL:
        t.set_int(i, load_little_endian<uint8_t>(raw, i) != 0);
        break;
    }
  }
}

// The data the proto holds must be exactly `n` elements; checked before the
// tensor is allocated, so that a huge shape with no data allocates nothing.
void check_data_size(const TensorProto& p, int64_t n, const std::string& what) {
  if (p.has_raw_data()) {
    const size_t want = static_cast<size_t>(n) * raw_width(p.data_type());
    if (p.raw_data().size() != want)
      throw ImportError(what + ": raw_data holds " + std::to_string(p.raw_data().size()) + " bytes, expected " +
                        std::to_string(want));
    return;
  }
  // int32_data carries INT32, BOOL and the 16-bit floats as their bits
  const bool is_float = p.data_type() == TensorProto::FLOAT, is_int64 = p.data_type() == TensorProto::INT64;
  const int64_t have = is_float ? p.float_data_size() : is_int64 ? p.int64_data_size() : p.int32_data_size();
  if (have != n)
    throw ImportError(what + ": " + (is_float ? "float_data" : is_int64 ? "int64_data" : "int32_data") + " holds " +
                      std::to_string(have) + " values, the shape needs " + std::to_string(n));
}

void fill_from_typed_fields(ir::HostTensor& t, const TensorProto& p) {
  const int64_t n = t.numel();
  switch (p.data_type()) {
    case TensorProto::FLOAT:
      for (int64_t i = 0; i < n; ++i) t.set(i, p.float_data(static_cast<int>(i)));
      break;
    case TensorProto::INT64:
      for (int64_t i = 0; i < n; ++i) t.set_int(i, p.int64_data(static_cast<int>(i)));
      break;
    default:
      for (int64_t i = 0; i < n; ++i) {
        const int32_t v = p.int32_data(static_cast<int>(i));
        if (p.data_type() == TensorProto::FLOAT16)
          t.set(i, ir::f16_bits_to_f32(static_cast<uint16_t>(v)));
        else if (p.data_type() == TensorProto::BFLOAT16)
          t.set(i, ir::bf16_bits_to_f32(static_cast<uint16_t>(v)));
        else if (p.data_type() == TensorProto::BOOL)
          t.set_int(i, v != 0);
        else
          t.set_int(i, v);
      }
  }
}

}  // namespace

std::optional<ir::DType> dtype_from_onnx(int onnx_type) {
  switch (onnx_type) {
    case TensorProto::FLOAT:
      return ir::DType::F32;
    case TensorProto::FLOAT16:
      return ir::DType::F16;
    case TensorProto::BFLOAT16:
      return ir::DType::BF16;
    case TensorProto::INT32:
      return ir::DType::I32;
    case TensorProto::INT64:
      return ir::DType::I64;
    case TensorProto::BOOL:
      return ir::DType::Bool;
    default:
      return std::nullopt;
  }
}

std::string onnx_type_name(int onnx_type) {
  if (TensorProto::DataType_IsValid(onnx_type))
    return TensorProto::DataType_Name(static_cast<TensorProto::DataType>(onnx_type));
  return "type " + std::to_string(onnx_type);
}

ir::HostTensor tensor_from_proto(const TensorProto& p, const std::string& what) {
  std::optional<ir::DType> dtype = dtype_from_onnx(p.data_type());
  if (!dtype)
    throw UnsupportedError(what + ": element type " + onnx_type_name(p.data_type()) +
                           " (smelt has f32, f16, bf16, i32, i64, bool)");
  if (p.data_location() == TensorProto::EXTERNAL)
    throw UnsupportedError(what + ": tensor data stored in an external file");
  ir::TensorType type{*dtype, {p.dims().begin(), p.dims().end()}};
  if (std::string problem = ir::shape_problem(type.shape); !problem.empty()) throw ImportError(what + ": " + problem);
  check_data_size(p, ir::numel(type.shape), what);
  check_memory(ir::host_tensor_bytes(type), what + " (" + ir::type_str(type) + ", 8 bytes per element)");
  if (p.has_raw_data() && p.data_type() == TensorProto::FLOAT) {
    std::vector<double> values = doubles_from_raw_floats(p.raw_data(), static_cast<size_t>(ir::numel(type.shape)));
    return ir::HostTensor{std::move(type), std::move(values), {}};
  }
  ir::HostTensor t = ir::HostTensor::zeros(type);
  if (p.has_raw_data())
    fill_from_raw(t, p.raw_data(), p.data_type());
  else
    fill_from_typed_fields(t, p);
  return t;
}

ir::HostTensor read_tensor_file(const std::string& path) {
  std::string bytes;
  try {
    bytes = read_input_file(path);
  } catch (const InputFileError& e) {
    throw ImportError(e.what());
  }
  TensorProto proto;
  if (!proto.ParseFromString(bytes)) throw ImportError(path + ": not a serialized ONNX TensorProto");
  return tensor_from_proto(proto, path);
}

}  // namespace smelt::importer
