#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "egraph/ids.h"

namespace smelt::egraph {

// A read-only snapshot of a clean e-graph, built after rebuild() on first use:
// the live (canonical) nodes grouped by class (sorted by op inside a class)
// and by operator. E-matching reads only this and node storage, never the
// union-find, so matches found on it stay valid while rewrites are applied.
struct ClassIndex {
  std::vector<Id> roots;                   // every class id, ascending
  std::vector<std::uint32_t> class_begin;  // by class id: range in class_node
  std::vector<std::uint32_t> class_end;
  std::vector<Id> class_node;              // node ids, grouped by class then op
  std::vector<Op> class_node_op;           // op of class_node[k] (scanned without touching nodes)
  std::vector<std::uint32_t> op_begin;     // by op: range in op_node / op_class (size ops + 1)
  std::vector<Id> op_node;                 // node ids grouped by op
  std::vector<Id> op_class;                // the class of op_node[k]

  std::span<const Id> nodes_of(Id cls) const {
    return {class_node.data() + class_begin[cls], class_end[cls] - class_begin[cls]};
  }
  // Range [first, last) in class_node of the nodes of `cls` with operator `op`.
  std::pair<std::uint32_t, std::uint32_t> op_range(Id cls, Op op) const;

  std::size_t memory_bytes() const;
};

}  // namespace smelt::egraph
