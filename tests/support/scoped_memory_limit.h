#pragma once
// Sets one of the process's limits (error/memory_limit.h) for one scope, so that
// a test sees the limit it asks for whatever the machine's memory.
#include <cstdint>

#include "error/memory_limit.h"

namespace smelt::smelt_testing {

class ScopedLimit {
 public:
  ScopedLimit(Limit limit, uint64_t amount) : limit_(limit) { set_limit(limit, amount); }
  ~ScopedLimit() { set_limit(limit_, 0); }
  ScopedLimit(const ScopedLimit&) = delete;
  ScopedLimit& operator=(const ScopedLimit&) = delete;

 private:
  Limit limit_;
};

class ScopedMemoryLimit : public ScopedLimit {
 public:
  explicit ScopedMemoryLimit(uint64_t bytes) : ScopedLimit(Limit::kMemory, bytes) {}
};

class ScopedWorkLimit : public ScopedLimit {
 public:
  explicit ScopedWorkLimit(uint64_t visits) : ScopedLimit(Limit::kWork, visits) {}
};

}  // namespace smelt::smelt_testing
