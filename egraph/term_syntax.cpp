#include "egraph/term_syntax.h"

#include <bit>
#include <cctype>
#include <charconv>

#include "egraph/parse_error.h"

namespace smelt::egraph {

namespace {

bool looks_numeric(std::string_view atom) {
  std::size_t i = (!atom.empty() && atom[0] == '-') ? 1 : 0;
  if (i >= atom.size()) return false;
  for (; i < atom.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(atom[i]))) return false;
  return true;
}

}  // namespace

OpAndPayload parse_operator_atom(const SExpr& atom, SymbolTable& symbols, std::string_view source,
                                 bool is_head) {
  auto fail = [&](const std::string& message) {
    throw ParseError(std::string(source), atom.line, atom.column, message);
  };
  if (atom.is_list) fail("expected an operator name, found a list");
  const std::string& text = atom.atom;
  if (text.empty()) fail("expected an operator name");
  if (looks_numeric(text)) {
    if (is_head) fail("expected an operator name, found the number " + text);
    long long value = 0;
    if (!parse_integer(text, value)) fail("integer literal out of range: " + text);
    return {SymbolTable::kNumber, std::bit_cast<std::uint64_t>(static_cast<std::int64_t>(value))};
  }
  if (text[0] == '?') fail("a variable cannot be used here: " + text);
  if (const auto hash = text.rfind('#'); hash != std::string::npos && hash > 0 && hash + 1 < text.size()) {
    std::uint64_t payload = 0;
    const char* first = text.data() + hash + 1;
    const char* last = text.data() + text.size();
    auto [end, ec] = std::from_chars(first, last, payload);
    if (ec == std::errc() && end == last)
      return {symbols.intern(std::string_view(text).substr(0, hash)), payload};
  }
  if (text == "num") fail("'num' is reserved for integer literals; write the number itself");
  return {symbols.intern(text), 0};
}

std::string format_operator(Op op, std::uint64_t payload, const SymbolTable& symbols) {
  if (op == SymbolTable::kNumber) return std::to_string(std::bit_cast<std::int64_t>(payload));
  if (payload == 0) return symbols.name(op);
  return symbols.name(op) + "#" + std::to_string(payload);
}

}  // namespace smelt::egraph
