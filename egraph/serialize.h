#pragma once
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "egraph/egraph.h"

namespace smelt::egraph {

// egraph-serialize JSON (the extraction-gym format):
//   {"nodes": {NODE: {"op": STR, "children": [NODE...], "eclass": CLASS, "cost": NUM}},
//    "root_eclasses": [CLASS...]}
// A child names any node of the child class. Unknown fields are ignored.

// The file's e-graph exactly as written, without hashconsing: congruent file
// nodes stay distinct and keep their own cost (what extractors read; the
// reference results of extraction-gym are defined on this view).
struct SerializedNode {
  std::string name;                     // the node's key in "nodes"
  std::string op;
  std::uint32_t eclass = 0;             // index into SerializedEGraph::classes
  std::vector<std::uint32_t> children;  // node indices, in file order
  double cost = 1.0;                    // "cost" (default 1)
  int line = 1, column = 1;             // where the node's object starts
};

struct SerializedEGraph {
  std::vector<SerializedNode> nodes;  // file order
  std::vector<std::string> classes;   // class names, in order of each class's first node
  std::vector<std::uint32_t> roots;   // class indices of "root_eclasses", as listed
};

// Reads and checks a file without building an e-graph. Malformed input throws
// ParseError naming the place and the problem, exactly as import_json does.
SerializedEGraph read_serialized(std::string_view text, std::string_view source = "json");

struct SerializedImport {
  std::vector<Id> roots;                         // classes of "root_eclasses"
  std::unordered_map<std::string, Id> classes;   // file class name -> class id
  std::unordered_map<std::string, Id> nodes;     // file node name -> live node id
  std::unordered_map<std::string, double> costs; // file node name -> "cost" (default 1)
};

// Adds the file's e-graph to `graph` (cycles allowed) and rebuilds. Integer
// op strings become number literals, "name#N" an op with payload N, anything
// else an operator name. Malformed input throws ParseError naming the place
// and the problem (e.g. "json:3:15: node \"a\": child \"zz\" is not a node").
SerializedImport import_json(EGraph& graph, std::string_view text, std::string_view source = "json");

// Node cost for export; defaults to 1 per node.
using NodeCost = std::function<double(const EGraph&, Id node)>;
// Writes a clean e-graph; nodes are named by node id, classes by class id.
std::string export_json(const EGraph& graph, std::span<const Id> roots = {}, const NodeCost& cost = {});

// How export_dot draws an e-graph.
struct DotStyle {
  // A node's label; empty function: the op name (and payload where nonzero), as today.
  std::function<std::string(const EGraph&, Id node)> label;
  // Node sets drawn filled, each with a graphviz color name (e.g. the input term "lightblue",
  // the extracted term "gold"); a node in two sets takes the later one's color.
  std::vector<std::pair<std::vector<Id>, std::string>> highlights;
  std::vector<Id> roots;  // root classes: their cluster drawn with a bold border
  std::string title;      // graph label, may be empty
};

// Text for inside a DOT quoted string that draws exactly `text`: quotes and
// backslashes escaped (a backslash would otherwise start a label escape such
// as \N), newlines as line breaks, other control characters and invalid
// UTF-8 as '?'. Inside quotes < and > are plain characters. Every picture of
// smelt (e-graphs here, kernel programs in smelt/kernel_dot.h) escapes with it.
std::string dot_escaped(std::string_view text);

// Graphviz DOT of a clean e-graph (readable up to a few hundred nodes): one
// dotted cluster per class labeled with its id, one box per node, an edge from
// each node to the cluster of each child class.
std::string export_dot(const EGraph& graph, const DotStyle& style);
std::string export_dot(const EGraph& graph);  // the default style

}  // namespace smelt::egraph
