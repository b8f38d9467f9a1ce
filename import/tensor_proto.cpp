#include "import/tensor_proto.h"

#include <cstring>
#include <fstream>

#include "import/import_error.h"
#include "onnx/onnx_pb.h"

namespace importer {
namespace {

using onnx::TensorProto;

constexpr int64_t kMaxElements = int64_t{1} << 31;

template <typename T>
T load_little_endian(const std::string& bytes, size_t index) {
  T value;
  std::memcpy(&value, bytes.data() + index * sizeof(T), sizeof(T));  // x86-64 / aarch64: little-endian
  return value;
}

// Fills `t` from raw_data, whose element width is `width` bytes.
void fill_from_raw(ir::HostTensor& t, const std::string& raw, int onnx_type, const std::string& what) {
  const int64_t n = t.numel();
  const size_t width = onnx_type == TensorProto::FLOAT16 || onnx_type == TensorProto::BFLOAT16 ? 2
                       : onnx_type == TensorProto::BOOL                                        ? 1
                       : onnx_type == TensorProto::INT64                                       ? 8
                                                                                               : 4;
  if (raw.size() != static_cast<size_t>(n) * width)
    throw ImportError(what + ": raw_data holds " + std::to_string(raw.size()) + " bytes, expected " +
                      std::to_string(static_cast<size_t>(n) * width));
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

void check_count(int64_t have, int64_t want, const std::string& field, const std::string& what) {
  if (have != want)
    throw ImportError(what + ": " + field + " holds " + std::to_string(have) + " values, the shape needs " +
                      std::to_string(want));
}

void fill_from_typed_fields(ir::HostTensor& t, const TensorProto& p, const std::string& what) {
  const int64_t n = t.numel();
  switch (p.data_type()) {
    case TensorProto::FLOAT:
      check_count(p.float_data_size(), n, "float_data", what);
      for (int64_t i = 0; i < n; ++i) t.set(i, p.float_data(static_cast<int>(i)));
      break;
    case TensorProto::INT64:
      check_count(p.int64_data_size(), n, "int64_data", what);
      for (int64_t i = 0; i < n; ++i) t.set_int(i, p.int64_data(static_cast<int>(i)));
      break;
    default:  // int32_data carries INT32, BOOL and the 16-bit floats as their bits
      check_count(p.int32_data_size(), n, "int32_data", what);
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
  ir::TensorType type{*dtype, {}};
  int64_t elements = 1;
  for (int64_t d : p.dims()) {
    if (d < 0) throw ImportError(what + ": negative dimension " + std::to_string(d));
    if (d > kMaxElements || (elements *= d) > kMaxElements)
      throw ImportError(what + ": more than 2^31 elements (not a tensor file?)");
    type.shape.push_back(d);
  }
  ir::HostTensor t = ir::HostTensor::zeros(type);
  if (p.has_raw_data())
    fill_from_raw(t, p.raw_data(), p.data_type(), what);
  else
    fill_from_typed_fields(t, p, what);
  return t;
}

ir::HostTensor read_tensor_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ImportError(path + ": cannot open");
  TensorProto proto;
  if (!proto.ParseFromIstream(&in)) throw ImportError(path + ": not a serialized ONNX TensorProto");
  return tensor_from_proto(proto, path);
}

}  // namespace importer
