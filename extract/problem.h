#pragma once
// The extraction problem: e-classes, their e-nodes with costs, and root classes,
// in flat arrays. Every extractor reads only this, so it works the same on an
// extraction-gym file and on a live egraph::EGraph.
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "egraph/egraph.h"
#include "egraph/serialize.h"

namespace smelt::extract {

using NodeId = std::uint32_t;   // index of an e-node in Problem
using ClassId = std::uint32_t;  // index of an e-class in Problem
// The cost of what cannot be extracted (no e-node of finite cost).
inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr std::uint32_t kNone = UINT32_MAX;

// A file or graph that cannot be extracted from (negative cost, a root with no
// acyclic term, ...). what() names the problem. A standard exception: extract/
// uses egraph/ and the standard library only (DESIGN's module table);
// tools/extract_serialized.cpp turns it into smelt's ExtractInputError.
class ProblemError : public std::runtime_error {
 public:
  explicit ProblemError(const std::string& message) : std::runtime_error(message) {}
};

class Problem {
 public:
  // `children[n]` are class ids; `node_class[n]` the class of node n.
  // Classes are 0..num_classes-1; every class must have at least one node.
  Problem(std::vector<ClassId> node_class, std::vector<double> cost, const std::vector<std::vector<ClassId>>& children,
          std::vector<ClassId> roots, std::vector<std::string> node_names = {},
          std::vector<std::string> class_names = {});

  std::size_t num_nodes() const { return cost_.size(); }
  std::size_t num_classes() const { return class_begin_.size() - 1; }

  double cost(NodeId n) const { return cost_[n]; }
  ClassId class_of(NodeId n) const { return node_class_[n]; }
  // Children as class ids, in file order (a class may repeat).
  std::span<const ClassId> children(NodeId n) const {
    return {child_class_.data() + child_begin_[n], child_class_.data() + child_begin_[n + 1]};
  }
  // Nodes of a class, in file order.
  std::span<const NodeId> nodes(ClassId c) const {
    return {class_node_.data() + class_begin_[c], class_node_.data() + class_begin_[c + 1]};
  }
  std::span<const ClassId> roots() const { return roots_; }

  // Names for messages and output ("" when built without names).
  const std::string& node_name(NodeId n) const { return n < node_names_.size() ? node_names_[n] : empty_; }
  const std::string& class_name(ClassId c) const { return c < class_names_.size() ? class_names_[c] : empty_; }

 private:
  std::vector<double> cost_;
  std::vector<ClassId> node_class_;
  std::vector<std::uint32_t> child_begin_;  // CSR over child_class_
  std::vector<ClassId> child_class_;
  std::vector<std::uint32_t> class_begin_;  // CSR over class_node_
  std::vector<NodeId> class_node_;
  std::vector<ClassId> roots_;
  std::vector<std::string> node_names_;
  std::vector<std::string> class_names_;
  std::string empty_;
};

// The file's e-graph as written (see egraph::read_serialized): node i of the file is
// node i here, classes in order of first appearance. Throws ProblemError for
// costs that are negative or not finite.
Problem problem_from_serialized(const egraph::SerializedEGraph& file);

// Reads an egraph-serialize JSON file. Throws ProblemError when it cannot be
// read, egraph::ParseError ("FILE:LINE:COL: ...") when it is malformed.
Problem read_problem_file(const std::string& path);

// A clean e-graph with `cost(graph, node)` per live node; node names are egraph ids.
Problem problem_from_egraph(const egraph::EGraph& graph, std::span<const egraph::Id> roots,
                            const egraph::NodeCost& cost);

}  // namespace smelt::extract
