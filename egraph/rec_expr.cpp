#include "egraph/rec_expr.h"

#include <stdexcept>

#include "egraph/node_store.h"
#include "egraph/parse_error.h"
#include "egraph/sexpr.h"
#include "egraph/term_syntax.h"

namespace smelt::egraph {

Id RecExpr::add(ENode node) {
  for (Id child : node.children)
    if (child >= nodes_.size()) throw std::invalid_argument("RecExpr: child index not before its parent");
  nodes_.push_back(std::move(node));
  return static_cast<Id>(nodes_.size() - 1);
}

namespace {

void print(const RecExpr& expr, Id at, const SymbolTable& symbols, std::string& out) {
  const ENode& node = expr.nodes()[at];
  const std::string op = format_operator(node.op, node.payload, symbols);
  if (node.children.empty()) {
    out += op;
    return;
  }
  out += '(';
  out += op;
  for (Id child : node.children) {
    out += ' ';
    print(expr, child, symbols, out);
  }
  out += ')';
}

Id add_sexpr(const SExpr& sexpr, RecExpr& out, SymbolTable& symbols, std::string_view source) {
  if (!sexpr.is_list) {
    const OpAndPayload head = parse_operator_atom(sexpr, symbols, source, false);
    return out.add(ENode{head.op, head.payload, {}});
  }
  if (sexpr.items.empty())
    throw ParseError(std::string(source), sexpr.line, sexpr.column, "empty list, expected an operator");
  const OpAndPayload head = parse_operator_atom(sexpr.items[0], symbols, source, true);
  if (sexpr.items.size() - 1 > NodeStore::kMaxArity)
    throw ParseError(std::string(source), sexpr.line, sexpr.column, "more than " + std::to_string(NodeStore::kMaxArity) + " children");
  ENode node{head.op, head.payload, {}};
  for (std::size_t i = 1; i < sexpr.items.size(); ++i)
    node.children.push_back(add_sexpr(sexpr.items[i], out, symbols, source));
  return out.add(std::move(node));
}

}  // namespace

std::string RecExpr::to_string(const SymbolTable& symbols) const {
  std::string out;
  if (!nodes_.empty()) print(*this, root(), symbols, out);
  return out;
}

RecExpr parse_term(std::string_view text, SymbolTable& symbols, std::string_view source) {
  RecExpr out;
  add_sexpr(parse_sexpr(text, source), out, symbols, source);
  return out;
}

}  // namespace smelt::egraph
