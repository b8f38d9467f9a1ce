#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "egraph/json.h"
#include "egraph/parse_error.h"
#include "egraph/serialize.h"
#include "tests/egraph/test_util.h"

namespace smelt::egraph {
namespace {

using testing::add_term;
using testing::expect_sound;

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

const std::filesystem::path kGym = SMELT_EXTRACTION_GYM_DIR;

// Expects import to fail with exactly this message.
void expect_import_error(const std::string& json, const std::string& message) {
  EGraph graph;
  try {
    import_json(graph, json);
    ADD_FAILURE() << "no error; expected " << message;
  } catch (const ParseError& error) {
    EXPECT_EQ(std::string(error.what()), message);
  }
}

TEST(Serialize, ImportsExtractionGymFiles) {
  if (!std::filesystem::exists(kGym)) GTEST_SKIP() << "no extraction-gym data at " << kGym;
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kGym / "egg")) {
    if (entry.path().extension() != ".json") continue;
    EGraph graph;
    const SerializedImport result = import_json(graph, read_file(entry.path()), entry.path().filename().string());
    EXPECT_FALSE(result.roots.empty()) << entry.path();
    EXPECT_EQ(result.nodes.size(), result.costs.size());
    expect_sound(graph);
    ++files;
  }
  EXPECT_GE(files, 20u);
}

TEST(Serialize, ImportsTensatGraphWithCycles) {
  const auto path = kGym / "tensat" / "vgg.json";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no extraction-gym data at " << kGym;
  EGraph graph;
  const SerializedImport result = import_json(graph, read_file(path), "vgg.json");
  const JsonValue document = parse_json(read_file(path));
  // Every file node is a distinct e-node and every file class a distinct class
  // (the file is already congruence-closed).
  EXPECT_EQ(graph.num_nodes(), document.find("nodes")->object.size());
  EXPECT_EQ(graph.num_classes(), result.classes.size());
  EXPECT_EQ(result.roots.size(), document.find("root_eclasses")->array.size());
  expect_sound(graph);
}

TEST(Serialize, ExportThenImportKeepsTheStructure) {
  EGraph graph;
  const Id root = add_term(graph, "(+ (* x 2) (- y -3))");
  graph.unite(*testing::find_term(graph, "(* x 2)"), add_term(graph, "(<< x 1)"));
  graph.unite(*testing::find_term(graph, "y"), add_term(graph, "(f y)"));  // a cycle
  add_term(graph, "op#77");
  graph.rebuild();
  const std::vector<Id> roots{root};
  const std::string json = export_json(graph, roots);

  EGraph copy;
  const SerializedImport result = import_json(copy, json, "exported");
  EXPECT_EQ(copy.num_nodes(), graph.num_nodes());
  EXPECT_EQ(copy.num_classes(), graph.num_classes());
  ASSERT_EQ(result.roots.size(), 1u);
  EXPECT_EQ(result.roots[0], copy.find(*testing::find_term(copy, "(+ (<< x 1) (- (f y) -3))")));
  EXPECT_TRUE(testing::find_term(copy, "op#77").has_value());
  expect_sound(copy);
  // Same partition shape: the multiset of class sizes agrees.
  auto class_sizes = [](const EGraph& g) {
    std::multiset<std::size_t> sizes;
    for (Id cls : g.classes()) sizes.insert(g.class_nodes(cls).size());
    return sizes;
  };
  EXPECT_EQ(class_sizes(copy), class_sizes(graph));
}

TEST(Serialize, CostsAreReadAndWritten) {
  EGraph graph;
  import_json(graph, R"({"nodes": {"a": {"op": "x", "eclass": "c1", "children": [], "cost": 2.5, "extra": [1, {}]}},
                         "root_eclasses": ["c1"], "class_data": {}})");
  const std::string json = export_json(graph, {}, [](const EGraph&, Id) { return 0.25; });
  EXPECT_NE(json.find("\"cost\": 0.25"), std::string::npos);
  EGraph again;
  const SerializedImport result = import_json(again, json);
  for (const auto& [name, cost] : result.costs) EXPECT_EQ(cost, 0.25) << name;
}

