#pragma once
// The limits on what smelt may take, checked before the work that would pass
// them: a graph too big for the machine is a clear error naming what it needs
// and the limit, not std::bad_alloc or a run that never ends. One limit of each
// kind per process:
//  - memory: the bytes of tensor data and input files, checked before each
//    large allocation (a host tensor, the reference interpreter's live values,
//    a compiled program's buffers, an input file); `smelt --memory-limit`;
//  - work: the element visits of one run, checked before it starts (a compiled
//    program's kernels, the reference interpreter's ops); `smelt --work-limit`.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "error/error.h"

namespace smelt {

enum class Limit : uint8_t {
  kMemory,  // bytes
  kWork,    // element visits: an element read or written by an op, once per visit
};

// what() is "SUBJECT needs N, more than the LIMIT limit of M" (N and M as
// format_limit_amount writes them); kind() kMemoryLimit or kWorkLimit.
class LimitError : public Error {
 public:
  LimitError(Limit limit, const std::string& subject, uint64_t needed, uint64_t limit_amount);
  Limit limit() const { return limit_; }
  // What needs it; a caller may rethrow with more context before it.
  const std::string& subject() const { return subject_; }
  uint64_t needed() const { return needed_; }
  uint64_t limit_amount() const { return limit_amount_; }

 private:
  Limit limit_;
  std::string subject_;
  uint64_t needed_, limit_amount_;
};

class MemoryLimitError : public LimitError {
 public:
  MemoryLimitError(const std::string& subject, uint64_t needed_bytes, uint64_t limit_bytes)
      : LimitError(Limit::kMemory, subject, needed_bytes, limit_bytes) {}
  uint64_t needed_bytes() const { return needed(); }
  uint64_t limit_bytes() const { return limit_amount(); }
};

class WorkLimitError : public LimitError {
 public:
  WorkLimitError(const std::string& subject, uint64_t needed_visits, uint64_t limit_visits)
      : LimitError(Limit::kWork, subject, needed_visits, limit_visits) {}
};

// The default of each limit: memory, half of the physical memory; work,
// kDefaultWorkLimit.
uint64_t default_limit(Limit limit);
uint64_t limit_value(Limit limit);
// 0 restores the default.
void set_limit(Limit limit, uint64_t amount);
// Throws MemoryLimitError / WorkLimitError when `amount` exceeds limit_value(limit).
void check_limit(Limit limit, uint64_t amount, std::string_view subject);
// "1.5 GiB" (memory), "2.81e+14 element visits (281474976710656)" (work).
std::string format_limit_amount(Limit limit, uint64_t amount);

// The memory limit.
uint64_t default_memory_limit();
uint64_t memory_limit();
void set_memory_limit(uint64_t bytes);
void check_memory(uint64_t bytes, std::string_view subject);

// The work limit: 10^12 element visits. The largest run smelt is tested on, the
// reference interpreter with error scales on the exported vit_b_16
// (build/models, `run --check`), visits 3.6·10^10 elements (gpt2 3.4·10^10, bert
// 2.3·10^10, measured 2026-11-28); every example under examples/ fewer than 10^9. A run of 10^12
// takes the interpreter hours and compiled code minutes on this project's host:
// past it a run is a mistake (a sum over 2^48 elements) rather than a workload.
inline constexpr uint64_t kDefaultWorkLimit = 1'000'000'000'000;
uint64_t work_limit();
void set_work_limit(uint64_t visits);
void check_work(uint64_t visits, std::string_view subject);

// a + b and a * b, or UINT64_MAX where that overflows: byte and visit counts
// summed for a check.
inline uint64_t add_bytes(uint64_t a, uint64_t b) { return b > UINT64_MAX - a ? UINT64_MAX : a + b; }
inline uint64_t add_counts(uint64_t a, uint64_t b) { return add_bytes(a, b); }
inline uint64_t mul_counts(uint64_t a, uint64_t b) { return a != 0 && b > UINT64_MAX / a ? UINT64_MAX : a * b; }

// "1.5 GiB", "512 MiB", "100 B".
std::string format_bytes(uint64_t bytes);
// A byte count as a user writes it: "1000000", "512MiB", "8 GiB", "1.5G"
// (K, M, G, T with an optional "iB" or "B", all binary: 1 G = 2^30 bytes);
// nullopt for anything else or zero.
std::optional<uint64_t> parse_byte_count(std::string_view text);
// A count of element visits: "1000000", "1e12", "2.5e9"; nullopt for anything
// else, zero, or 2^63 and above.
std::optional<uint64_t> parse_visit_count(std::string_view text);

}  // namespace smelt
