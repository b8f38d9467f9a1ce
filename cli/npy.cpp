#include "cli/npy.h"

#include <cctype>
#include <cstring>
#include <fstream>
#include <regex>
#include <span>
#include <string>
#include <vector>

#include "smelt/memory.h"
#include "smelt/compile.h"

namespace smelt::cli {
namespace {

std::string shape_text(const ir::Shape& shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) text += std::to_string(shape[i]) + (shape.size() == 1 ? "," : i + 1 < shape.size() ? ", " : "");
  return text + ")";
}

// The value of `key` in the header dict, as written (a quoted string, a bool or a tuple).
std::string dict_value(const std::string& header, const std::string& key, const std::string& path) {
  const std::regex pattern("['\"]" + key + "['\"]\\s*:\\s*('[^']*'|\"[^\"]*\"|\\([^)]*\\)|True|False)");
  std::smatch m;
  if (!std::regex_search(header, m, pattern)) throw NpyError(path + ": malformed .npy header: no '" + key + "'");
  return m[1].str();
}

ir::Shape parse_shape(const std::string& tuple, const std::string& path) {
  ir::Shape shape;
  const std::string inside = tuple.substr(1, tuple.size() - 2);
  size_t pos = 0;
  while (pos < inside.size()) {
    size_t comma = inside.find(',', pos);
    if (comma == std::string::npos) comma = inside.size();
    std::string item = inside.substr(pos, comma - pos);
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \tL") + 1);
    if (!item.empty()) {
      if (item.find_first_not_of("0123456789") != std::string::npos)
        throw NpyError(path + ": malformed .npy header: bad shape " + tuple);
      shape.push_back(std::stoll(item));
    }
    pos = comma + 1;
  }
  return shape;
}

}  // namespace

std::string npy_descr(ir::DType dtype) {
  switch (dtype) {
    case ir::DType::F32: return "<f4";
    case ir::DType::F16: return "<f2";
    case ir::DType::BF16: return "<u2";
    case ir::DType::I32: return "<i4";
    case ir::DType::I64: return "<i8";
    case ir::DType::Bool: return "|b1";
  }
  return "?";
}

ir::HostTensor read_npy(const std::string& path, const ir::TensorType& expected, const std::string& what) {
  std::string bytes;
  try {
    bytes = read_input_file(path);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::kInputFile) throw;
    throw NpyError(std::string(e.what()) + " (" + what + ")");
  }
  const std::span<const uint8_t> file(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  static const char kMagic[] = "\x93NUMPY";
  if (file.size() < 10 || std::memcmp(file.data(), kMagic, 6) != 0) throw NpyError(path + ": not a .npy file");
  const int major = file[6];
  size_t header_len = 0, header_start = 0;
  if (major == 1) {
    header_len = file[8] | (file[9] << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (file.size() < 12) throw NpyError(path + ": truncated .npy header");
    header_len = file[8] | (file[9] << 8) | (file[10] << 16) | (static_cast<size_t>(file[11]) << 24);
    header_start = 12;
  } else {
    throw NpyError(path + ": unsupported .npy format version " + std::to_string(major));
  }
  if (file.size() < header_start + header_len) throw NpyError(path + ": truncated .npy header");
  const std::string header(file.begin() + header_start, file.begin() + header_start + header_len);

  std::string descr = dict_value(header, "descr", path);
  descr = descr.substr(1, descr.size() - 2);
  if (descr == "<b1") descr = "|b1";  // some writers spell the byte order of bool
  const std::string want_descr = npy_descr(expected.dtype);
  if (descr != want_descr)
    throw NpyError(path + ": dtype '" + descr + "', but " + what + " is " + ir::type_str(expected) + " (expected '" +
                   want_descr + "')");
  if (dict_value(header, "fortran_order", path) != "False")
    throw NpyError(path + ": Fortran-order arrays are not supported (save with C order)");
  const ir::Shape shape = parse_shape(dict_value(header, "shape", path), path);
  if (shape != expected.shape)
    throw NpyError(path + ": shape " + shape_text(shape) + ", but " + what + " is " + ir::type_str(expected));

  const size_t data_start = header_start + header_len;
  const size_t want_bytes = smelt::storage_bytes(expected);
  if (file.size() - data_start != want_bytes)
    throw NpyError(path + ": " + std::to_string(file.size() - data_start) + " data bytes, expected " +
                   std::to_string(want_bytes) + " for " + ir::type_str(expected));
  return smelt::from_bytes(expected, std::span<const uint8_t>(file.data() + data_start, want_bytes));
}

void write_npy(const std::string& path, const ir::HostTensor& tensor) {
  std::string header = "{'descr': '" + npy_descr(tensor.type.dtype) + "', 'fortran_order': False, 'shape': " +
                       shape_text(tensor.type.shape) + ", }";
  // Magic (6) + version (2) + length (2) + header + '\n', padded to a multiple of 64.
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  const std::vector<uint8_t> data = smelt::to_bytes(tensor);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw NpyError(path + ": cannot be written");
  out.write("\x93NUMPY\x01\x00", 8);
  const char len[2] = {static_cast<char>(header.size() & 0xff), static_cast<char>(header.size() >> 8)};
  out.write(len, 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
  if (!out) throw NpyError(path + ": write failed");
}

std::string npy_file_name(const std::string& value_name) {
  std::string name = value_name;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') c = '_';
  return name + ".npy";
}

}  // namespace smelt::cli
