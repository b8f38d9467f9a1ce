#include <gtest/gtest.h>

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
    const ImportResult result = import_json(graph, read_file(entry.path()), entry.path().filename().string());
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
  const ImportResult result = import_json(graph, read_file(path), "vgg.json");
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
  const ImportResult result = import_json(copy, json, "exported");
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
  const ImportResult result = import_json(again, json);
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
