// The on-disk cache of compiled host objects (lower/host_object_cache.h): a
// second compile of a program loads its object, and whatever is in the folder,
// a damaged file or one the cache cannot write, the program computes the
// reference's outputs.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "fusion/kernelize.h"
#include "ir/builder.h"
#include "ir/interpreter.h"
#include "ir/tensor_compare.h"
#include "lower/host_object_cache.h"
#include "smelt/smelt.h"
#include "tests/lower/jit_runner.h"
#include "tests/support/scoped_env.h"

namespace smelt {
namespace {

namespace fs = std::filesystem;
using ir::DType;

// exp calls libm (or libmvec) from the object: a cached object's relocations
// to this process's symbols are resolved again when it is loaded.
ir::Graph matmul_exp(int64_t n) {
  ir::Graph g("matmul_exp");
  auto a = ir::input(g, "a", DType::F32, {33, 48});
  auto b = ir::input(g, "b", DType::F32, {48, n});
  g.add_output(ir::exp(ir::matmul(a, b)) + ir::broadcast(ir::reduce_sum(a, {1}, true), {33, n}));
  return g;
}

void expect_compiled_matches_reference(const ir::Graph& g, uint64_t seed) {
  const kernel::KernelProgram p = fusion::kernelize_program(g, std::vector<bool>(g.size(), false));
  const std::vector<ir::HostTensor> inputs = smelt::random_inputs(g, seed);
  EXPECT_EQ(ir::compare_outputs(ir::interpret_with_error_scales(g, inputs), testing::run_on_host_jit(p, inputs)), "");
}

class HostObjectCache : public ::testing::Test {
 protected:
  fs::path folder_ = fs::temp_directory_path() / ("smelt_object_cache_" + std::to_string(::getpid()));
  void SetUp() override { fs::remove_all(folder_); }
  void TearDown() override { fs::remove_all(folder_); }
  std::vector<fs::path> files() const {
    std::vector<fs::path> out;
    if (fs::exists(folder_))
      for (const fs::directory_entry& e : fs::directory_iterator(folder_)) out.push_back(e.path());
    return out;
  }
};

TEST_F(HostObjectCache, ASecondCompileLoadsTheObjectTheFirstStored) {
  const smelt_testing::ScopedEnv cache("SMELT_OBJECT_CACHE", folder_.string());
  const lower::HostObjectCacheCounts before = lower::host_object_cache_counts();
  expect_compiled_matches_reference(matmul_exp(33), 1);
  const lower::HostObjectCacheCounts first = lower::host_object_cache_counts();
  EXPECT_EQ(first.stores, before.stores + 1);
  EXPECT_EQ(first.hits, before.hits);
  ASSERT_EQ(files().size(), 1u);
  expect_compiled_matches_reference(matmul_exp(33), 2);
  const lower::HostObjectCacheCounts second = lower::host_object_cache_counts();
  EXPECT_EQ(second.hits, first.hits + 1);
  EXPECT_EQ(second.stores, first.stores);
  // Another program (another column count) is another key.
  expect_compiled_matches_reference(matmul_exp(34), 3);
  EXPECT_EQ(lower::host_object_cache_counts().hits, second.hits);
  EXPECT_EQ(files().size(), 2u);
}

TEST_F(HostObjectCache, ADamagedOrTruncatedFileIsCompiledAgainAndReplaced) {
  const smelt_testing::ScopedEnv cache("SMELT_OBJECT_CACHE", folder_.string());
  expect_compiled_matches_reference(matmul_exp(17), 1);
  ASSERT_EQ(files().size(), 1u);
  const fs::path file = files()[0];
  const uintmax_t size = fs::file_size(file);
  for (const bool truncate : {false, true}) {
    if (truncate) {
      fs::resize_file(file, size / 2);
    } else {
      std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(static_cast<std::streamoff>(size - 100));
      f.put('\x5a');
    }
    const lower::HostObjectCacheCounts before = lower::host_object_cache_counts();
    expect_compiled_matches_reference(matmul_exp(17), 2);
    const lower::HostObjectCacheCounts after = lower::host_object_cache_counts();
    EXPECT_EQ(after.hits, before.hits) << (truncate ? "truncated" : "damaged");
    EXPECT_EQ(after.stores, before.stores + 1) << (truncate ? "truncated" : "damaged");
    EXPECT_EQ(fs::file_size(file), size);
  }
}

TEST_F(HostObjectCache, AFolderThatCannotBeWrittenIsNoCache) {
  // A regular file where the folder should be: nothing can be stored.
  std::ofstream(folder_.string()) << "not a folder";
  const smelt_testing::ScopedEnv cache("SMELT_OBJECT_CACHE", folder_.string());
  const lower::HostObjectCacheCounts before = lower::host_object_cache_counts();
  expect_compiled_matches_reference(matmul_exp(9), 1);
  expect_compiled_matches_reference(matmul_exp(9), 2);
  EXPECT_EQ(lower::host_object_cache_counts().stores, before.stores);
  EXPECT_EQ(lower::host_object_cache_counts().hits, before.hits);
}

}  // namespace
}  // namespace smelt
