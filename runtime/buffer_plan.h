#pragma once
// Memory for a KernelProgram's intermediates: each lives from the first kernel
// that writes it to the last that reads it, and intermediates whose lifetimes
// do not overlap share bytes of one arena (first fit). Inputs, outputs and
// constants are never pooled: they have storage of their own.
#include <cstddef>
#include <vector>

#include "kernel/kernel.h"

namespace smelt::runtime {

inline constexpr size_t kBufferAlignment = 64;

struct BufferSlot {
  bool pooled = false;  // an intermediate placed in the arena
  size_t offset = 0;    // into the arena, a multiple of the alignment (pooled only)
  size_t bytes = 0;     // storage_bytes of the buffer's type
  // Kernels (indices into program.kernels) between which the buffer is live,
  // both inclusive (pooled only).
  size_t first_kernel = 0, last_kernel = 0;
};

struct BufferPlan {
  std::vector<BufferSlot> slots;  // by buffer index
  size_t arena_bytes = 0;         // peak intermediate bytes after reuse
  size_t unpooled_bytes = 0;      // the sum of every intermediate's bytes: the peak without reuse
};

// Plans `program`'s intermediates; `alignment` must be a power of two.
BufferPlan plan_buffers(const kernel::KernelProgram& program, size_t alignment = kBufferAlignment);

// Whether two pooled slots are live in a common kernel.
bool lifetimes_overlap(const BufferSlot& a, const BufferSlot& b);

}  // namespace smelt::runtime
