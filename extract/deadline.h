#pragma once
// A point in time that searches stop at.
#include <algorithm>
#include <chrono>

namespace smelt::extract {

class Deadline {
 public:
  explicit Deadline(double seconds)
      : end_(std::chrono::steady_clock::now() +
             std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                 std::chrono::duration<double>(std::max(0.0, std::min(seconds, 1e7))))) {}
  bool passed() const { return std::chrono::steady_clock::now() >= end_; }
  std::chrono::steady_clock::time_point end() const { return end_; }
  double seconds_left() const {
    return std::max(0.0, std::chrono::duration<double>(end_ - std::chrono::steady_clock::now()).count());
  }

 private:
  std::chrono::steady_clock::time_point end_;
};

}  // namespace smelt::extract
