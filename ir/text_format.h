#pragma once
// The .sg text format (docs/sg-format.md): parse and print. print(parse(print(g)))
// == print(g) for every graph.
#include <string>
#include <string_view>
#include <utility>

#include "error/error.h"

#include "ir/graph.h"

namespace smelt::ir {

// The characters of a .sg name: a letter or _ first, then letters, digits, _ and .
inline bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
inline bool is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9') || c == '.'; }

// A syntax, name, type or shape error at a position of a .sg text.
// what() is "FILE:LINE:COL: message" (line and column count from 1).
class SgTextError : public Error {
 public:
  SgTextError(std::string file, int line, int col, std::string message)
      : Error(ErrorKind::kParse, std::move(message), {std::move(file), line, col}) {}
  const std::string& file() const { return location().file; }
  int line() const { return location().line; }
  int col() const { return location().col; }
};

Graph parse_graph(std::string_view text, std::string_view filename = "<input>");
// Reads (error/input_file.h) and parses a file; a file that cannot be read (missing,
// a directory or device, larger than the memory limit) is a SgTextError at 1:1.
Graph parse_graph_file(const std::string& path);

std::string print_graph(const Graph& g);

}  // namespace smelt::ir
