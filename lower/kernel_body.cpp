#include "lower/kernel_body.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <stdexcept>

namespace smelt::lower {
namespace {

class BodyKeyWriter {
 public:
  void word(int64_t w) { key_.append(reinterpret_cast<const char*>(&w), sizeof w); }
  void shape(const ir::Shape& s) {
    word(static_cast<int64_t>(s.size()));
    for (int64_t d : s) word(d);
  }
  std::string take() { return std::move(key_); }

 private:
  std::string key_;
};

}  // namespace

KernelBody kernel_body(const kernel::KernelProgram& program, size_t kernel) {
  if (kernel >= program.kernels.size()) throw std::out_of_range("kernel_body: no such kernel");
  const kernel::Kernel& k = program.kernels[kernel];
  // The touched buffers in program order (a kernel's few, not the program's many).
  KernelBody body;
  body.buffers = kernel::read_buffers(k);
  for (const kernel::KernelOutput& out : k.outputs) body.buffers.push_back(out.buffer);
  std::sort(body.buffers.begin(), body.buffers.end());
  body.buffers.erase(std::unique(body.buffers.begin(), body.buffers.end()), body.buffers.end());
  for (int b : body.buffers) {
    const kernel::Buffer& buffer = program.buffers.at(static_cast<size_t>(b));
    // Code reads a constant from its buffer at run time, never its values here.
    body.program.buffers.push_back({buffer.name, buffer.type, buffer.kind, buffer.io_index, {}});
  }
  auto local = [&](int b) {
    return static_cast<int>(std::lower_bound(body.buffers.begin(), body.buffers.end(), b) - body.buffers.begin());
  };
  kernel::Kernel copy = k;
  for (kernel::KernelExpr& e : copy.exprs)
    if (e.kind == kernel::KernelExpr::Kind::kLoad) e.buffer = local(e.buffer);
  for (kernel::KernelOutput& out : copy.outputs) {
    out.buffer = local(out.buffer);
    if (out.is_scatter()) out.scatter_initial = local(out.scatter_initial);
  }
  body.program.kernels.push_back(std::move(copy));

  BodyKeyWriter key;
  const kernel::Kernel& c = body.program.kernels.front();
  key.shape(c.space);
  key.shape(c.reduction);
  key.word(static_cast<int64_t>(c.indices.size()));
  for (size_t r = 0; r < c.indices.size(); ++r) {
    const kernel::IndexPool::Node& n = c.indices.node(static_cast<kernel::IndexRef>(r));
    for (int64_t w : {static_cast<int64_t>(n.kind), n.value, static_cast<int64_t>(n.a), static_cast<int64_t>(n.b),
                      static_cast<int64_t>(n.c)})
      key.word(w);
  }
  key.word(static_cast<int64_t>(c.exprs.size()));
  for (const kernel::KernelExpr& e : c.exprs) {
    for (int64_t w : {static_cast<int64_t>(e.kind), static_cast<int64_t>(e.dtype), static_cast<int64_t>(e.buffer),
                      static_cast<int64_t>(e.valid), std::bit_cast<int64_t>(e.value), static_cast<int64_t>(e.op),
                      static_cast<int64_t>(e.to), static_cast<int64_t>(e.contraction),
                      static_cast<int64_t>(e.index.size()), static_cast<int64_t>(e.operands.size())})
      key.word(w);
    for (kernel::IndexRef r : e.index) key.word(r);
    for (int operand : e.operands) key.word(operand);
  }
  key.word(static_cast<int64_t>(c.outputs.size()));
  for (const kernel::KernelOutput& out : c.outputs) {
    key.word(out.buffer);
    key.word(out.expr);
    key.word(out.scatter_at);
    key.word(out.scatter_initial);
  }
  for (size_t b = 0; b < body.buffers.size(); ++b) {
    const kernel::Buffer& buffer = body.program.buffers[b];
    key.word(static_cast<int64_t>(buffer.type.dtype));
    key.shape(buffer.type.shape);
    key.word(static_cast<int64_t>(buffer.kind));
    key.word(buffer.kind == kernel::BufferKind::kConstant ? body.buffers[b] : -1);
  }
  body.key = key.take();
  return body;
}

}  // namespace smelt::lower
