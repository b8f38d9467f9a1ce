#pragma once
// Every input file smelt reads (.sg, .onnx, .npy, tensor .pb, device
// profiles, rules) comes through here: only regular files (a directory or a
// device such as /dev/zero is refused before reading), at most `max_bytes`
// (by default the memory limit, error/memory_limit.h), checked before reading.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "error/error.h"

namespace smelt {

// what() is "PATH: message": "is a directory, not a file", "is not a regular
// file ...", "reading the file needs 5.0 GiB, more than the memory limit of
// ...", "cannot read file: No such file or directory".
class InputFileError : public Error {
 public:
  InputFileError(const std::string& path, const std::string& message)
      : Error(ErrorKind::kInputFile, message, {path, 0, 0}) {}
};

// The file's bytes; InputFileError for a file that is not a regular one, or
// larger than memory_limit() or `max_bytes`.
std::string read_input_file(const std::string& path, uint64_t max_bytes = UINT64_MAX);

}  // namespace smelt
