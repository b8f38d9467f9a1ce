#include "runtime/buffer_plan.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "kernel/kernel_builder.h"
#include "smelt/smelt.h"

namespace smelt {
namespace {

using kernel::BufferKind;
using ir::DType;

// A chain program: each kernel reads `reads` and writes `write`, elementwise
// over f32[n] (the sum of what it reads).
struct ChainBuilder {
  kernel::KernelProgram program;
  int64_t n = 100;  // 400 bytes per buffer

  int buffer(const std::string& name, BufferKind kind, int io_index = -1) {
    return kernel::add_buffer(program, name, {DType::F32, {n}}, kind, io_index);
  }
  void kernel(std::vector<int> reads, int write) {
    kernel::Kernel k;
    k.name = "k" + std::to_string(program.kernels.size());
    k.space = {n};
    kernel::KernelBuilder b(k);
    int sum = -1;
    for (int r : reads) {
      int load = b.load(r, {b.var(0)}, DType::F32);
      sum = sum < 0 ? load : b.op(ir::Op::Add, {sum, load}, DType::F32);
    }
    b.output(write, sum);
    program.kernels.push_back(std::move(k));
  }
};

bool ranges_overlap(const runtime::BufferSlot& a, const runtime::BufferSlot& b) {
  return a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes;
}

// The property every plan must have: two intermediates live in a common kernel
// never share a byte, and everything fits in the arena.
void expect_no_live_overlap(const kernel::KernelProgram& program, const runtime::BufferPlan& plan) {
  for (size_t a = 0; a < plan.slots.size(); ++a) {
    const runtime::BufferSlot& sa = plan.slots[a];
    EXPECT_EQ(sa.pooled, program.buffers[a].kind == BufferKind::kIntermediate) << program.buffers[a].name;
    if (!sa.pooled) continue;
    EXPECT_EQ(sa.offset % runtime::kBufferAlignment, 0u);
    EXPECT_LE(sa.offset + sa.bytes, plan.arena_bytes);
    for (size_t b = a + 1; b < plan.slots.size(); ++b) {
      const runtime::BufferSlot& sb = plan.slots[b];
      if (sb.pooled && sa.bytes > 0 && sb.bytes > 0 && runtime::lifetimes_overlap(sa, sb)) {
        EXPECT_FALSE(ranges_overlap(sa, sb)) << program.buffers[a].name << " and " << program.buffers[b].name;
      }
    }
  }
}

TEST(BufferPlan, ReusesMemoryOfDeadIntermediates) {
  // x → t1 → t2 → t3 → y: t1 is dead once t2 is written, so t3 can take t1's bytes.
  ChainBuilder c;
  int x = c.buffer("x", BufferKind::kInput, 0);
  int t1 = c.buffer("t1", BufferKind::kIntermediate);
  int t2 = c.buffer("t2", BufferKind::kIntermediate);
  int t3 = c.buffer("t3", BufferKind::kIntermediate);
  int y = c.buffer("y", BufferKind::kOutput, 0);
  c.kernel({x}, t1);
  c.kernel({t1}, t2);
  c.kernel({t2}, t3);
  c.kernel({t3}, y);
  kernel::validate(c.program);
  runtime::BufferPlan plan = runtime::plan_buffers(c.program);
  EXPECT_EQ(plan.slots[t1].first_kernel, 0u);
  EXPECT_EQ(plan.slots[t1].last_kernel, 1u);
  EXPECT_EQ(plan.slots[t3].offset, plan.slots[t1].offset);
  EXPECT_NE(plan.slots[t2].offset, plan.slots[t1].offset);
  EXPECT_EQ(plan.unpooled_bytes, 3u * 400);
  EXPECT_EQ(plan.arena_bytes, 2u * 448);  // two live at a time, each rounded up to 64
  expect_no_live_overlap(c.program, plan);
}

TEST(BufferPlan, NeverSharesWhenLifetimesOverlap) {
  // t1 is read by the last kernel too, so all three intermediates are live together.
  ChainBuilder c;
  int x = c.buffer("x", BufferKind::kInput, 0);
  int t1 = c.buffer("t1", BufferKind::kIntermediate);
  int t2 = c.buffer("t2", BufferKind::kIntermediate);
  int t3 = c.buffer("t3", BufferKind::kIntermediate);
  int y = c.buffer("y", BufferKind::kOutput, 0);
  c.kernel({x}, t1);
  c.kernel({t1}, t2);
  c.kernel({t2}, t3);
  c.kernel({t1, t3}, y);
  runtime::BufferPlan plan = runtime::plan_buffers(c.program);
  EXPECT_EQ(plan.slots[t1].last_kernel, 3u);
  expect_no_live_overlap(c.program, plan);
  EXPECT_NE(plan.slots[t3].offset, plan.slots[t1].offset);
  EXPECT_EQ(plan.arena_bytes, 3u * 448);
}

TEST(BufferPlan, AKernelsInputAndOutputNeverShare) {
  // t1 dies in the kernel that writes t2: they are both live there, so they may not alias.
  ChainBuilder c;
  int x = c.buffer("x", BufferKind::kInput, 0);
  int t1 = c.buffer("t1", BufferKind::kIntermediate);
  int t2 = c.buffer("t2", BufferKind::kIntermediate);
  int y = c.buffer("y", BufferKind::kOutput, 0);
  c.kernel({x}, t1);
  c.kernel({t1}, t2);
  c.kernel({t2}, y);
  runtime::BufferPlan plan = runtime::plan_buffers(c.program);
  EXPECT_NE(plan.slots[t1].offset, plan.slots[t2].offset);
  expect_no_live_overlap(c.program, plan);
}

TEST(BufferPlan, InputsOutputsAndConstantsAreNotPooled) {
  ChainBuilder c;
  int x = c.buffer("x", BufferKind::kInput, 0);
  int k = kernel::add_constant_buffer(c.program, "k", {DType::F32, {c.n}}, std::vector<double>(c.n, 1.0));
  int y = c.buffer("y", BufferKind::kOutput, 0);
  c.kernel({x, k}, y);
  runtime::BufferPlan plan = runtime::plan_buffers(c.program);
  for (int b : {x, k, y}) EXPECT_FALSE(plan.slots[b].pooled);
  EXPECT_EQ(plan.slots[k].bytes, 400u);
  EXPECT_EQ(plan.arena_bytes, 0u);
  EXPECT_EQ(plan.unpooled_bytes, 0u);
}

TEST(BufferPlan, RejectsABadAlignment) {
  ChainBuilder c;
  EXPECT_THROW(runtime::plan_buffers(c.program, 48), std::invalid_argument);
}

// Every example's programs, fused and unfused: live buffers never share bytes,
// and reuse never makes the arena larger than no reuse.
TEST(BufferPlan, EveryExamplePlansWithoutLiveOverlap) {
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(SMELT_SOURCE_DIR) + "/examples")) {
    if (entry.path().extension() != ".sg") continue;
    ++count;
    const ir::Graph g = smelt::load_graph(entry.path().string());
    smelt::FuseOptions options;
    options.limits.extraction_s = 0.5;
    options.simplify_indices = false;
    const smelt::FusionResult r = smelt::fuse(g, options);
    for (const kernel::KernelProgram* program : {&r.before, &r.after}) {
      SCOPED_TRACE(entry.path().filename().string() + (program == &r.before ? " before" : " after"));
      runtime::BufferPlan plan = runtime::plan_buffers(*program);
      expect_no_live_overlap(*program, plan);
      size_t aligned_sum = 0;
      for (const runtime::BufferSlot& s : plan.slots)
        if (s.pooled) aligned_sum += (s.bytes + 63) / 64 * 64;
      EXPECT_LE(plan.arena_bytes, aligned_sum);
    }
    if (entry.path().stem() == "nvfuser_rope_bwd") {
      // Unfused, dozens of intermediates in a chain: reuse must shrink the peak.
      runtime::BufferPlan plan = runtime::plan_buffers(r.before);
      EXPECT_LT(plan.arena_bytes, plan.unpooled_bytes / 2);
    }
  }
  EXPECT_GE(count, 10);
}

}  // namespace
}  // namespace smelt
