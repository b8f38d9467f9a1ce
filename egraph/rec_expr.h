#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "egraph/enode.h"
#include "egraph/symbol_table.h"

namespace smelt::egraph {

// A term as a flat list of nodes; a node's children are indices of earlier
// nodes and the last node is the root (egg's RecExpr).
class RecExpr {
 public:
  // Appends a node whose children index earlier nodes; returns its index.
  Id add(ENode node);
  const std::vector<ENode>& nodes() const { return nodes_; }
  bool empty() const { return nodes_.empty(); }
  Id root() const { return static_cast<Id>(nodes_.size() - 1); }
  std::string to_string(const SymbolTable& symbols) const;

 private:
  std::vector<ENode> nodes_;
};

// Parses a ground term such as "(+ x (* 2 y))". Throws ParseError with the
// position of the problem (variables are not allowed in terms).
RecExpr parse_term(std::string_view text, SymbolTable& symbols, std::string_view source = "term");

}  // namespace smelt::egraph
