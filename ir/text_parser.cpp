// The .sg parser (docs/sg-format.md): a hand-written lexer that tracks lines and
// columns, and a recursive-descent parser that builds the graph through
// smelt::ir::Graph::add. Every error is a SgTextError at the offending token; the input
// may be arbitrary bytes (the parser is fuzzed), so nothing here trusts it.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "error/input_file.h"
#include "ir/text_format.h"

namespace smelt::ir {

namespace {

// Bound on extents, element counts and integer attributes. It keeps every size,
// byte count and index computed downstream (shape inference, interpreter) far
// from int64 overflow; no real tensor comes near it.
constexpr int64_t kMaxMagnitude = int64_t{1} << 53;

// ---- lexer -------------------------------------------------------------------

enum class Tok {
  Name,
  Int,
  Float,
  Equals,
  LParen,
  RParen,
  LBracket,
  RBracket,
  Comma,
  Colon,
  Newline,
  End
};

struct Token {
  Tok kind = Tok::End;
  std::string_view text;
  int line = 1, col = 1;
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// A character as an error message shows it: printable ASCII quoted, other bytes in hex.
std::string describe_char(char c) {
  auto byte = static_cast<unsigned char>(c);
  if (byte >= 0x21 && byte < 0x7f) return "character '" + std::string(1, c) + "'";
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02x", byte);
  return std::string("byte ") + hex;
}

class Lexer {
 public:
  Lexer(std::string_view text, const std::string& file) : text_(text), file_(file) {}

  Token next() {
    skip_blanks_and_comments();
    Token t;
    t.line = line_;
    t.col = static_cast<int>(pos_ - line_start_) + 1;
    if (pos_ >= text_.size()) return t;  // Tok::End
    char c = text_[pos_];
    if (c == '\n') {
      t.kind = Tok::Newline;
      t.text = text_.substr(pos_, 1);
      ++pos_;
      ++line_;
      line_start_ = pos_;
      return t;
    }
    if (is_name_start(c)) return lex_name(t);
    if (is_digit(c) || c == '-') return lex_number(t);
    if (auto kind = punctuation(c)) {
      t.kind = *kind;
      t.text = text_.substr(pos_++, 1);
      return t;
    }
    if (c == '.') fail(t, "unexpected character '.' (a number must start with a digit, e.g. 0.5)");
    fail(t, "unexpected " + describe_char(c));
  }

 private:
  [[noreturn]] void fail(const Token& at, const std::string& message) const {
    throw SgTextError(file_, at.line, at.col, message);
  }

  static std::optional<Tok> punctuation(char c) {
    switch (c) {
      case '=': return Tok::Equals;
      case '(': return Tok::LParen;
      case ')': return Tok::RParen;
      case '[': return Tok::LBracket;
      case ']': return Tok::RBracket;
      case ',': return Tok::Comma;
      case ':': return Tok::Colon;
      default: return std::nullopt;
    }
  }

  bool at(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
  bool at_digit() const { return pos_ < text_.size() && is_digit(text_[pos_]); }
  bool at_name_char() const { return pos_ < text_.size() && is_name_char(text_[pos_]); }

  void skip_blanks_and_comments() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\r') {
        ++pos_;
      } else if (c == '#') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else {
        return;
      }
    }
  }

  Token lex_name(Token t) {
    size_t begin = pos_;
    while (at_name_char()) ++pos_;
    t.kind = Tok::Name;
    t.text = text_.substr(begin, pos_ - begin);
    return t;
  }

  void skip_digits() {
    while (at_digit()) ++pos_;
  }

