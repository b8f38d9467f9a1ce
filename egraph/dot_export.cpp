// export_dot (egraph/serialize.h): an e-graph as a Graphviz picture.
#include <span>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "egraph/serialize.h"
#include "egraph/term_syntax.h"

namespace smelt::egraph {

// Length of the well-formed UTF-8 sequence at text[i], or 0: graphviz warns
// about (and may misdraw) invalid UTF-8, which symbols and ONNX names are free to contain.
static std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  const auto lead = static_cast<unsigned char>(text[i]);
  const std::size_t length = lead >= 0xC2 && lead <= 0xDF ? 2 : lead >= 0xE0 && lead <= 0xEF ? 3
                             : lead >= 0xF0 && lead <= 0xF4                                 ? 4
                                                                                            : 0;
  if (length == 0 || i + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k)
    if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return 0;
  return length;
}

std::string dot_escaped(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (byte < 0x20 || byte == 0x7F) {
      out += '?';
    } else if (byte >= 0x80) {
      const std::size_t length = utf8_sequence_length(text, i);
      if (length == 0) {
        out += '?';
      } else {
        out.append(text.substr(i, length));
        i += length;
        continue;
      }
    } else {
      out += c;
    }
    ++i;
  }
  return out;
}

namespace {

// `text` as a DOT quoted string (dot_escaped in quotes).
std::string dot_quoted(std::string_view text) {
  std::string out = "\"";  // appended: GCC 12's -O3 warns falsely (-Wrestrict) on "\"" + string
  out += dot_escaped(text);
  out += '"';
  return out;
}

// Appended rather than "n" + to_string: GCC 12's -O3 warns falsely (-Wrestrict) on that.
std::string prefixed(const char* prefix, Id id) {
  std::string out = prefix;
  out += std::to_string(id);
  return out;
}

constexpr std::size_t kRowWidth = 6;  // nodes side by side in a class's cluster

std::string cluster_name(Id cls) { return prefixed("cluster_", cls); }
std::string node_name(Id node) { return prefixed("n", node); }

}  // namespace

std::string export_dot(const EGraph& graph, const DotStyle& style) {
  // Later sets overwrite earlier ones: a node in two sets takes the later color.
  std::unordered_map<Id, const std::string*> fill;
  for (const auto& [nodes, color] : style.highlights)
    for (Id node : nodes) fill[node] = &color;
  std::unordered_set<Id> roots;
  for (Id root : style.roots) roots.insert(graph.find(root));

  // Small type and tight boxes keep a few hundred nodes on a readable page.
  std::string out =
      "digraph egraph {\n"
      "  compound=true\n  clusterrank=local\n  rankdir=TB\n  nodesep=0.15\n  ranksep=0.3\n"
      "  fontname=\"Helvetica\"\n"
      "  node [shape=box fontname=\"Helvetica\" fontsize=9 height=0.25 margin=\"0.06,0.03\"]\n"
      "  edge [arrowsize=0.5 color=\"gray30\"]\n";
  // The graph's font size is the title's; clusters set their own.
  if (!style.title.empty()) out += "  label=" + dot_quoted(style.title) + "\n  labelloc=t\n  fontsize=12\n";

  for (Id cls : graph.classes()) {
    out += "  subgraph " + cluster_name(cls) + " {\n";
    out += roots.contains(cls) ? "    style=bold\n    color=\"black\"\n" : "    style=dotted\n    color=\"gray40\"\n";
    out += "    label=" + dot_quoted(prefixed("c", cls)) + "\n    fontsize=8\n    fontcolor=\"gray30\"\n";
    const std::span<const Id> nodes = graph.class_nodes(cls);
    for (Id node : nodes) {
      const NodeView view = graph.node(node);
      const std::string label =
          style.label ? style.label(graph, node) : format_operator(view.op, view.payload, graph.symbols());
      out += "    " + node_name(node) + " [label=" + dot_quoted(label);
      if (const auto it = fill.find(node); it != fill.end())
        out += " style=filled fillcolor=" + dot_quoted(*it->second);
      out += "]\n";
    }
    // A class of many nodes in rows of kRowWidth (invisible edges down the
    // columns): one long row would make the whole picture a thin strip.
    for (std::size_t i = kRowWidth; i < nodes.size(); ++i)
      out += "    " + node_name(nodes[i - kRowWidth]) + " -> " + node_name(nodes[i]) + " [style=invis]\n";
    out += "  }\n";
  }

  // An edge ends at the child class's first node, clipped at its cluster.
  for (Id cls : graph.classes()) {
    for (Id node : graph.class_nodes(cls)) {
      const NodeView view = graph.node(node);
      for (Id child : view.children) {
        const Id child_class = graph.find(child);
        out += "  " + node_name(node) + " -> " + node_name(graph.class_nodes(child_class).front());
        // An edge into a cluster that contains its own tail must not be clipped.
        if (child_class != cls) out += " [lhead=" + cluster_name(child_class) + "]";
        out += "\n";
      }
    }
  }
  out += "}\n";
  return out;
}

std::string export_dot(const EGraph& graph) { return export_dot(graph, DotStyle{}); }

}  // namespace smelt::egraph