TEST(Serialize, ReadSerializedKeepsCongruentFileNodesApart) {
  // import_json merges b1 and b2 (same op, same child class); read_serialized keeps the file as written.
  const SerializedEGraph file = read_serialized(R"({"nodes": {
    "b1": {"op": "g", "eclass": "B", "children": ["x"], "cost": 1},
    "x": {"op": "x", "eclass": "X", "extra": 1},
    "b2": {"op": "g", "eclass": "C", "children": ["x"], "cost": 3}},
    "root_eclasses": ["C", "B"]})");
  ASSERT_EQ(file.nodes.size(), 3u);
  EXPECT_EQ(file.classes, (std::vector<std::string>{"B", "X", "C"}));
  EXPECT_EQ(file.nodes[2].name, "b2");
  EXPECT_EQ(file.nodes[2].op, "g");
  EXPECT_EQ(file.nodes[2].eclass, 2u);
  EXPECT_EQ(file.nodes[2].children, (std::vector<std::uint32_t>{1}));
  EXPECT_EQ(file.nodes[2].cost, 3);
  EXPECT_EQ(file.nodes[1].cost, 1);  // the default
  EXPECT_EQ(file.roots, (std::vector<std::uint32_t>{2, 0}));
  EGraph graph;
  import_json(graph, R"({"nodes": {"b1": {"op": "g", "eclass": "B", "children": ["x"]},
    "x": {"op": "x", "eclass": "X"}, "b2": {"op": "g", "eclass": "C", "children": ["x"]}}})");
  EXPECT_EQ(graph.num_classes(), 2u);
}

TEST(Serialize, MalformedInputNamesTheProblem) {
  expect_import_error("", "json:1:1: unexpected end of input, expected a JSON value");
  expect_import_error("[]", "json:1:1: expected an object at the top level, found an array");
  expect_import_error("{}", "json:1:1: missing \"nodes\"");
  expect_import_error(R"({"nodes": []})", "json:1:11: \"nodes\" must be an object, found an array");
  expect_import_error(R"({"nodes": {"a": {"eclass": "c"}}})", "json:1:17: node \"a\": missing \"op\"");
  expect_import_error(R"({"nodes": {"a": {"op": 3, "eclass": "c"}}})", "json:1:24: node \"a\": \"op\" must be a string");
  expect_import_error(R"({"nodes": {"a": {"op": "f"}}})", "json:1:17: node \"a\": missing \"eclass\"");
  expect_import_error(R"({"nodes": {"a": {"op": "f", "eclass": "c", "children": ["zz"]}}})",
                      "json:1:57: node \"a\": child \"zz\" is not a node");
  expect_import_error(R"({"nodes": {"a": {"op": "f", "eclass": "c", "children": "b"}}})",
                      "json:1:56: node \"a\": \"children\" must be an array");
  expect_import_error(R"({"nodes": {"a": {"op": "f", "eclass": "c"}}, "root_eclasses": ["q"]})",
                      "json:1:64: root e-class \"q\" has no node");
  expect_import_error("{\"nodes\": {\"a\": {\"op\": \"f\",\n \"eclass\": \"c\",}}}", "json:2:16: expected a string key");
  expect_import_error(R"({"nodes": {"a": {"op": "f\q", "eclass": "c"}}})", "json:1:26: invalid escape '\\q'");
  expect_import_error(R"({"nodes": {"a": {"op": "f", "eclass": "c"}, "a": {"op": "g", "eclass": "c"}}})",
                      "json:1:50: duplicate node \"a\"");
  expect_import_error(std::string(300, '[') + std::string(300, ']'), "json:1:258: JSON nested too deeply");
}

TEST(Serialize, DotShowsClustersAndEdges) {
  EGraph graph;
  add_term(graph, "(+ a \"b\")");
  graph.rebuild();
  const std::string dot = export_dot(graph);
  EXPECT_EQ(dot.rfind("digraph egraph {", 0), 0u);
  EXPECT_NE(dot.find("subgraph cluster_"), std::string::npos);
  EXPECT_NE(dot.find("[label=\"+\"]"), std::string::npos);
  EXPECT_NE(dot.find("[label=\"\\\"b\\\"\"]"), std::string::npos);  // quotes escaped
  EXPECT_NE(dot.find("lhead=cluster_"), std::string::npos);
}

