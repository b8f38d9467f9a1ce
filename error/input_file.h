#pragma once
// Every input file smelt reads (.sg, .onnx, .npy, tensor .pb, device
// profiles, rules) comes through here: only regular files (a directory or a
// device such as /dev/zero is refused before reading), at most `max_bytes`
// (by default the memory limit, error/memory_limit.h), checked before reading.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

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

// The same file, checked the same way, mapped read-only instead of copied: no
// anonymous memory to fault in and fill (reading GPT-2's 475 MB model into a
// string was 0.7 of its 5.7 s compile on the AMD EPYC, 2026-11-30). As LLVM's
// MemoryBuffer does for large files, a file truncated by another process
// while mapped is not guarded against.
class MappedInputFile {
 public:
  explicit MappedInputFile(const std::string& path, uint64_t max_bytes = UINT64_MAX);
  ~MappedInputFile();
  MappedInputFile(const MappedInputFile&) = delete;
  MappedInputFile& operator=(const MappedInputFile&) = delete;
  std::string_view bytes() const { return {data_, size_}; }

 private:
  const char* data_ = nullptr;
  size_t size_ = 0;
  void* mapping_ = nullptr;  // null for an empty file
};

}  // namespace smelt
