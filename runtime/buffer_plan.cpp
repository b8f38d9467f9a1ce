#include "runtime/buffer_plan.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "runtime/tensor_bytes.h"

namespace smelt::runtime {
namespace {

size_t align_up(size_t n, size_t alignment) { return (n + alignment - 1) & ~(alignment - 1); }

// First and last kernel touching each buffer (written or read).
void find_lifetimes(const kernel::KernelProgram& program, std::vector<BufferSlot>& slots, std::vector<bool>& used) {
  auto touch = [&](int buffer, size_t kernel) {
    BufferSlot& s = slots.at(static_cast<size_t>(buffer));
    if (!used[buffer]) {
      s.first_kernel = s.last_kernel = kernel;
      used[buffer] = true;
    }
    s.first_kernel = std::min(s.first_kernel, kernel);
    s.last_kernel = std::max(s.last_kernel, kernel);
  };
  for (size_t k = 0; k < program.kernels.size(); ++k) {
    for (const kernel::KernelOutput& out : program.kernels[k].outputs) touch(out.buffer, k);
    for (int buffer : kernel::read_buffers(program.kernels[k])) touch(buffer, k);
  }
}

}  // namespace

bool lifetimes_overlap(const BufferSlot& a, const BufferSlot& b) {
  return a.first_kernel <= b.last_kernel && b.first_kernel <= a.last_kernel;
}

BufferPlan plan_buffers(const kernel::KernelProgram& program, size_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0)
    throw std::invalid_argument("plan_buffers: alignment must be a power of two");
  BufferPlan plan;
  plan.slots.resize(program.buffers.size());
  std::vector<bool> used(program.buffers.size(), false);
  for (size_t b = 0; b < program.buffers.size(); ++b) plan.slots[b].bytes = storage_bytes(program.buffers[b].type);
  find_lifetimes(program, plan.slots, used);

  std::vector<size_t> order;
  for (size_t b = 0; b < program.buffers.size(); ++b) {
    if (program.buffers[b].kind != kernel::BufferKind::kIntermediate) continue;
    plan.slots[b].pooled = true;
    plan.unpooled_bytes += plan.slots[b].bytes;
    order.push_back(b);
  }
  // Larger buffers first, then by birth: the usual first-fit order that keeps
  // big blocks from fragmenting the arena.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (plan.slots[a].bytes != plan.slots[b].bytes) return plan.slots[a].bytes > plan.slots[b].bytes;
    return plan.slots[a].first_kernel < plan.slots[b].first_kernel;
  });

  std::vector<size_t> placed;
  for (size_t b : order) {
    BufferSlot& slot = plan.slots[b];
    // The live neighbours' byte ranges, sorted by offset; take the first gap that fits.
    std::vector<std::pair<size_t, size_t>> taken;
    for (size_t other : placed)
      if (lifetimes_overlap(slot, plan.slots[other]))
        taken.emplace_back(plan.slots[other].offset, plan.slots[other].offset + plan.slots[other].bytes);
    std::sort(taken.begin(), taken.end());
    size_t offset = 0;
    for (auto [begin, end] : taken) {
      if (offset + slot.bytes <= begin) break;
      offset = std::max(offset, align_up(end, alignment));
    }
    slot.offset = offset;
    plan.arena_bytes = std::max(plan.arena_bytes, align_up(offset + slot.bytes, alignment));
    placed.push_back(b);
  }
  return plan;
}

}  // namespace smelt::runtime
