#pragma once
// NumPy .npy files (format version 1, also 2 and 3), for `smelt run --inputs DIR`
// and `--outputs DIR`:
// little-endian, C order. dtypes: f32 '<f4', f16 '<f2', bf16 '<u2' (the raw
// bits), i32 '<i4', i64 '<i8', bool '|b1'.
#include <stdexcept>
#include <string>


#include "error/error.h"
#include "smelt/smelt.h"

namespace smelt::cli {

// A file that cannot be read as the tensor asked for; the message starts with the path.
class NpyError : public Error {
 public:
  explicit NpyError(const std::string& message) : Error(ErrorKind::kInputFile, message) {}
};

// The descr string that stands for `dtype` ("<f4", ...).
std::string npy_descr(ir::DType dtype);

// Reads `path` as a tensor of exactly `expected` (dtype and shape); `what`
// names it in errors ("input x"). Throws NpyError.
ir::HostTensor read_npy(const std::string& path, const ir::TensorType& expected, const std::string& what);

// Writes `tensor` to `path` as a version-1 .npy file. Throws NpyError.
void write_npy(const std::string& path, const ir::HostTensor& tensor);

// The file name `smelt run --outputs DIR` gives a value: its name with every
// character other than letters, digits, '_', '-' and '.' replaced by '_',
// and ".npy" (ONNX value names may hold '/' and ':').
std::string npy_file_name(const std::string& value_name);

}  // namespace smelt::cli
