#pragma once
#include <stdexcept>
#include <string>
#include <utility>

namespace smelt::egraph {

// Malformed text (pattern, term, JSON). what() reads "SOURCE:LINE:COL: MESSAGE",
// e.g. "pattern:1:7: expected ')'"; line and column are 1-based.
// A standard exception, not smelt::Error: egraph/ is a generic library that uses
// the standard library only (DESIGN's module table), like egg. The layer that
// hands e-graph text to it from a user (tools/extract_serialized.cpp) turns this
// into its own smelt::Error.
class ParseError : public std::runtime_error {
 public:
  ParseError(std::string source, int line, int column, const std::string& message)
      : std::runtime_error(source + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + message),
        source_(std::move(source)), line_(line), column_(column), message_(message) {}

  const std::string& source() const { return source_; }
  int line() const { return line_; }
  int column() const { return column_; }
  // The message without the position.
  const std::string& message() const { return message_; }

 private:
  std::string source_;
  int line_;
  int column_;
  std::string message_;
};

}  // namespace smelt::egraph
