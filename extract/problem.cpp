#include "extract/problem.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_map>

namespace smelt::extract {

Problem::Problem(std::vector<ClassId> node_class, std::vector<double> cost,
                 const std::vector<std::vector<ClassId>>& children, std::vector<ClassId> roots,
                 std::vector<std::string> node_names, std::vector<std::string> class_names)
    : cost_(std::move(cost)),
      node_class_(std::move(node_class)),
      roots_(std::move(roots)),
      node_names_(std::move(node_names)),
      class_names_(std::move(class_names)) {
  const std::size_t n = node_class_.size();
  if (cost_.size() != n || children.size() != n) throw ProblemError("problem: node arrays differ in length");
  std::size_t classes = class_names_.size();
  for (ClassId c : node_class_) classes = std::max<std::size_t>(classes, std::size_t{c} + 1);
  auto name = [&](NodeId node) { return node < node_names_.size() ? "\"" + node_names_[node] + "\"" : std::to_string(node); };

  child_begin_.reserve(n + 1);
  child_begin_.push_back(0);
  for (NodeId node = 0; node < n; ++node) {
    // Extractors add costs and compare sums: a negative or non-finite cost breaks both.
    if (!std::isfinite(cost_[node]) || cost_[node] < 0)
      throw ProblemError("node " + name(node) + ": cost " + std::to_string(cost_[node]) +
                         " is not a finite number >= 0");
    for (ClassId child : children[node]) {
      if (child >= classes) throw ProblemError("node " + name(node) + ": child class " + std::to_string(child) + " does not exist");
      child_class_.push_back(child);
    }
    child_begin_.push_back(static_cast<std::uint32_t>(child_class_.size()));
  }

  // Counting sort of nodes by class keeps file order inside a class.
  class_begin_.assign(classes + 1, 0);
  for (ClassId c : node_class_) ++class_begin_[c + 1];
  for (std::size_t c = 0; c < classes; ++c) class_begin_[c + 1] += class_begin_[c];
  class_node_.resize(n);
  std::vector<std::uint32_t> fill(class_begin_.begin(), class_begin_.end() - 1);
  for (NodeId node = 0; node < n; ++node) class_node_[fill[node_class_[node]]++] = node;
  for (std::size_t c = 0; c < classes; ++c)
    if (class_begin_[c] == class_begin_[c + 1])
      throw ProblemError("class " + std::to_string(c) + " has no node");
  for (ClassId root : roots_)
    if (root >= classes) throw ProblemError("root class " + std::to_string(root) + " does not exist");
}

Problem problem_from_serialized(const egraph::SerializedEGraph& file) {
  std::vector<ClassId> node_class;
  std::vector<double> cost;
  std::vector<std::vector<ClassId>> children;
  std::vector<std::string> names;
  node_class.reserve(file.nodes.size());
  cost.reserve(file.nodes.size());
  children.reserve(file.nodes.size());
  names.reserve(file.nodes.size());
  for (const egraph::SerializedNode& node : file.nodes) {
    node_class.push_back(node.eclass);
    cost.push_back(node.cost);
    std::vector<ClassId>& kids = children.emplace_back();
    kids.reserve(node.children.size());
    for (std::uint32_t child : node.children) kids.push_back(file.nodes[child].eclass);
    names.push_back(node.name);
  }
  return Problem(std::move(node_class), std::move(cost), children, file.roots, std::move(names), file.classes);
}

Problem read_problem_file(const std::string& path) {
  if (std::filesystem::is_directory(path)) throw ProblemError("is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ProblemError("cannot open the file");
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) throw ProblemError("cannot read the file");
  return problem_from_serialized(egraph::read_serialized(text.str(), path));
}

Problem problem_from_egraph(const egraph::EGraph& graph, std::span<const egraph::Id> roots,
                            const egraph::NodeCost& cost) {
  std::unordered_map<egraph::Id, ClassId> class_index;
  std::vector<std::string> class_names;
  for (egraph::Id cls : graph.classes()) {
    class_index.emplace(cls, static_cast<ClassId>(class_names.size()));
    class_names.push_back(std::to_string(cls));
  }
  std::vector<ClassId> node_class;
  std::vector<double> costs;
  std::vector<std::vector<ClassId>> children;
  std::vector<std::string> node_names;
  for (egraph::Id cls : graph.classes()) {
    for (egraph::Id node : graph.class_nodes(cls)) {
      node_class.push_back(class_index.at(cls));
      costs.push_back(cost ? cost(graph, node) : 1.0);
      std::vector<ClassId>& kids = children.emplace_back();
      for (egraph::Id child : graph.node(node).children) kids.push_back(class_index.at(graph.find(child)));
      node_names.push_back(std::to_string(node));
    }
  }
  std::vector<ClassId> root_classes;
  for (egraph::Id root : roots) root_classes.push_back(class_index.at(graph.find(root)));
  return Problem(std::move(node_class), std::move(costs), children, std::move(root_classes), std::move(node_names),
                 std::move(class_names));
}

}  // namespace smelt::extract
