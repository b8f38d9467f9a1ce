#pragma once
#include <stdexcept>
#include <string>

namespace smelt::egraph {

// Malformed text (pattern, term, JSON). what() reads "SOURCE:LINE:COL: MESSAGE",
// e.g. "pattern:1:7: expected ')'"; line and column are 1-based.
class ParseError : public std::runtime_error {
 public:
  ParseError(std::string source, int line, int column, const std::string& message);

  const std::string& source() const { return source_; }
  int line() const { return line_; }
  int column() const { return column_; }
  const std::string& message() const { return message_; }

 private:
  std::string source_;
  int line_;
  int column_;
  std::string message_;
};

}  // namespace smelt::egraph
