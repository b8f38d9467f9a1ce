#pragma once
// Where a program splits into parts for the fusion search (DESIGN.md,
// "Extraction"): after a value every later op that needs the past reads
// through — a transformer's residual stream between its attention and MLP
// halves, a ResNet block's output. Each part is searched on its own (its
// inputs: the values earlier parts store), so the search grows with the
// model linearly instead of searching 1,200 kernels as one problem.
#include <cstddef>
#include <vector>

#include "ir/graph.h"

namespace smelt::fusion {

struct ProgramPart {
  ir::ValueId first = 0, last = 0;  // the values it defines: first..last, in graph order
  // What later parts read (or the graph returns) of it: the values a kernel
  // stores at the cut, in graph order.
  std::vector<ir::ValueId> outputs;
};

struct PartOptions {
  // A cut needs this many ops (not inputs, constants, factories or what is
  // computed from those alone) since the last: fewer parts of one op.
  size_t min_ops = 8;
  // A value that this many later ops or more read, the first and last this
  // far apart in graph order (a mask or position table every layer reads),
  // is stored once and read by every later part: it crosses cuts without
  // preventing them.
  size_t persistent_readers = 3;
  size_t persistent_span = 64;
};

// By value: computed from inputs, constants and factories alone by cheap ops
// (elementwise, views), which any part recomputes or reads instead of a cut
// carrying it.
std::vector<bool> free_values(const ir::Graph& g);

// Parts in graph order covering every value; one part when the program has
// no cut (a chain of ops each read once, a block of a few dozen ops). A cut
// follows a value read by two or more ops when it is the only value (but
// those computed from inputs and constants alone, and persistent ones) that
// later ops read of what came before, and its last reader is min_ops values
// or more after it (a residual stream, not SiLU's x * sigmoid(x)).
std::vector<ProgramPart> split_program(const ir::Graph& g, const PartOptions& options = {});

}  // namespace smelt::fusion
