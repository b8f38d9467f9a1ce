#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace smelt::egraph {

// A parsed s-expression with the position of each item, so later stages
// (terms, patterns) can report errors at the right place.
struct SExpr {
  bool is_list = false;
  std::string atom;           // when !is_list
  std::vector<SExpr> items;   // when is_list
  int line = 1;
  int column = 1;
};

// Parses exactly one s-expression (comments start with ';'). Throws ParseError
// naming `source` and the position of the problem.
SExpr parse_sexpr(std::string_view text, std::string_view source);
// Parses any number of s-expressions.
std::vector<SExpr> parse_sexprs(std::string_view text, std::string_view source);

// Parses a decimal int64 literal (optional leading '-'); false when `atom` is not one.
bool parse_integer(std::string_view atom, long long& value);

}  // namespace smelt::egraph
