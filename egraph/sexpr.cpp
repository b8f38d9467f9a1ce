#include "egraph/sexpr.h"

#include <cctype>
#include <charconv>

#include "egraph/parse_error.h"

namespace smelt::egraph {

namespace {

class Reader {
 public:
  Reader(std::string_view text, std::string_view source) : text_(text), source_(source) {}

  bool at_end() {
    skip_space();
    return pos_ >= text_.size();
  }

  SExpr read() {
    skip_space();
    SExpr out;
    out.line = line_;
    out.column = column_;
    if (pos_ >= text_.size()) fail("unexpected end of input, expected an expression");
    const char c = text_[pos_];
    if (c == ')') fail("unexpected ')'");
    if (c == '(') {
      advance();
      out.is_list = true;
      for (;;) {
        skip_space();
        if (pos_ >= text_.size()) fail("expected ')'");
        if (text_[pos_] == ')') {
          advance();
          return out;
        }
        out.items.push_back(read());
      }
    }
    while (pos_ < text_.size() && !is_delimiter(text_[pos_])) {
      out.atom.push_back(text_[pos_]);
      advance();
    }
    return out;
  }

  [[noreturn]] void fail(const std::string& message) const {
    throw ParseError(std::string(source_), line_, column_, message);
  }

 private:
  static bool is_delimiter(char c) {
    return c == '(' || c == ')' || c == ';' || std::isspace(static_cast<unsigned char>(c));
  }
  void advance() {
    if (text_[pos_] == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    ++pos_;
  }
  void skip_space() {
    while (pos_ < text_.size()) {
      if (text_[pos_] == ';') {
        while (pos_ < text_.size() && text_[pos_] != '\n') advance();
      } else if (std::isspace(static_cast<unsigned char>(text_[pos_]))) {
        advance();
      } else {
        return;
      }
    }
  }

  std::string_view text_;
  std::string_view source_;
  std::size_t pos_ = 0;
  int line_ = 1;
  int column_ = 1;
};

}  // namespace

SExpr parse_sexpr(std::string_view text, std::string_view source) {
  Reader reader(text, source);
  SExpr out = reader.read();
  if (!reader.at_end()) reader.fail("unexpected input after the expression");
  return out;
}

std::vector<SExpr> parse_sexprs(std::string_view text, std::string_view source) {
  Reader reader(text, source);
  std::vector<SExpr> out;
  while (!reader.at_end()) out.push_back(reader.read());
  return out;
}

bool parse_integer(std::string_view atom, long long& value) {
  if (atom.empty()) return false;
  const char* first = atom.data();
  const char* last = atom.data() + atom.size();
  if (*first == '-' && atom.size() == 1) return false;
  auto [end, ec] = std::from_chars(first, last, value);
  return ec == std::errc() && end == last;
}

}  // namespace smelt::egraph