  // -?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?, or -inf.
  Token lex_number(Token t) {
    size_t begin = pos_;
    if (at('-')) {
      ++pos_;
      if (text_.substr(pos_, 3) == "inf" &&
          (pos_ + 3 >= text_.size() || !is_name_char(text_[pos_ + 3]))) {
        pos_ += 3;
        t.kind = Tok::Float;
        t.text = text_.substr(begin, pos_ - begin);
        return t;
      }
      if (!at_digit()) fail(t, "a '-' must be followed by digits or 'inf'");
    }
    skip_digits();
    t.kind = Tok::Int;
    if (at('.')) {
      ++pos_;
      if (!at_digit()) fail(t, "malformed number: expected digits after '.'");
      skip_digits();
      t.kind = Tok::Float;
    }
    if (at('e') || at('E')) {
      ++pos_;
      if (at('+') || at('-')) ++pos_;
      if (!at_digit()) fail(t, "malformed number: expected digits in the exponent");
      skip_digits();
      t.kind = Tok::Float;
    }
    if (at_name_char()) fail(t, "malformed number: unexpected " + describe_char(text_[pos_]));
    t.text = text_.substr(begin, pos_ - begin);
    return t;
  }

  std::string_view text_;
  const std::string& file_;
  size_t pos_ = 0;
  size_t line_start_ = 0;
  int line_ = 1;
};

// ---- helpers ---------------------------------------------------------------------

bool is_keyword(std::string_view s) {
  return s == "graph" || s == "output" || s == "true" || s == "false" || s == "inf" || s == "nan";
}

// A token as an error message shows it.
std::string describe(const Token& t) {
  switch (t.kind) {
    case Tok::Newline: return "end of line";
    case Tok::End: return "end of file";
    default: break;
  }
  constexpr size_t kMaxShown = 40;
  if (t.text.size() > kMaxShown) return "'" + std::string(t.text.substr(0, kMaxShown)) + "...'";
  return "'" + std::string(t.text) + "'";
}

// Product of the extents, or nullopt when it passes kMaxMagnitude. Zero
// extents are skipped so that [huge, huge, 0] cannot overflow a running product.
std::optional<int64_t> bounded_element_count(const Shape& shape) {
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d <= 0) continue;
    if (d > kMaxMagnitude / count) return std::nullopt;
    count *= d;
  }
  return count;
}

// The attributes of one call, and which keys were written (defaults are
// filled in for the others).
struct ParsedAttrs {
  Attrs attrs;
  uint32_t given = 0;  // AttrKey mask
  // The first float literal in `value=` of magnitude 2^53 or more: a double
  // rounds such a number, so it cannot give an integer dtype's value exactly.
  std::optional<Token> inexact_for_integers;
};

struct Operand {
  ValueId id;
};

struct Annotation {
  TensorType type;
  Token token;  // the dtype
};

// ---- parser ------------------------------------------------------------------------

class Parser {
 public:
  Parser(std::string_view text, std::string_view file) : file_(file), lexer_(text, file_) {
    current_ = lexer_.next();
  }

  Graph parse() {
    bool any_statement = false;
    for (;;) {
      skip_newlines();
      if (current_.kind == Tok::End) break;
      parse_statement(any_statement);
      any_statement = true;
    }
    if (!any_statement)
      fail(current_, "empty graph: expected definitions and an 'output NAME' line");
    if (graph_.outputs().empty())
      fail(current_, "no 'output' line: a graph needs at least one output");
    return std::move(graph_);
  }

 private:
  [[noreturn]] void fail(const Token& at, const std::string& message) const {
    throw SgTextError(file_, at.line, at.col, message);
  }

  void advance() {
    if (lookahead_) {
      current_ = *lookahead_;
      lookahead_.reset();
    } else {
      current_ = lexer_.next();
    }
  }

  const Token& peek() {
    if (!lookahead_) lookahead_ = lexer_.next();
    return *lookahead_;
  }

  void skip_newlines() {
    while (current_.kind == Tok::Newline) advance();
  }

  Token expect(Tok kind, std::string_view what) {
    if (current_.kind != kind)
      fail(current_, "expected " + std::string(what) + ", found " + describe(current_));
    Token t = current_;
    advance();
    return t;
  }

