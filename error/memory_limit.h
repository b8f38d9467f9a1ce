#pragma once
// The memory smelt may take for tensor data and input files, checked before
// each large allocation (a host tensor, the reference interpreter's live
// values, a compiled program's buffers, an input file): a graph too big for
// the machine is a clear error naming the bytes it needs and the limit, not
// std::bad_alloc. One limit per process; `smelt --memory-limit` sets it.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "error/error.h"

namespace smelt {

// what() is "SUBJECT needs N GiB, more than the memory limit of M GiB".
class MemoryLimitError : public Error {
 public:
  MemoryLimitError(const std::string& subject, uint64_t needed_bytes, uint64_t limit_bytes);
  // What needs the memory; a caller may rethrow with more context before it.
  const std::string& subject() const { return subject_; }
  uint64_t needed_bytes() const { return needed_; }
  uint64_t limit_bytes() const { return limit_; }

 private:
  std::string subject_;
  uint64_t needed_, limit_;
};

// Half of the physical memory.
uint64_t default_memory_limit();
uint64_t memory_limit();
// 0 restores the default.
void set_memory_limit(uint64_t bytes);

// Throws MemoryLimitError when `bytes` exceed memory_limit().
void check_memory(uint64_t bytes, std::string_view subject);

// a + b, or UINT64_MAX where that overflows: byte counts summed for a check.
inline uint64_t add_bytes(uint64_t a, uint64_t b) { return b > UINT64_MAX - a ? UINT64_MAX : a + b; }

// "1.5 GiB", "512 MiB", "100 B".
std::string format_bytes(uint64_t bytes);
// A byte count as a user writes it: "1000000", "512MiB", "8 GiB", "1.5G"
// (K, M, G, T with an optional "iB" or "B", all binary: 1 G = 2^30 bytes);
// nullopt for anything else or zero.
std::optional<uint64_t> parse_byte_count(std::string_view text);

}  // namespace smelt
