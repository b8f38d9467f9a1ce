#include "egraph/parse_error.h"

namespace smelt::egraph {

ParseError::ParseError(std::string source, int line, int column, const std::string& message)
    : std::runtime_error(source + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " +
                         message),
      source_(std::move(source)),
      line_(line),
      column_(column),
      message_(message) {}

}  // namespace smelt::egraph
