// The .sg printer: canonical form (docs/sg-format.md), so that
// print(parse(print(g))) == print(g).
#include <charconv>
#include <cmath>
#include <string>
#include <unordered_set>
#include <vector>

#include "ir/text_format.h"

namespace smelt::ir {
namespace {

// Attributes are written in this order (for pad: lo, hi, value; for slice:
// start, stop, step; for reductions: axes, keepdims; for conv: strides,
// dilations, lo, hi, groups). Every other op takes at most one attribute.
constexpr AttrKey kPrintOrder[] = {kAttrShape, kAttrTo,    kAttrPerm,    kAttrAxes,      kAttrKeepdims,
                                   kAttrStart, kAttrStop,  kAttrStep,    kAttrStrides,   kAttrDilations,
                                   kAttrLo,    kAttrHi,    kAttrGroups,  kAttrValue,     kAttrAxis};


bool is_name_token(std::string_view s) {
  if (s.empty() || !is_name_start(s[0])) return false;
  for (char c : s)
    if (!is_name_char(c)) return false;
  return true;
}

// What the parser accepts as a value name: a name token that is neither a
// keyword nor a dtype.
bool is_valid_value_name(std::string_view s) {
  static constexpr std::string_view kKeywords[] = {"graph", "output", "true",
                                                   "false", "inf",    "nan"};
  for (std::string_view k : kKeywords)
    if (s == k) return false;
  return is_name_token(s) && !parse_dtype(s);
}

// Graph names set through the API may hold any characters; the header needs a
// name token.
std::string header_name(const std::string& name) {
  std::string out;
  for (char c : name) out += is_name_char(c) ? c : '_';
  if (!is_name_start(out[0])) out.insert(out.begin(), '_');
  return out;
}

// Each value's printed name: its own where that parses back as itself, else a
// fresh t0, t1, ... that no other value uses.
std::vector<std::string> value_names(const Graph& g) {
  std::unordered_set<std::string> taken;
  for (const Node& n : g.nodes())
    if (is_valid_value_name(n.name)) taken.insert(n.name);
  std::vector<std::string> names;
  names.reserve(g.size());
  int next_fresh = 0;
  for (const Node& n : g.nodes()) {
    if (is_valid_value_name(n.name)) {
      names.push_back(n.name);
      continue;
    }
    std::string fresh;
    do fresh = "t" + std::to_string(next_fresh++);
    while (taken.count(fresh));
    taken.insert(fresh);
    names.push_back(fresh);
  }
  return names;
}

// Shortest text that reads back as exactly `v`; whole numbers below 2^53 in
// plain digits (100000, not 1e+05).
std::string number_str(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buffer[64];
  bool whole = std::trunc(v) == v && std::fabs(v) < 9007199254740992.0;
  auto result = whole ? std::to_chars(buffer, buffer + sizeof buffer, v, std::chars_format::fixed)
                      : std::to_chars(buffer, buffer + sizeof buffer, v);
  return std::string(buffer, result.ptr);
}

std::string value_str(double v, DType dtype) {
  if (dtype == DType::Bool && (v == 0 || v == 1)) return v == 1 ? "true" : "false";
  return number_str(v);
}

std::string values_str(const std::vector<double>& values, DType dtype) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? "," : "") + value_str(values[i], dtype);
  return out + "]";
}

// A constant of scalar type writes its one value bare; every other literal is a list.
std::string literal_str(const Node& n) {
  const std::vector<double>& values = n.attrs.values;
  bool bare = values.size() == 1 && (n.op != Op::Constant || n.type.shape.empty());
  return bare ? value_str(values[0], n.type.dtype) : values_str(values, n.type.dtype);
}

std::string attribute_str(const Node& n, AttrKey key) {
  const Attrs& a = n.attrs;
  switch (key) {
    case kAttrShape: return shape_str(a.shape);
    case kAttrTo: return std::string(dtype_name(a.to));
    case kAttrValue: return literal_str(n);
    case kAttrAxis: return std::to_string(a.axis);
    case kAttrPerm: return ints_str(a.perm);
    case kAttrAxes: return ints_str(a.axes);
    case kAttrKeepdims: return a.keepdims ? "true" : "false";
    case kAttrStart: return ints_str(a.start);
    case kAttrStop: return ints_str(a.stop);
    case kAttrStep: return ints_str(a.step);
    case kAttrLo: return ints_str(a.lo);
    case kAttrHi: return ints_str(a.hi);
    case kAttrStrides: return ints_str(a.strides);
    case kAttrDilations: return ints_str(a.dilations);
    case kAttrGroups: return std::to_string(a.groups);
  }
  return "?";
}

// NAME = OP(OPERANDS, KEY=VALUE, ...) : TYPE
std::string node_str(const Node& n, const std::string& name,
                     const std::vector<std::string>& names) {
  const OpInfo& info = op_info(n.op);
  std::string arguments;
  for (ValueId operand : n.operands)
    arguments += (arguments.empty() ? "" : ", ") + names.at(static_cast<size_t>(operand));
  for (AttrKey key : kPrintOrder)
    if (info.attrs & key)
      arguments += (arguments.empty() ? "" : ", ") + std::string(attr_key_name(key)) + "=" +
                   attribute_str(n, key);
  return name + " = " + std::string(info.name) + "(" + arguments + ") : " + type_str(n.type);
}

}  // namespace

std::string print_graph(const Graph& g) {
  std::vector<std::string> names = value_names(g);
  std::string out;
  if (!g.name().empty()) out += "graph " + header_name(g.name()) + "\n\n";
  for (size_t i = 0; i < g.size(); ++i) out += node_str(g.nodes()[i], names[i], names) + "\n";
  // A graph without outputs prints no output line (and does not parse back).
  if (!g.outputs().empty()) {
    out += "output ";
    for (size_t i = 0; i < g.outputs().size(); ++i)
      out += (i ? ", " : "") + names.at(static_cast<size_t>(g.outputs()[i]));
    out += "\n";
  }
  return out;
}

}  // namespace smelt::ir
