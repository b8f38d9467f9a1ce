#pragma once
// A concat of many operands as a tree of concats of at most `max_operands`
// each (concat is associative along one axis). A kernel computes a concat per
// element as a chain of `where`s over its operands' masked loads, so a 3,000-way
// concat was 3,000 loads per element (14 ms for 6,000 floats, 10 s of LLVM);
// as a tree, fusion can store the inner concats and no kernel holds more than
// `max_operands` parts of one.
#include <cstddef>

#include "ir/graph.h"

namespace smelt::fusion {

inline constexpr size_t kMaxConcatOperands = 16;

// `g` with every concat of more than `max_operands` (>= 2) operands replaced by
// a tree whose root keeps the concat's name; `g` itself when there is none.
ir::Graph split_wide_concats(const ir::Graph& g, size_t max_operands = kMaxConcatOperands);

}  // namespace smelt::fusion
