#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "egraph/ids.h"
#include "egraph/sexpr.h"
#include "egraph/symbol_table.h"

namespace smelt::egraph {

// A pattern tree: operators, integer literals and variables (?name), e.g.
// "(+ ?a (* ?b 0))". Nodes are stored children-first; the root is last.
class Pattern {
 public:
  struct Node {
    bool is_var = false;
    std::uint32_t var = 0;  // index into vars() when is_var
    Op op = 0;
    std::uint64_t payload = 0;
    std::vector<std::uint32_t> children;  // indices of earlier nodes
  };

  // Throws ParseError with the position, e.g. "pattern:1:7: expected ')'".
  static Pattern parse(std::string_view text, SymbolTable& symbols, std::string_view source = "pattern");
  static Pattern from_sexpr(const SExpr& sexpr, SymbolTable& symbols, std::string_view source);

  const std::vector<Node>& nodes() const { return nodes_; }
  std::uint32_t root() const { return static_cast<std::uint32_t>(nodes_.size() - 1); }
  const std::vector<std::string>& vars() const { return vars_; }  // first-occurrence order
  // True when the subtree at `node` has no variable (it names one fixed term).
  bool is_ground(std::uint32_t node) const { return ground_[node] != 0; }
  std::string to_string(const SymbolTable& symbols) const;

 private:
  std::uint32_t add(const SExpr& sexpr, SymbolTable& symbols, std::string_view source);

  std::vector<Node> nodes_;
  std::vector<std::string> vars_;
  std::vector<std::uint8_t> ground_;
};

}  // namespace smelt::egraph
