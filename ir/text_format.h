#pragma once
// The .sg text format (docs/sg-format.md): parse and print. print(parse(print(g)))
// == print(g) for every graph.
#include <stdexcept>
#include <string>
#include <string_view>

#include "ir/graph.h"

namespace ir {

// A syntax, name, type or shape error at a position of a .sg text.
// what() is "FILE:LINE:COL: message" (line and column count from 1).
class ParseError : public std::runtime_error {
 public:
  ParseError(std::string file, int line, int col, std::string message);
  const std::string& file() const { return file_; }
  int line() const { return line_; }
  int col() const { return col_; }
  const std::string& message() const { return message_; }

 private:
  std::string file_;
  int line_, col_;
  std::string message_;
};

Graph parse_graph(std::string_view text, std::string_view filename = "<input>");
// Reads (ir/input_file.h) and parses a file; a file that cannot be read (missing,
// a directory or device, larger than the memory limit) is a ParseError at 1:1.
Graph parse_graph_file(const std::string& path);

std::string print_graph(const Graph& g);

}  // namespace ir
