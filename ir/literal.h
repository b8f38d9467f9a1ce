#pragma once
// smelt::ir::Literal: a constant's row-major values, immutable and shared.
// Copying a Node, its Attrs, a Graph or a kernel program's constant buffer
// copies a pointer, not the values: GPT-2's weights are 124 M values (950 MB
// as doubles), and the fusion search reads a graph back from the e-graph per
// candidate (it copied them all each time: 56 s and 11.7 GB to compile GPT-2).
// Reads look like a const std::vector<double>; writes replace the whole list.
//
// The hash of a list's bits is computed once and kept with the list: the
// e-graph keys a weight by it, and hashing GPT-2's 950 MB on every look-up
// (interning the graph, reading the original program back) was a quarter of
// its compile (2026-11-29: 2.6 of 11 s).
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string_view>
#include <vector>

namespace smelt::ir {

class Literal {
 public:
  Literal() = default;
  Literal(std::vector<double> values)  // NOLINT(google-explicit-constructor): a list of values is a literal
      : values_(values.empty() ? nullptr : std::make_shared<const Shared>(std::move(values))) {}
  Literal(std::initializer_list<double> values)
      : values_(values.size() == 0 ? nullptr : std::make_shared<const Shared>(std::vector<double>(values))) {}

  const std::vector<double>& vector() const { return values_ ? values_->values : no_values(); }
  operator const std::vector<double>&() const { return vector(); }  // NOLINT(google-explicit-constructor)

  size_t size() const { return vector().size(); }
  bool empty() const { return vector().empty(); }
  double operator[](size_t i) const { return vector()[i]; }
  double at(size_t i) const { return vector().at(i); }
  double front() const { return vector().front(); }
  double back() const { return vector().back(); }
  const double* data() const { return vector().data(); }
  std::vector<double>::const_iterator begin() const { return vector().begin(); }
  std::vector<double>::const_iterator end() const { return vector().end(); }

  // A hash of the values' bits (std::hash of their bytes), computed on the
  // first call and kept with the shared list.
  uint64_t bits_hash() const {
    if (!values_) return std::hash<std::string_view>{}(std::string_view());
    uint64_t h = values_->hash.load(std::memory_order_relaxed);
    if (h != Shared::kNotHashed) return h;
    const std::vector<double>& v = values_->values;
    h = std::hash<std::string_view>{}(std::string_view(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(double)));
    if (h == Shared::kNotHashed) h = 1;  // two threads may both compute it: they store the same value
    values_->hash.store(h, std::memory_order_relaxed);
    return h;
  }
  // The same bits: the same shared list, or equal sizes and bytes.
  friend bool same_bits(const Literal& a, const Literal& b) {
    if (a.values_ == b.values_) return true;
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
  }

  // Equal values; shared lists compare by pointer first.
  friend bool operator==(const Literal& a, const Literal& b) {
    return a.values_ == b.values_ || a.vector() == b.vector();
  }
  friend bool operator==(const Literal& a, const std::vector<double>& b) { return a.vector() == b; }

 private:
  static const std::vector<double>& no_values() {
    static const std::vector<double> none;
    return none;
  }
  struct Shared {
    static constexpr uint64_t kNotHashed = 0;
    explicit Shared(std::vector<double> v) : values(std::move(v)) {}
    std::vector<double> values;
    mutable std::atomic<uint64_t> hash{kNotHashed};
  };
  std::shared_ptr<const Shared> values_;
};

}  // namespace smelt::ir