  void expect_end_of_statement() {
    if (current_.kind != Tok::Newline && current_.kind != Tok::End)
      fail(current_, "unexpected " + describe(current_) + " after the end of the statement");
  }

  // ---- statements

  void parse_statement(bool after_first) {
    if (current_.kind != Tok::Name)
      fail(current_, "expected a definition 'NAME = OP(...)' or 'output NAME, ...', found " +
                         describe(current_));
    if (current_.text == "graph" && peek().kind != Tok::Equals) {
      if (after_first) fail(current_, "the 'graph NAME' header must be the first line");
      parse_header();
    } else if (current_.text == "output" && peek().kind != Tok::Equals) {
      parse_outputs();
    } else {
      parse_definition();
    }
  }

  void parse_header() {
    advance();
    Token name = expect(Tok::Name, "a graph name after 'graph'");
    graph_.set_name(std::string(name.text));
    expect_end_of_statement();
  }

  void parse_outputs() {
    advance();
    for (;;) {
      Token name = expect_defined_value("a value name after 'output'");
      graph_.add_output(graph_.find(name.text));
      if (current_.kind != Tok::Comma) break;
      advance();
    }
    expect_end_of_statement();
  }

  // NAME = OP(OPERANDS, KEY=VALUE, ...) [: TYPE]
  void parse_definition() {
    Token name = parse_new_value_name();
    expect(Tok::Equals, "'=' after the value name");
    Token op_token = expect(Tok::Name, "an op name");
    std::optional<Op> op = parse_op(op_token.text);
    if (!op) fail(op_token, "unknown op '" + std::string(op_token.text) + "'");
    const OpInfo& info = op_info(*op);
    expect(Tok::LParen, "'(' after the op name");
    std::vector<Operand> operands;
    ParsedAttrs parsed;
    parse_arguments(info, operands, parsed);
    if (current_.kind != Tok::RParen)
      fail(current_, "expected ',' or ')', found " + describe(current_));
    advance();
    std::optional<Annotation> annotation;
    if (current_.kind == Tok::Colon) {
      advance();
      annotation = parse_type();
    }
    if (is_factory(*op) && !annotation)
      fail(current_, std::string(info.name) + " needs its result type, ': DTYPE[EXTENTS]', found " +
                         describe(current_));
    expect_end_of_statement();
    build_node(info, op_token, std::move(name), operands, std::move(parsed), annotation);
  }

  static bool is_factory(Op op) {
    return op == Op::Input || op == Op::Constant || op == Op::Full || op == Op::Iota;
  }

  Token parse_new_value_name() {
    Token name = current_;
    check_not_reserved(name);
    if (ValueId existing = graph_.find(name.text); existing >= 0)
      fail(name, "'" + std::string(name.text) + "' is already defined (line " +
                     std::to_string(definition_lines_[static_cast<size_t>(existing)]) + ")");
    advance();
    return name;
  }

  void check_not_reserved(const Token& name) const {
    if (is_keyword(name.text))
      fail(name, "'" + std::string(name.text) + "' is a keyword and cannot name a value");
    if (parse_dtype(name.text))
      fail(name, "'" + std::string(name.text) + "' is a dtype and cannot name a value");
  }

  // A name defined on an earlier line.
  Token expect_defined_value(std::string_view what) {
    if (current_.kind == Tok::Int || current_.kind == Tok::Float)
      fail(current_, "expected " + std::string(what) + ", found the literal " + describe(current_) +
                         " (literals need their own 'constant' line)");
    Token name = expect(Tok::Name, what);
    check_not_reserved(name);
    if (graph_.find(name.text) < 0) fail(name, "undefined value '" + std::string(name.text) + "'");
    return name;
  }

  // ---- call arguments

  bool at_attribute() { return current_.kind == Tok::Name && peek().kind == Tok::Equals; }

