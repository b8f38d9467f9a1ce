#include "tools/kernel_dot.h"

#include <cstdio>
#include <map>
#include <string_view>
#include <utility>
#include <vector>

#include "egraph/serialize.h"
#include "ir/dtype.h"

namespace smelt::tools {
namespace {

using namespace ir;
using namespace kernel;

using egraph::dot_escaped;

std::string dot_quoted(std::string_view text) { return "\"" + dot_escaped(text) + "\""; }

// Left-justified lines (\l ends each one).
std::string left_lines(const std::vector<std::string>& lines) {
  std::string out = "\"";
  for (const std::string& line : lines) out += dot_escaped(line) + "\\l";
  return out + "\"";
}

// Long names would widen every box of their rank.
std::string shortened(const std::string& text, size_t limit = 40) {
  return text.size() <= limit ? text : text.substr(0, limit - 3) + "...";
}

const char* kind_name(BufferKind kind) {
  switch (kind) {
    case BufferKind::kInput: return "input";
    case BufferKind::kOutput: return "output";
    case BufferKind::kConstant: return "constant";
    case BufferKind::kIntermediate: break;
  }
  return "temp";
}

const char* kind_color(BufferKind kind) {
  switch (kind) {
    case BufferKind::kInput: return "lightblue";
    case BufferKind::kOutput: return "gold";
    case BufferKind::kConstant: return "palegreen";
    case BufferKind::kIntermediate: break;
  }
  return "white";
}

std::string buffer_label(const Buffer& b) {
  std::string kind = kind_name(b.kind);
  if (b.kind == BufferKind::kConstant && b.values.size() == 1) {
    char value[32];
    std::snprintf(value, sizeof value, " %g", b.values[0]);
    kind += value;
  }
  return dot_quoted(shortened(b.name) + "\n" + type_str(b.type) + "\n" + kind);
}

// "name ×count" for each distinct name, in order of first appearance.
class Tally {
 public:
  void add(const std::string& name) {
    for (auto& [seen, count] : entries_)
      if (seen == name) {
        ++count;
        return;
      }
    entries_.emplace_back(name, 1);
  }
  bool empty() const { return entries_.empty(); }
  // "heading a ×2, b, c", at most `limit` names then "+N more", wrapped into
  // lines of about `width` characters.
  std::vector<std::string> lines(const std::string& heading, size_t limit = 8, size_t width = 44) const {
    std::vector<std::string> items;
    for (size_t i = 0; i < entries_.size() && i < limit; ++i)
      items.push_back(entries_[i].first + (entries_[i].second > 1 ? " ×" + std::to_string(entries_[i].second) : ""));
    if (entries_.size() > limit) items.push_back("+" + std::to_string(entries_.size() - limit) + " more");
    std::vector<std::string> out{heading};
    for (size_t i = 0; i < items.size(); ++i) {
      const std::string item = items[i] + (i + 1 < items.size() ? "," : "");
      if (out.back().size() > 2 && out.back().size() + 1 + item.size() > width) out.push_back(" ");
      out.back() += " " + item;
    }
    return out;
  }

 private:
  std::vector<std::pair<std::string, int>> entries_;
};

std::string kernel_label(const Kernel& k) {
  std::vector<std::string> lines{"kernel " + shortened(k.name)};
  lines.push_back("over " + shape_str(k.space) + (k.reduction.empty() ? "" : " reducing " + shape_str(k.reduction)));
  Tally reductions, elementwise;
  int iotas = 0;
  for (const KernelExpr& e : k.exprs) {
    switch (e.kind) {
      case KernelExpr::Kind::kReduce:
        reductions.add(e.contraction ? std::string("matmul") : std::string(op_name(e.op)));
        break;
      case KernelExpr::Kind::kElementwise:
        elementwise.add(e.op == Op::Cast ? "cast to " + std::string(dtype_name(e.to)) : std::string(op_name(e.op)));
        break;
      case KernelExpr::Kind::kIndex: ++iotas; break;
      case KernelExpr::Kind::kLoad:
      case KernelExpr::Kind::kConstant: break;
    }
  }
  for (const auto& [tally, heading] : {std::pair{&reductions, "reduces:"}, std::pair{&elementwise, "elementwise:"}})
    if (!tally->empty())
      for (const std::string& line : tally->lines(heading)) lines.push_back(line);
  if (iotas > 0) lines.push_back("index values: " + std::to_string(iotas));
  if (reductions.empty() && elementwise.empty() && iotas == 0) lines.push_back("copies");
  return left_lines(lines);
}

}  // namespace

std::string kernel_program_dot(const KernelProgram& program) {
  std::string out =
      "digraph kernels {\n"
      "  rankdir=TB\n  nodesep=0.25\n  ranksep=0.35\n"
      "  node [fontname=\"Helvetica\" fontsize=9 margin=\"0.08,0.04\"]\n"
      "  edge [arrowsize=0.6 color=\"gray30\" fontname=\"Helvetica\" fontsize=8]\n";
  for (size_t i = 0; i < program.buffers.size(); ++i) {
    const Buffer& b = program.buffers[i];
    out += "  b" + std::to_string(i) + " [shape=ellipse style=filled fillcolor=\"" + kind_color(b.kind) +
           "\" label=" + buffer_label(b) + "]\n";
  }
  for (size_t i = 0; i < program.kernels.size(); ++i) {
    const Kernel& k = program.kernels[i];
    const std::string name = "k" + std::to_string(i);
    out += "  " + name + " [shape=box style=\"rounded,filled\" fillcolor=\"gray95\" label=" + kernel_label(k) + "]\n";
    std::map<int, int> loads;  // buffer -> how often the kernel loads it: one edge per buffer
    for (const KernelExpr& e : k.exprs)
      if (e.kind == KernelExpr::Kind::kLoad) ++loads[e.buffer];
    for (const auto& [buffer, count] : loads)
      out += "  b" + std::to_string(buffer) + " -> " + name +
             (count > 1 ? " [label=\"×" + std::to_string(count) + "\"]" : "") + "\n";
    for (const KernelOutput& o : k.outputs) out += "  " + name + " -> b" + std::to_string(o.buffer) + "\n";
  }
  out += "}\n";
  return out;
}

}  // namespace smelt::tools
