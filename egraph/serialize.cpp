#include "egraph/serialize.h"

#include <cstdio>

#include "egraph/json.h"
#include "egraph/parse_error.h"
#include "egraph/sexpr.h"
#include "egraph/term_syntax.h"

namespace smelt::egraph {

namespace {

// Operator text as written by export_json / format_operator, without the
// s-expression restrictions (any string is a valid operator name).
OpAndPayload operator_from_text(const std::string& text, SymbolTable& symbols) {
  long long value = 0;
  if (parse_integer(text, value))
    return {SymbolTable::kNumber, static_cast<std::uint64_t>(static_cast<std::int64_t>(value))};
  if (const auto hash = text.rfind('#'); hash != std::string::npos && hash > 0 && hash + 1 < text.size()) {
    bool digits = true;
    std::uint64_t payload = 0;
    for (std::size_t i = hash + 1; i < text.size() && digits; ++i) {
      digits = text[i] >= '0' && text[i] <= '9';
      payload = payload * 10 + static_cast<std::uint64_t>(text[i] - '0');
    }
    if (digits && text.size() - hash - 1 <= 19) return {symbols.intern(text.substr(0, hash)), payload};
  }
  return {symbols.intern(text), 0};
}

[[noreturn]] void fail_at(std::string_view source, const JsonValue& at, const std::string& message) {
  throw ParseError(std::string(source), at.line, at.column, message);
}

std::string quoted(const std::string& s) {
  std::string out;
  append_json_string(out, s);
  return out;
}

}  // namespace

SerializedEGraph read_serialized(std::string_view text, std::string_view source) {
  const JsonValue document = parse_json(text, source);
  if (document.kind != JsonValue::Kind::kObject)
    fail_at(source, document, std::string("expected an object at the top level, found ") + to_string(document.kind));
  const JsonValue* nodes = document.find("nodes");
  if (nodes == nullptr) fail_at(source, document, "missing \"nodes\"");
  if (nodes->kind != JsonValue::Kind::kObject)
    fail_at(source, *nodes, std::string("\"nodes\" must be an object, found ") + to_string(nodes->kind));

  // Pass 1: read and check every node; children are resolved once all names are known.
  SerializedEGraph file;
  file.nodes.reserve(nodes->object.size());
  std::vector<std::vector<const JsonValue*>> child_names;
  child_names.reserve(nodes->object.size());
  std::unordered_map<std::string, std::uint32_t> node_index;
  std::unordered_map<std::string, std::uint32_t> class_index;
  for (const auto& [name, value] : nodes->object) {
    const std::string where = "node " + quoted(name);
    if (value.kind != JsonValue::Kind::kObject) fail_at(source, value, where + " must be an object");
    const auto index = static_cast<std::uint32_t>(file.nodes.size());
    if (!node_index.emplace(name, index).second) fail_at(source, value, "duplicate " + where);
    SerializedNode node;
    node.name = name;
    node.line = value.line;
    node.column = value.column;
    const JsonValue* op = value.find("op");
    if (op == nullptr) fail_at(source, value, where + ": missing \"op\"");
    if (op->kind != JsonValue::Kind::kString) fail_at(source, *op, where + ": \"op\" must be a string");
    node.op = op->string;
    const JsonValue* eclass = value.find("eclass");
    if (eclass == nullptr) fail_at(source, value, where + ": missing \"eclass\"");
    if (eclass->kind != JsonValue::Kind::kString) fail_at(source, *eclass, where + ": \"eclass\" must be a string");
    node.eclass = class_index.emplace(eclass->string, static_cast<std::uint32_t>(file.classes.size())).first->second;
    if (node.eclass == file.classes.size()) file.classes.push_back(eclass->string);
    std::vector<const JsonValue*>& children = child_names.emplace_back();
    if (const JsonValue* list = value.find("children")) {
      if (list->kind != JsonValue::Kind::kArray) fail_at(source, *list, where + ": \"children\" must be an array");
      for (const JsonValue& child : list->array) {
        if (child.kind != JsonValue::Kind::kString)
          fail_at(source, child, where + ": children must be node names (strings)");
        children.push_back(&child);
      }
    }
    if (const JsonValue* cost = value.find("cost")) {
      if (cost->kind != JsonValue::Kind::kNumber) fail_at(source, *cost, where + ": \"cost\" must be a number");
      node.cost = cost->number;
    }
    file.nodes.push_back(std::move(node));
  }
  for (std::size_t i = 0; i < file.nodes.size(); ++i) {
    file.nodes[i].children.reserve(child_names[i].size());
    for (const JsonValue* child : child_names[i]) {
      const auto found = node_index.find(child->string);
      if (found == node_index.end())
        fail_at(source, *child, "node " + quoted(file.nodes[i].name) + ": child " + quoted(child->string) + " is not a node");
      file.nodes[i].children.push_back(found->second);
    }
  }
  if (const JsonValue* roots = document.find("root_eclasses")) {
    if (roots->kind != JsonValue::Kind::kArray) fail_at(source, *roots, "\"root_eclasses\" must be an array");
    for (const JsonValue& root : roots->array) {
      if (root.kind != JsonValue::Kind::kString) fail_at(source, root, "root e-classes must be strings");
      const auto found = class_index.find(root.string);
      if (found == class_index.end()) fail_at(source, root, "root e-class " + quoted(root.string) + " has no node");
      file.roots.push_back(found->second);
    }
  }
  return file;
}

SerializedImport import_json(EGraph& graph, std::string_view text, std::string_view source) {
  const SerializedEGraph file = read_serialized(text, source);
  for (const SerializedNode& node : file.nodes)
    if (node.children.size() > NodeStore::kMaxArity)
      throw ParseError(std::string(source), node.line, node.column, "node " + quoted(node.name) + ": more than " + std::to_string(NodeStore::kMaxArity) + " children");

  // One empty class per file class first (children may point forward or in
  // cycles), then each node united into its class.
  std::vector<Id> placeholder;
  placeholder.reserve(file.classes.size());
  for (std::size_t i = 0; i < file.classes.size(); ++i) placeholder.push_back(graph.add_empty_class());
  std::vector<OpAndPayload> ops;
  ops.reserve(file.nodes.size());
  std::vector<Id> children;
  auto child_classes = [&](const SerializedNode& node) {
    children.clear();
    for (std::uint32_t child : node.children) children.push_back(placeholder[file.nodes[child].eclass]);
  };
  for (const SerializedNode& node : file.nodes) {
    ops.push_back(operator_from_text(node.op, graph.symbols()));
    child_classes(node);
    graph.unite(graph.add(ops.back().op, ops.back().payload, children), placeholder[node.eclass]);
  }
  graph.rebuild();

  SerializedImport result;
  for (std::size_t i = 0; i < file.classes.size(); ++i) result.classes.emplace(file.classes[i], graph.find(placeholder[i]));
  for (std::uint32_t root : file.roots) result.roots.push_back(graph.find(placeholder[root]));
  for (std::size_t i = 0; i < file.nodes.size(); ++i) {
    const SerializedNode& node = file.nodes[i];
    child_classes(node);
    if (const auto id = graph.lookup_node(ops[i].op, ops[i].payload, children)) result.nodes.emplace(node.name, *id);
    result.costs.emplace(node.name, node.cost);
  }
  return result;
}

std::string export_json(const EGraph& graph, std::span<const Id> roots, const NodeCost& cost) {
  std::string out = "{\n  \"nodes\": {";
  bool first = true;
  char number[64];
  for (Id cls : graph.classes()) {
    for (Id node : graph.class_nodes(cls)) {
      const NodeView view = graph.node(node);
      out += first ? "\n    " : ",\n    ";
      first = false;
      append_json_string(out, std::to_string(node));
      out += ": {\"op\": ";
      append_json_string(out, format_operator(view.op, view.payload, graph.symbols()));
      out += ", \"children\": [";
      for (std::size_t i = 0; i < view.children.size(); ++i) {
        if (i > 0) out += ", ";
        append_json_string(out, std::to_string(graph.class_nodes(view.children[i]).front()));
      }
      out += "], \"eclass\": ";
      append_json_string(out, std::to_string(cls));
      std::snprintf(number, sizeof number, "%.17g", cost ? cost(graph, node) : 1.0);
      out += ", \"cost\": ";
      out += number;
      out += "}";
    }
  }
  out += "\n  },\n  \"root_eclasses\": [";
  for (std::size_t i = 0; i < roots.size(); ++i) {
    if (i > 0) out += ", ";
    append_json_string(out, std::to_string(graph.find(roots[i])));
  }
  out += "]\n}\n";
  return out;
}

}  // namespace smelt::egraph
