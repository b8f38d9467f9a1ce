#pragma once
// Sets the process's memory limit (error/memory_limit.h) for one scope, so that a
// test sees the limit it asks for whatever the machine's memory.
#include <cstdint>

#include "error/memory_limit.h"

namespace smelt::smelt_testing {

class ScopedMemoryLimit {
 public:
  explicit ScopedMemoryLimit(uint64_t bytes) { set_memory_limit(bytes); }
  ~ScopedMemoryLimit() { set_memory_limit(0); }
  ScopedMemoryLimit(const ScopedMemoryLimit&) = delete;
  ScopedMemoryLimit& operator=(const ScopedMemoryLimit&) = delete;
};

}  // namespace smelt::smelt_testing
