#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "egraph/ids.h"

namespace smelt::egraph {

// Interns operator names into small dense ids. Op 0 is reserved for integer
// literals: a node with op kNumber carries its value (int64) as payload.
class SymbolTable {
 public:
  static constexpr Op kNumber = 0;
  // Node words keep the op in 23 bits (see NodeStore).
  static constexpr Op kMaxOps = (Op{1} << 23) - 1;  // the all-ones op marks spilled nodes

  SymbolTable();

  Op intern(std::string_view name);
  std::optional<Op> lookup(std::string_view name) const;
  const std::string& name(Op op) const { return names_.at(op); }
  std::size_t size() const { return names_.size(); }

 private:
  std::vector<std::string> names_;
  std::unordered_map<std::string, Op> ids_;  // not on any hot path
};

}  // namespace smelt::egraph
