#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "egraph/ids.h"
#include "egraph/sexpr.h"
#include "egraph/symbol_table.h"

namespace smelt::egraph {

// A pattern tree: operators, integer literals and variables (?name), e.g.
// "(+ ?a (* ?b 0))". Nodes are stored children-first; the root is last.
// Built in code, a pattern may also hold nodes that match an operator with any
// payload, and op variables: any operator and payload, the same wherever the
// variable recurs (how tensor rules match an op and bind its attributes).
class Pattern {
 public:
  struct Node {
    bool is_var = false;
    bool is_op_var = false;    // matches any operator and payload (op_vars()[var])
    bool any_payload = false;  // matches `op` with any payload
    std::uint32_t var = 0;     // index into vars() when is_var, op_vars() when is_op_var
    Op op = 0;
    std::uint64_t payload = 0;
    std::vector<std::uint32_t> children;  // indices of earlier nodes
  };

  // Building in code, children first; the last node added is the root.
  std::uint32_t add_var(const std::string& name);
  // `payload` empty: any payload.
  std::uint32_t add_op(Op op, std::optional<std::uint64_t> payload, std::vector<std::uint32_t> children);
  std::uint32_t add_op_var(const std::string& name, std::vector<std::uint32_t> children);

  // Throws ParseError with the position, e.g. "pattern:1:7: expected ')'".
  static Pattern parse(std::string_view text, SymbolTable& symbols, std::string_view source = "pattern");
  static Pattern from_sexpr(const SExpr& sexpr, SymbolTable& symbols, std::string_view source);

  const std::vector<Node>& nodes() const { return nodes_; }
  std::uint32_t root() const { return static_cast<std::uint32_t>(nodes_.size() - 1); }
  const std::vector<std::string>& vars() const { return vars_; }  // first-occurrence order
  const std::vector<std::string>& op_vars() const { return op_vars_; }
  // True when the subtree at `node` has no variable (it names one fixed term).
  bool is_ground(std::uint32_t node) const { return ground_[node] != 0; }
  std::string to_string(const SymbolTable& symbols) const;

 private:
  std::uint32_t add(const SExpr& sexpr, SymbolTable& symbols, std::string_view source);
  std::uint32_t push(Node node, bool ground);

  std::vector<Node> nodes_;
  std::vector<std::string> vars_;
  std::vector<std::string> op_vars_;
  std::vector<std::uint8_t> ground_;
};

}  // namespace smelt::egraph