// The lines of `dot` that draw node n (its "nN [" statement).
std::string node_line(const std::string& dot, Id node) {
  const std::string start = "    n" + std::to_string(node) + " [";
  const std::size_t at = dot.find(start);
  if (at == std::string::npos) return "";
  return dot.substr(at, dot.find('\n', at) - at);
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// (+ a b) = (+ b a), and x = (* x 1): a cycle through one class.
Id small_graph(EGraph& graph) {
  const Id sum = add_term(graph, "(+ a b)");
  graph.unite(sum, add_term(graph, "(+ b a)"));
  const Id x = add_term(graph, "x");
  graph.unite(x, add_term(graph, "(* x 1)"));
  const Id root = add_term(graph, "(- (+ a b) x)");
  graph.rebuild();
  return root;
}

TEST(Serialize, DotUsesTheLabelFunction) {
  EGraph graph;
  small_graph(graph);
  DotStyle style;
  style.label = [](const EGraph&, Id node) { return "node #" + std::to_string(node); };
  const std::string dot = export_dot(graph, style);
  for (Id cls : graph.classes())
    for (Id node : graph.class_nodes(cls))
      EXPECT_NE(node_line(dot, node).find("[label=\"node #" + std::to_string(node) + "\""), std::string::npos)
          << node_line(dot, node);
  EXPECT_EQ(dot.find("label=\"+\""), std::string::npos) << "the op names are replaced";
}

TEST(Serialize, DotFillsHighlightedNodesTheLaterSetWinning) {
  EGraph graph;
  const Id root = small_graph(graph);
  const Id minus = graph.class_nodes(root).front();
  const Id sum = graph.class_nodes(graph.find(add_term(graph, "(+ a b)"))).front();
  const Id a = graph.class_nodes(graph.find(add_term(graph, "a"))).front();
  DotStyle style;
  style.highlights = {{{minus, sum}, "lightblue"}, {{sum, a}, "gold"}};
  const std::string dot = export_dot(graph, style);
  EXPECT_NE(node_line(dot, minus).find("style=filled fillcolor=\"lightblue\""), std::string::npos) << dot;
  EXPECT_NE(node_line(dot, sum).find("style=filled fillcolor=\"gold\""), std::string::npos) << dot;
  EXPECT_NE(node_line(dot, a).find("style=filled fillcolor=\"gold\""), std::string::npos) << dot;
  EXPECT_EQ(count(dot, "fillcolor="), 3u) << "only highlighted nodes are filled";
}

TEST(Serialize, DotDrawsEveryClassAsAClusterRootsBold) {
  EGraph graph;
  const Id root = small_graph(graph);
  DotStyle style;
  style.roots = {root};
  style.title = "x - (a + b)";
  const std::string dot = export_dot(graph, style);
  EXPECT_EQ(count(dot, "  subgraph cluster_"), graph.num_classes());
  for (Id cls : graph.classes()) {
    const std::size_t at = dot.find("  subgraph cluster_" + std::to_string(cls) + " {\n");
    ASSERT_NE(at, std::string::npos) << cls;
    const std::string body = dot.substr(at, dot.find("  }\n", at) - at);
    EXPECT_NE(body.find("label=\"c" + std::to_string(cls) + "\""), std::string::npos) << body;
    EXPECT_NE(body.find(cls == graph.find(root) ? "style=bold" : "style=dotted"), std::string::npos) << body;
    for (Id node : graph.class_nodes(cls)) EXPECT_NE(body.find("    n" + std::to_string(node) + " ["), std::string::npos);
  }
  EXPECT_EQ(count(dot, "style=bold"), 1u);
  EXPECT_NE(dot.find("  label=\"x - (a + b)\"\n"), std::string::npos) << dot;
  // Every child edge ends at its class's cluster; the cycle x = (* x 1) stays unclipped.
  const Id x = graph.find(add_term(graph, "x"));
  const Id times = *graph.lookup_node(graph.symbols().intern("*"), 0, std::vector<Id>{x, graph.find(add_term(graph, "1"))});
  EXPECT_NE(dot.find("  n" + std::to_string(times) + " -> n" + std::to_string(graph.class_nodes(x).front()) + "\n"),
            std::string::npos) << dot;
  EXPECT_EQ(count(dot, "[lhead=cluster_"), 7u) << dot;  // 2 per + node, 2 of -, 1 of * (its loop to x is not clipped)
}

// Eight equal leaves: a row of six, and two below (one invisible edge each).
TEST(Serialize, DotStacksTheNodesOfALargeClassInRows) {
  EGraph graph;
  const Id first = add_term(graph, "l0");
  for (int i = 1; i < 8; ++i) graph.unite(first, add_term(graph, "l" + std::to_string(i)));
  graph.rebuild();
  const std::string dot = export_dot(graph);
  EXPECT_EQ(count(dot, " [style=invis]\n"), 2u) << dot;
}

TEST(Serialize, DotEscapesLabels) {
  EGraph graph;
  add_term(graph, "a");
  graph.rebuild();
  DotStyle style;
  style.label = [](const EGraph&, Id) { return std::string("q\"b\\s\nline <tag> \x01 \xff ok \xc3\xa9"); };
  style.title = "\\N \"t\"";
  const std::string dot = export_dot(graph, style);
  EXPECT_NE(dot.find(R"([label="q\"b\\s\nline <tag> ? ? ok )" "\xc3\xa9" R"("])"), std::string::npos) << dot;
  EXPECT_NE(dot.find(R"(label="\\N \"t\"")"), std::string::npos) << dot;
}

// Graphviz itself reads what export_dot writes, without a warning.
TEST(Serialize, DotIsAcceptedByGraphviz) {
  // graphviz is a dependency (scripts/bootstrap installs it): its absence is a failure.
  ASSERT_EQ(std::system("command -v dot >/dev/null 2>&1"), 0) << "graphviz is a dependency (scripts/bootstrap installs it)";
  EGraph graph;
  const Id root = small_graph(graph);
  DotStyle style;
  style.label = [](const EGraph& g, Id node) {
    return "<" + std::string(g.symbols().name(g.node(node).op)) + "> \"\\\"\n#" + std::to_string(node);
  };
  style.highlights = {{{graph.class_nodes(root).front()}, "gold"}};
  style.roots = {root};
  style.title = "a title";
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("smelt_dot_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "g.dot") << export_dot(graph, style);
  const std::string command = "dot -Tsvg '" + (dir / "g.dot").string() + "' -o '" + (dir / "g.svg").string() +
                              "' 2>'" + (dir / "err").string() + "'";
  const int status = std::system(command.c_str());
  const std::string svg = read_file(dir / "g.svg"), errors = read_file(dir / "err");
  std::filesystem::remove_all(dir);
  EXPECT_EQ(status, 0) << errors;
  EXPECT_EQ(errors, "");
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("&lt;+&gt; &quot;\\&quot;"), std::string::npos) << svg;
  EXPECT_NE(svg.find("a title"), std::string::npos);
}

TEST(Json, ParsesValuesAndEscapes) {
  const JsonValue value = parse_json(R"({"s": "a\"b\u00e9\ud83d\ude00", "n": -1.5e2, "t": true, "z": null, "a": [1, 2]})");
  EXPECT_EQ(value.find("s")->string, "a\"b\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_EQ(value.find("n")->number, -150);
  EXPECT_TRUE(value.find("t")->boolean);
  EXPECT_EQ(value.find("z")->kind, JsonValue::Kind::kNull);
  EXPECT_EQ(value.find("a")->array.size(), 2u);
  EXPECT_EQ(value.find("missing"), nullptr);
  std::string out;
  append_json_string(out, "q\"\\\n\x01");
  EXPECT_EQ(out, "\"q\\\"\\\\\\n\\u0001\"");
}

}  // namespace
}  // namespace smelt::egraph
