#pragma once
// smelt::ir::Literal: a constant's row-major values, immutable and shared.
// Copying a Node, its Attrs, a Graph or a kernel program's constant buffer
// copies a pointer, not the values: GPT-2's weights are 124 M values (950 MB
// as doubles), and the fusion search reads a graph back from the e-graph per
// candidate (it copied them all each time: 56 s and 11.7 GB to compile GPT-2).
// Reads look like a const std::vector<double>; writes replace the whole list.
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <vector>

namespace smelt::ir {

class Literal {
 public:
  Literal() = default;
  Literal(std::vector<double> values)  // NOLINT(google-explicit-constructor): a list of values is a literal
      : values_(values.empty() ? nullptr : std::make_shared<const std::vector<double>>(std::move(values))) {}
  Literal(std::initializer_list<double> values)
      : values_(values.size() == 0 ? nullptr : std::make_shared<const std::vector<double>>(values)) {}

  const std::vector<double>& vector() const { return values_ ? *values_ : no_values(); }
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
  std::shared_ptr<const std::vector<double>> values_;
};

}  // namespace smelt::ir
