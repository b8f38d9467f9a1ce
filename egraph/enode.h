#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "egraph/ids.h"

namespace smelt::egraph {

// A read-only view of a stored e-node: operator, payload (0 when the operator
// carries none, e.g. the value of a kNumber literal), and child class ids.
struct NodeView {
  Op op = 0;
  std::uint64_t payload = 0;
  std::span<const Id> children;
};

// An owning e-node, for building terms and for API calls off the hot path.
struct ENode {
  Op op = 0;
  std::uint64_t payload = 0;
  std::vector<Id> children;

  friend bool operator==(const ENode&, const ENode&) = default;
};

}  // namespace smelt::egraph