  // `a, b, key=value, ...` up to (not including) the closing ')': operands
  // first, then attributes.
  void parse_arguments(const OpInfo& info, std::vector<Operand>& operands, ParsedAttrs& parsed) {
    if (current_.kind == Tok::RParen) return;
    for (;;) {
      if (at_attribute())
        parse_attribute(info, parsed);
      else if (parsed.given != 0 && current_.kind == Tok::Name)
        fail(current_, "operands must come before the attributes, found " + describe(current_));
      else
        operands.push_back(parse_operand());
      if (current_.kind != Tok::Comma) return;
      advance();
    }
  }

  Operand parse_operand() {
    if (current_.kind == Tok::Name && peek().kind == Tok::LParen)
      fail(peek(), "nested calls are not allowed: define '" + std::string(current_.text) +
                       "(...)' on its own line");
    Token name = expect_defined_value("an operand name");
    return {graph_.find(name.text)};
  }

  void parse_attribute(const OpInfo& info, ParsedAttrs& parsed) {
    Token key_token = current_;
    std::string key_name(key_token.text);
    std::optional<AttrKey> key = parse_attr_key(key_name);
    if (!key) fail(key_token, "unknown attribute '" + key_name + "'");
    if (!(info.attrs & *key))
      fail(key_token, std::string(info.name) + " does not take attribute '" + key_name + "'" +
                          accepted_attributes(info));
    if (parsed.given & *key) fail(key_token, "attribute '" + key_name + "' given twice");
    parsed.given |= *key;
    advance();
    expect(Tok::Equals, "'='");
    parse_attribute_value(info.op, *key, parsed.attrs);
    if (*key == kAttrValue) parsed.inexact_for_integers = std::exchange(large_float_, std::nullopt);
  }

  static std::string accepted_attributes(const OpInfo& info) {
    std::string names;
    for (AttrKey k : kAllAttrKeys)
      if (info.attrs & k) names += (names.empty() ? "" : ", ") + std::string(attr_key_name(k));
    return names.empty() ? " (it takes none)" : " (it takes: " + names + ")";
  }

  void parse_attribute_value(Op op, AttrKey key, Attrs& a) {
    switch (key) {
      case kAttrShape: a.shape = parse_shape_list(); break;
      case kAttrTo: a.to = parse_dtype_name(); break;
      case kAttrValue:
        a.values = op == Op::Constant ? parse_literal() : std::vector{parse_number()};
        break;
      case kAttrAxis: a.axis = parse_int(); break;
      case kAttrPerm: a.perm = parse_int_list(); break;
      case kAttrAxes: a.axes = parse_int_list(); break;
      case kAttrKeepdims: a.keepdims = parse_bool(); break;
      case kAttrStart: a.start = parse_int_list(); break;
      case kAttrStop: a.stop = parse_int_list(); break;
      case kAttrStep: a.step = parse_int_list(); break;
      case kAttrLo: a.lo = parse_int_list(); break;
      case kAttrHi: a.hi = parse_int_list(); break;
      case kAttrStrides: a.strides = parse_int_list(); break;
      case kAttrDilations: a.dilations = parse_int_list(); break;
      case kAttrGroups: a.groups = parse_int(); break;
    }
  }

  // ---- values

