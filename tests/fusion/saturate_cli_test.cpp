// `smelt saturate`, run as a user would: the table and stop reason, the JSON
// object, --explain naming the rules that matter, --serialize read back by
// `smelt extract` with the same DAG cost, limits, and clear errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/smelt_cli_fixture.h"

namespace {

using Result = smelt::smelt_testing::CliResult;

class SaturateCli : public smelt::smelt_testing::SmeltCliTest {
 protected:
  static std::string example(const std::string& name) { return SmeltCliTest::example(name + ".sg"); }
  // A frozen measurement (FusionExamples' seed profile): what the rules reach,
  // priced alike on every machine and after every recalibration of the
  // shipped profiles (the 2026-11-30 one on the AMD EPYC prices the towers'
  // batched gemms no faster than separate ones, and it measured so).
  static std::string frozen_profile() {
    return std::string(" --profile '") + SMELT_SOURCE_DIR + "/tests/fusion/data/seed_profile.json'";
  }
};

TEST_F(SaturateCli, PrintsATablePerIterationAndTheStopReason) {
  const Result r = smelt("saturate " + example("mlir_dot_slice") + " --threads 2" + frozen_profile());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("e-nodes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("stopped: saturated after"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("split-matmul"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("never matched:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("picked (fusion extraction): 2 kernels"), std::string::npos) << r.out;
}

TEST_F(SaturateCli, JsonHasIterationsRulesAndThePick) {
  const Result r = smelt("saturate " + example("migraphx_mlp_towers") + " --json --threads 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["stop_reason"], "saturated");
  ASSERT_FALSE(j["iterations"].empty());
  EXPECT_EQ(j["iterations"].back()["nodes"], j["egraph_nodes"]);
  size_t applied = 0;
  for (const auto& rule : j["rules"]) applied += rule["applied"].get<size_t>();
  size_t per_iteration = 0;
  for (const auto& it : j["iterations"]) per_iteration += it["applied"].get<size_t>();
  EXPECT_EQ(applied, per_iteration);
  EXPECT_FALSE(j["never_matched"].empty());
  EXPECT_GT(j["picked"]["predicted_us"].get<double>(), 0);
  EXPECT_LE(j["picked"]["predicted_us"].get<double>(), j["picked"]["input_predicted_us"].get<double>());
}

TEST_F(SaturateCli, ExplainNamesTheGemmSplitAndTheBatchingRules) {
  const std::string reference = frozen_profile();
  const Result split = smelt("saturate " + example("mlir_dot_slice") + " --explain --threads 2" + reference);
  ASSERT_EQ(split.exit_code, 0) << split.err;
  const std::string why = split.out.substr(split.out.find("why the picked term"));
  EXPECT_NE(why.find("=> split-matmul"), std::string::npos) << why;
  const Result towers = smelt("saturate " + example("migraphx_mlp_towers") + " --explain --threads 2" + reference);
  ASSERT_EQ(towers.exit_code, 0) << towers.err;
  EXPECT_NE(towers.out.find("=> batch-matmuls"), std::string::npos) << towers.out;
}

TEST_F(SaturateCli, SerializedEGraphExtractsToTheSameDagCost) {
  const std::string file = (dir_ / "swiglu.json").string();
  const Result r = smelt("saturate " + example("llama_mlp_swiglu") + " --json --serialize '" + file + "'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const Result e = smelt("extract '" + file + "' --extractor greedy-dag");
  ASSERT_EQ(e.exit_code, 0) << e.err;
  const nlohmann::json extracted = nlohmann::json::parse(e.out);
  EXPECT_DOUBLE_EQ(extracted["dag"].get<double>(), j["serialized"]["dag_cost"].get<double>());
  EXPECT_EQ(j["serialized"]["nodes"], j["egraph_nodes"]);
}

TEST_F(SaturateCli, DrawsTheEGraphWithBothTerms) {
  const std::string dot = (dir_ / "g.dot").string();
  const Result r = smelt("saturate " + example("mlir_dot_slice") + " --threads 2 --dot '" + dot + "' --profile '" +
                         SMELT_SOURCE_DIR + "/cost/profiles/host.json'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = smelt::smelt_testing::read_text_file(dot);
  EXPECT_NE(text.find("subgraph cluster_"), std::string::npos);
  EXPECT_NE(text.find("lightblue"), std::string::npos);
  EXPECT_NE(text.find("gold"), std::string::npos);
  EXPECT_NE(text.find("matmul"), std::string::npos);
  const Result missing = smelt("saturate " + example("mlir_dot_slice") + " --dot '" + (dir_ / "no/g.dot").string() + "'");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_TRUE(missing.out.empty());
}

TEST_F(SaturateCli, LimitsStopTheRunAndSaySo) {
  const Result r = smelt("saturate " + example("migraphx_mlp_towers") + " --iterations 1 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["stop_reason"], "iteration limit");
  const Result nodes = smelt("saturate " + example("migraphx_mlp_towers") + " --nodes 50 --json");
  ASSERT_EQ(nodes.exit_code, 0) << nodes.err;
  EXPECT_EQ(nlohmann::json::parse(nodes.out)["stop_reason"], "node limit");
}

TEST_F(SaturateCli, RuleFilesReplaceTheDefaultRulesAndBadOnesAreErrors) {
  const std::filesystem::path rules = write("mine.rules", "(family mine)\n(rule neg-neg-mine\n"
                                                          "  :lhs (neg (neg ?x)) :rhs ?x)\n");
  const std::filesystem::path graph = write("g.sg", "graph g\nx = input() : f32[4]\na = neg(x)\nb = neg(a)\noutput b\n");
  const Result r = smelt("saturate '" + graph.string() + "' --rules '" + rules.string() + "' --json --explain");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["rules"].size(), 1u);
  EXPECT_EQ(j["rules"][0]["name"], "neg-neg-mine");
  EXPECT_EQ(j["rules"][0]["unions"], 1);
  const std::filesystem::path bad = write("bad.rules", "(rule broken :lhs (neg");
  const Result e = smelt("saturate '" + graph.string() + "' --rules '" + bad.string() + "'");
  EXPECT_EQ(e.exit_code, 1);
  EXPECT_TRUE(e.out.empty());
  EXPECT_NE(e.err.find("bad.rules:"), std::string::npos) << e.err;
  EXPECT_EQ(smelt("saturate '" + graph.string() + "' --scheduler fastest").exit_code, 2);
  EXPECT_EQ(smelt("saturate '" + (dir_ / "missing.sg").string() + "'").exit_code, 1);
}

}  // namespace
