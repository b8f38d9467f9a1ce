#include "egraph/symbol_table.h"

#include <stdexcept>

namespace smelt::egraph {

SymbolTable::SymbolTable() { intern("num"); }

Op SymbolTable::intern(std::string_view name) {
  std::string key(name);
  if (auto it = ids_.find(key); it != ids_.end()) return it->second;
  if (names_.size() >= kMaxOps) throw std::length_error("egraph: too many distinct operators");
  const Op op = static_cast<Op>(names_.size());
  names_.push_back(key);
  ids_.emplace(std::move(key), op);
  return op;
}

std::optional<Op> SymbolTable::lookup(std::string_view name) const {
  if (auto it = ids_.find(std::string(name)); it != ids_.end()) return it->second;
  return std::nullopt;
}

}  // namespace smelt::egraph
