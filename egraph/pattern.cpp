#include "egraph/pattern.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "egraph/node_store.h"
#include "egraph/parse_error.h"
#include "egraph/term_syntax.h"

namespace smelt::egraph {

namespace {

std::uint32_t intern(std::vector<std::string>& names, const std::string& name) {
  const auto at = std::find(names.begin(), names.end(), name);
  if (at != names.end()) return static_cast<std::uint32_t>(at - names.begin());
  names.push_back(name);
  return static_cast<std::uint32_t>(names.size() - 1);
}

}  // namespace

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
    node.var = intern(vars_, sexpr.atom);
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
    for (std::size_t i = 1; i < sexpr.items.size(); ++i) node.children.push_back(add(sexpr.items[i], symbols, source));
  }
  return push(std::move(node), ground);
}

std::uint32_t Pattern::push(Node node, bool ground) {
  if (nodes_.size() >= std::numeric_limits<std::uint32_t>::max()) throw std::length_error("pattern: too many nodes");
  for (std::uint32_t child : node.children) {
    if (child >= nodes_.size()) throw std::invalid_argument("pattern: a child must be added before its parent");
    ground = ground && ground_[child];
  }
  if (node.children.size() > NodeStore::kMaxArity)
    throw std::invalid_argument("pattern: more than " + std::to_string(NodeStore::kMaxArity) + " children");
  nodes_.push_back(std::move(node));
  ground_.push_back(ground ? 1 : 0);
  return static_cast<std::uint32_t>(nodes_.size() - 1);
}

std::uint32_t Pattern::add_var(const std::string& name) {
  Node node;
  node.is_var = true;
  node.var = intern(vars_, name);
  return push(std::move(node), false);
}

std::uint32_t Pattern::add_op(Op op, std::optional<std::uint64_t> payload, std::vector<std::uint32_t> children) {
  Node node;
  node.op = op;
  node.any_payload = !payload;
  node.payload = payload.value_or(0);
  node.children = std::move(children);
  return push(std::move(node), payload.has_value());
}

std::uint32_t Pattern::add_op_var(const std::string& name, std::vector<std::uint32_t> children) {
  Node node;
  node.is_op_var = true;
  node.var = intern(op_vars_, name);
  node.children = std::move(children);
  return push(std::move(node), false);
}

namespace {

void print(const Pattern& pattern, std::uint32_t at, const SymbolTable& symbols, std::string& out) {
  const Pattern::Node& node = pattern.nodes()[at];
  if (node.is_var) {
    out += pattern.vars()[node.var];
    return;
  }
  // An op variable prints as its name, an operator with any payload as "op#_".
  const std::string op = node.is_op_var     ? pattern.op_vars()[node.var]
                         : node.any_payload ? symbols.name(node.op) + "#_"
                                            : format_operator(node.op, node.payload, symbols);
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
