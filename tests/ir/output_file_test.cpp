// error/output_file.h: a file is written whole or not at all, and no
// temporary is left beside it either way.
#include "error/output_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace smelt {
namespace {

namespace fs = std::filesystem;

class OutputFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("smelt_output_file_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  static std::string read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
  }
  // The names in the folder: only what the test expects, no temporary.
  size_t entries() const { return static_cast<size_t>(std::distance(fs::directory_iterator(dir_), {})); }
  fs::path dir_;
};

TEST_F(OutputFile, WritesTheBytesAndReplacesAnOldFileWhole) {
  const fs::path path = dir_ / "out.bin";
  const std::string bytes("a\0b\nc", 5);
  EXPECT_EQ(write_output_file(path.string(), bytes), "");
  EXPECT_EQ(read(path), bytes);
  EXPECT_EQ(write_output_file(path.string(), "second"), "");
  EXPECT_EQ(read(path), "second");
  EXPECT_EQ(write_output_file(path.string(), ""), "");
  EXPECT_EQ(fs::file_size(path), 0u);
  EXPECT_EQ(entries(), 1u);
}

TEST_F(OutputFile, AMissingFolderOrAFolderInTheWayIsAnErrorThatLeavesNothing) {
  const fs::path nowhere = dir_ / "missing" / "out.bin";
  const std::string problem = write_output_file(nowhere.string(), "x");
  EXPECT_EQ(problem.rfind(nowhere.string() + ": cannot write: ", 0), 0u) << problem;
  EXPECT_FALSE(fs::exists(dir_ / "missing"));

  const fs::path folder = dir_ / "a_folder";
  fs::create_directories(folder / "inside");
  const std::string in_the_way = write_output_file(folder.string(), "x");
  EXPECT_EQ(in_the_way.rfind(folder.string() + ": cannot write: ", 0), 0u) << in_the_way;
  EXPECT_TRUE(fs::is_directory(folder / "inside"));
  EXPECT_EQ(entries(), 1u);  // the folder, no temporary beside it
}

}  // namespace
}  // namespace smelt
