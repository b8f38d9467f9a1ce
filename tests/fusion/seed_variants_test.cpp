// The seed cases' variants (tests/fusion/graphs/variants, written by
// bench/fusion/seed_variants.py: 3-D, uneven, unaligned and reshaped
// dot-slices, 3 to 10 towers, permutes around transcendental chains): each
// compiles for the host to a program that matches the reference interpreter
// and is predicted no costlier than one kernel per op, its search finished.
// Whether the pick is also the fastest measured is the benchmark's to say
// (bench/fusion/pick_vs_measured), not a unit test's.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "ir/interpreter.h"
#include "smelt/smelt.h"
#include "tests/fusion/fusion_test_util.h"

namespace smelt::fusion_testing {
namespace {

std::vector<std::string> variant_names() {
  std::vector<std::string> names;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::filesystem::path(SMELT_SOURCE_DIR) / "tests/fusion/graphs/variants"))
    if (entry.path().extension() == ".sg") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

// One test over every variant, not one per variant: its time is mostly LLVM's
// JIT (not instrumented), so the ASan run leaves it out as one name
// (scripts/asan_excluded_tests); the fusion it reaches runs sanitized in the
// examples' tests.
TEST(SeedVariants, EachCompilesToAProgramThatMatchesTheReferenceAndCostsNoMoreThanUnfused) {
  const std::vector<std::string> names = variant_names();
  ASSERT_FALSE(names.empty());
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    const ir::Graph g = test_graph("variants/" + name);
    smelt::CompileOptions options;
    options.threads = 1;
    smelt::Program program = smelt::compile(g, options);
    const smelt::FusionResult& r = program.fusion();
    EXPECT_TRUE(r.search_finished) << r.extraction_stop;
    EXPECT_LE(r.kernels_after, r.kernels_before);
    EXPECT_LE(r.predicted_us_after, r.predicted_us_before);
    const std::vector<ir::HostTensor> inputs = random_inputs(g, 5);
    EXPECT_EQ(ir::compare_outputs(ir::interpret_with_error_scales(g, inputs), program.run(inputs)), "");
  }
}

TEST(SeedVariants, EveryFamilyIsThere) {
  const std::vector<std::string> names = variant_names();
  auto count = [&](const std::string& prefix) {
    return std::count_if(names.begin(), names.end(), [&](const std::string& n) { return n.rfind(prefix, 0) == 0; });
  };
  EXPECT_GE(count("ds_"), 8) << "dot-slice variants";
  EXPECT_GE(count("towers_"), 6) << "tower variants";
  EXPECT_GE(count("perm_"), 5) << "permute variants";
}

}  // namespace
}  // namespace smelt::fusion_testing