  int64_t parse_int() {
    if (current_.kind == Tok::Float)
      fail(current_, "expected an integer, found the float " + describe(current_));
    if (current_.kind != Tok::Int)
      fail(current_, "expected an integer, found " + describe(current_));
    int64_t value = 0;
    std::string_view text = current_.text;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size())
      fail(current_, "integer literal " + describe(current_) + " out of range");
    if (value > kMaxMagnitude || value < -kMaxMagnitude)
      fail(current_, "integer " + describe(current_) + " out of range (|v| <= 2^53)");
    advance();
    return value;
  }

  double parse_number() {
    const Token t = current_;
    if (t.kind == Tok::Name) {
      std::optional<double> named = named_number(t.text);
      if (!named) fail(t, "expected a number, found " + describe(t));
      advance();
      return *named;
    }
    if (t.kind != Tok::Int && t.kind != Tok::Float)
      fail(t, "expected a number, found " + describe(t));
    if (t.text == "-inf") {
      advance();
      return -std::numeric_limits<double>::infinity();
    }
    // A double holds every integer up to 2^53 exactly; beyond, digits would be
    // silently rounded (9007199254740993 would read as ...992). (copysign: -0 stays -0.)
    if (t.kind == Tok::Int)
      return std::copysign(static_cast<double>(parse_int()), t.text.front() == '-' ? -1.0 : 1.0);
    double value = 0;
    auto [end, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), value);
    if (ec != std::errc() || end != t.text.data() + t.text.size())
      fail(t, "number " + describe(t) + " is out of the range of a double");
    if (std::fabs(value) >= static_cast<double>(kMaxMagnitude) && !large_float_) large_float_ = t;
    advance();
    return value;
  }

  static std::optional<double> named_number(std::string_view name) {
    if (name == "inf") return std::numeric_limits<double>::infinity();
    if (name == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (name == "true") return 1.0;
    if (name == "false") return 0.0;
    return std::nullopt;
  }

  bool parse_bool() {
    if (current_.kind != Tok::Name || (current_.text != "true" && current_.text != "false"))
      fail(current_, "expected true or false, found " + describe(current_));
    bool value = current_.text == "true";
    advance();
    return value;
  }

  DType parse_dtype_name() {
    if (current_.kind != Tok::Name) fail(current_, "expected a dtype, found " + describe(current_));
    std::optional<DType> dtype = parse_dtype(current_.text);
    if (!dtype)
      fail(current_, "unknown dtype " + describe(current_) + " (f32, f16, bf16, i32, i64, bool)");
    advance();
    return *dtype;
  }

  // `[item, item, ...]`, possibly empty.
  template <typename ParseItem>
  auto parse_list(std::string_view what, ParseItem parse_item) {
    std::vector<decltype(parse_item())> items;
    expect(Tok::LBracket, "'[' (a list of " + std::string(what) + ")");
    if (current_.kind == Tok::RBracket) {
      advance();
      return items;
    }
    for (;;) {
      items.push_back(parse_item());
      if (current_.kind == Tok::RBracket) break;
      if (current_.kind != Tok::Comma)
        fail(current_, "expected ',' or ']', found " + describe(current_));
      advance();
    }
    advance();
    return items;
  }

  std::vector<int64_t> parse_int_list() {
    return parse_list("integers", [this] { return parse_int(); });
  }

  // A constant's literal: one number or a flat row-major list.
  std::vector<double> parse_literal() {
    if (current_.kind != Tok::LBracket) return {parse_number()};
    return parse_list("numbers", [this] { return parse_number(); });
  }

  // A target shape; reshape's -1 is left to shape inference.
  Shape parse_shape_list() {
    Token start = current_;
    Shape shape = parse_int_list();
    if (!bounded_element_count(shape))
      fail(start, "shape " + shape_str(shape) + " has too many elements");
    return shape;
  }

  // DTYPE[EXTENTS]
  Annotation parse_type() {
    Annotation result;
    result.token = current_;
    result.type.dtype = parse_dtype_name();
    result.type.shape = parse_list("extents", [this] {
      if (current_.kind == Tok::Int && current_.text.front() == '-')
        fail(current_, "negative extent " + describe(current_));
      return parse_int();
    });
    if (!bounded_element_count(result.type.shape))
      fail(result.token, "type " + type_str(result.type) + " has too many elements");
    return result;
  }

  // ---- building

  void fill_defaults(const OpInfo& info, const std::vector<Operand>& operands, ParsedAttrs& parsed,
                     const Token& op_token) const {
    Attrs& a = parsed.attrs;
    if ((info.attrs & kAttrStep) && !(parsed.given & kAttrStep) && !operands.empty())
      a.step.assign(graph_.type(operands[0].id).shape.size(), 1);
    if (info.op == Op::Pad && !(parsed.given & kAttrValue)) a.values = {0.0};
    uint32_t optional_keys = kAttrStep | kAttrKeepdims | (info.op == Op::Pad ? kAttrValue : 0u);
    if (info.op == Op::Conv && !operands.empty()) {
      // Stride and dilation 1, no padding, one group unless written.
      const size_t rank = graph_.type(operands[0].id).shape.size(), spatial = rank >= 2 ? rank - 2 : 0;
      if (!(parsed.given & kAttrStrides)) a.strides.assign(spatial, 1);
      if (!(parsed.given & kAttrDilations)) a.dilations.assign(spatial, 1);
      if (!(parsed.given & kAttrLo)) a.lo.assign(spatial, 0);
      if (!(parsed.given & kAttrHi)) a.hi.assign(spatial, 0);
      optional_keys |= kAttrStrides | kAttrDilations | kAttrLo | kAttrHi | kAttrGroups;
    }
    for (AttrKey k : kAllAttrKeys)
      if ((info.attrs & k) && !(optional_keys & k) && !(parsed.given & k))
        fail(op_token, std::string(info.name) + ": missing attribute '" +
                           std::string(attr_key_name(k)) + "'");
  }

  // Concat sums extents; bound the sum before shape inference does it unchecked.
  void check_concat_size(const std::vector<Operand>& operands, const Attrs& a,
                         const Token& op_token) const {
    int64_t total = 0;
    for (const Operand& operand : operands) {
      const Shape& shape = graph_.type(operand.id).shape;
      if (a.axis < 0 || a.axis >= static_cast<int64_t>(shape.size()))
        return;  // inference reports it
      total += shape[static_cast<size_t>(a.axis)];
      if (total > kMaxMagnitude) fail(op_token, "concat: the result has too many elements");
    }
  }

  void build_node(const OpInfo& info, const Token& op_token, Token name,
                  const std::vector<Operand>& operands, ParsedAttrs parsed,
                  const std::optional<Annotation>& annotation) {
    fill_defaults(info, operands, parsed, op_token);
    if (info.op == Op::Concat) check_concat_size(operands, parsed.attrs, op_token);
    if (is_factory(info.op)) parsed.attrs.result = annotation->type;
    std::vector<ValueId> ids;
    for (const Operand& operand : operands) ids.push_back(operand.id);
    ValueId id = -1;
    try {
      id = graph_.add(info.op, std::move(ids), std::move(parsed.attrs), std::string(name.text));
    } catch (const ShapeError& e) {
      fail(op_token, e.what());
    }
    definition_lines_.push_back(name.line);
    const TensorType& inferred = graph_.type(id);
    if (!bounded_element_count(inferred.shape))
      fail(op_token, std::string(info.name) + ": the result " + type_str(inferred) +
                         " has too many elements");
    if (parsed.inexact_for_integers && is_integer(inferred.dtype))
      fail(*parsed.inexact_for_integers,
           "the float literal " + describe(*parsed.inexact_for_integers) + " is rounded as a double; " +
               std::string(dtype_name(inferred.dtype)) + " values are written as integers (|v| <= 2^53)");
    if (annotation && annotation->type != inferred)
      fail(annotation->token, "type annotation " + type_str(annotation->type) +
                                  " does not match the inferred type " + type_str(inferred));
  }

  std::string file_;
  Lexer lexer_;
  Token current_;
  std::optional<Token> lookahead_;
  std::optional<Token> large_float_;  // see ParsedAttrs::inexact_for_integers
  Graph graph_;
  std::vector<int> definition_lines_;  // by ValueId
};

}  // namespace

Graph parse_graph(std::string_view text, std::string_view filename) {
  return Parser(text, filename).parse();
}

Graph parse_graph_file(const std::string& path) {
  std::string text;
  try {
    text = read_input_file(path);
  } catch (const InputFileError& e) {
    throw SgTextError(path, 1, 1, e.message());
  }
  return parse_graph(text, path);
}

}  // namespace smelt::ir
