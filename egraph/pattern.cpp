#include "egraph/pattern.h"

#include "egraph/node_store.h"
#include "egraph/parse_error.h"
#include "egraph/term_syntax.h"

namespace smelt::egraph {

Pattern Pattern::parse(std::string_view text, SymbolTable& symbols, std::string_view source) {
  return from_sexpr(parse_sexpr(text, source), symbols, source);
}

Pattern Pattern::from_sexpr(const SExpr& sexpr, SymbolTable& symbols, std::string_view source) {
  Pattern out;
  out.add(sexpr, symbols, source);
  return out;
}

std::uint32_t Pattern::add(const SExpr& sexpr, SymbolTable& symbols, std::string_view source) {
  auto fail = [&](const SExpr& at, const std::string& message) {
    throw ParseError(std::string(source), at.line, at.column, message);
  };
  Node node;
  bool ground = true;
  if (!sexpr.is_list && !sexpr.atom.empty() && sexpr.atom[0] == '?') {
    if (sexpr.atom.size() == 1) fail(sexpr, "expected a variable name after '?'");
    node.is_var = true;
    ground = false;
    std::uint32_t index = 0;
    while (index < vars_.size() && vars_[index] != sexpr.atom) ++index;
    if (index == vars_.size()) vars_.push_back(sexpr.atom);
    node.var = index;
  } else if (!sexpr.is_list) {
    const OpAndPayload leaf = parse_operator_atom(sexpr, symbols, source, false);
    node.op = leaf.op;
    node.payload = leaf.payload;
  } else {
    if (sexpr.items.empty()) fail(sexpr, "empty list, expected an operator");
    const SExpr& head = sexpr.items[0];
    if (!head.is_list && !head.atom.empty() && head.atom[0] == '?')
      fail(head, "a variable cannot be an operator: " + head.atom);
    const OpAndPayload op = parse_operator_atom(head, symbols, source, true);
    if (sexpr.items.size() - 1 > NodeStore::kMaxArity) fail(sexpr, "more than " + std::to_string(NodeStore::kMaxArity) + " children");
    node.op = op.op;
    node.payload = op.payload;
    for (std::size_t i = 1; i < sexpr.items.size(); ++i) {
      const std::uint32_t child = add(sexpr.items[i], symbols, source);
      ground = ground && ground_[child];
      node.children.push_back(child);
    }
  }
  nodes_.push_back(std::move(node));
  ground_.push_back(ground ? 1 : 0);
  return static_cast<std::uint32_t>(nodes_.size() - 1);
}

namespace {

void print(const Pattern& pattern, std::uint32_t at, const SymbolTable& symbols, std::string& out) {
  const Pattern::Node& node = pattern.nodes()[at];
  if (node.is_var) {
    out += pattern.vars()[node.var];
    return;
  }
  const std::string op = format_operator(node.op, node.payload, symbols);
  if (node.children.empty()) {
    out += op;
    return;
  }
  out += "(" + op;
  for (std::uint32_t child : node.children) {
    out += ' ';
    print(pattern, child, symbols, out);
  }
  out += ')';
}

}  // namespace

std::string Pattern::to_string(const SymbolTable& symbols) const {
  std::string out;
  print(*this, root(), symbols, out);
  return out;
}

}  // namespace smelt::egraph
