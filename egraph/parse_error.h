#pragma once
#include <string>
#include <utility>

#include "error/error.h"

namespace smelt::egraph {

// Malformed text (pattern, term, JSON). what() reads "SOURCE:LINE:COL: MESSAGE",
// e.g. "pattern:1:7: expected ')'"; line and column are 1-based.
class ParseError : public Error {
 public:
  ParseError(std::string source, int line, int column, const std::string& message)
      : Error(ErrorKind::kParse, message, {std::move(source), line, column}) {}

  const std::string& source() const { return location().file; }
  int line() const { return location().line; }
  int column() const { return location().col; }
};

}  // namespace smelt::egraph
