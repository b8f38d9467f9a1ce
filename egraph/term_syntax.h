#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "egraph/ids.h"
#include "egraph/sexpr.h"
#include "egraph/symbol_table.h"

namespace smelt::egraph {

// How operators appear in text, shared by terms, patterns and serializers:
//   42, -1      an integer literal: op kNumber, payload = the value
//   name#7      op `name` with payload 7
//   name        op `name` without payload
struct OpAndPayload {
  Op op = 0;
  std::uint64_t payload = 0;
};

// Reads an atom as an operator; throws ParseError at the atom's position.
// `is_head` is true for the first item of a list (numbers cannot head a list).
OpAndPayload parse_operator_atom(const SExpr& atom, SymbolTable& symbols, std::string_view source,
                                 bool is_head);

std::string format_operator(Op op, std::uint64_t payload, const SymbolTable& symbols);

}  // namespace smelt::egraph
