#pragma once
// Host memory aligned for vector loads, owned.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>

#include "runtime/buffer_plan.h"

namespace smelt::runtime {

class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  explicit AlignedBuffer(size_t bytes) {
    // aligned_alloc wants a size that is a multiple of the alignment, and a
    // zero-size tensor still needs a valid distinct pointer.
    const size_t rounded = ((bytes + kBufferAlignment - 1) / kBufferAlignment + 1) * kBufferAlignment;
    data_.reset(static_cast<uint8_t*>(std::aligned_alloc(kBufferAlignment, rounded)));
    if (!data_) throw std::bad_alloc();
    size_ = bytes;
  }
  uint8_t* data() const { return data_.get(); }
  size_t size() const { return size_; }

 private:
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t[], Free> data_;
  size_t size_ = 0;
};

}  // namespace smelt::runtime
