// The memory limit and the bounded input-file reader: a tensor, an interpreted
// graph or a file too large for the limit is a clear error before anything is
// allocated or read, never std::bad_alloc.
#include "error/memory_limit.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "ir/builder.h"
#include "ir/host_tensor.h"
#include "error/input_file.h"
#include "ir/interpreter.h"
#include "ir/text_format.h"
#include "tests/support/scoped_memory_limit.h"

namespace smelt::ir {
namespace {

using smelt::smelt_testing::ScopedMemoryLimit;
using smelt::smelt_testing::ScopedWorkLimit;

constexpr int64_t kHuge = int64_t{1} << 50;  // 8 PiB as a host tensor: above any machine's limit

TEST(MemoryLimit, ByteCountsParseWithBinaryUnits) {
  EXPECT_EQ(parse_byte_count("1000000"), 1000000u);
  EXPECT_EQ(parse_byte_count("512MiB"), uint64_t{512} << 20);
  EXPECT_EQ(parse_byte_count("8 GiB"), uint64_t{8} << 30);
  EXPECT_EQ(parse_byte_count("8g"), uint64_t{8} << 30);
  EXPECT_EQ(parse_byte_count("1.5G"), uint64_t{3} << 29);
  EXPECT_EQ(parse_byte_count("2TB"), uint64_t{2} << 40);
  for (const char* bad : {"", "G", "0", "-1G", "1 PB", "8 gigs", "1e9", "0.1"})
    EXPECT_FALSE(parse_byte_count(bad)) << bad;
}

TEST(MemoryLimit, BytesAreFormattedInBinaryUnits) {
  EXPECT_EQ(format_bytes(100), "100 B");
  EXPECT_EQ(format_bytes(uint64_t{3} << 29), "1.5 GiB");
  EXPECT_EQ(format_bytes(uint64_t{512} << 20), "512.0 MiB");
}

TEST(MemoryLimit, HostTensorBytesSaturateAndCountEmptyTensorsAsNothing) {
  EXPECT_EQ(host_tensor_bytes({DType::F32, {1000, 3}}), 24000u);
  EXPECT_EQ(host_tensor_bytes({DType::Bool, {}}), 8u);
  EXPECT_EQ(host_tensor_bytes({DType::F32, {kHuge, kHuge, 0}}), 0u);
  EXPECT_EQ(host_tensor_bytes({DType::F32, {kHuge, kHuge}}), UINT64_MAX);
  EXPECT_EQ(add_bytes(UINT64_MAX - 1, 5), UINT64_MAX);
}

TEST(MemoryLimit, DefaultIsAFractionOfPhysicalMemory) {
  EXPECT_GT(default_memory_limit(), uint64_t{64} << 20);
  EXPECT_EQ(memory_limit(), default_memory_limit());
  {
    ScopedMemoryLimit limit(12345);
    EXPECT_EQ(memory_limit(), 12345u);
  }
  EXPECT_EQ(memory_limit(), default_memory_limit());
}

TEST(MemoryLimit, HostTensorAboveTheLimitIsRefusedBeforeAllocating) {
  try {
    HostTensor::zeros({DType::F32, {kHuge}});
    FAIL() << "expected a MemoryLimitError";
  } catch (const MemoryLimitError& e) {
    EXPECT_EQ(e.needed_bytes(), static_cast<uint64_t>(kHuge) * 8);
    EXPECT_EQ(e.limit_bytes(), memory_limit());
    EXPECT_NE(std::string(e.what()).find("f32[1125899906842624]"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("more than the memory limit of"), std::string::npos) << e.what();
  }
}

TEST(MemoryLimit, InterpreterRefusesANodeAboveTheLimit) {
  ScopedWorkLimit work(UINT64_MAX);  // 3 * 2^50 visits: the work limit would refuse first
  Graph g;
  Tensor x = full(g, {kHuge}, 1.0, DType::F32);
  g.add_output(exp(x));
  try {
    interpret(g, {});
    FAIL() << "expected a MemoryLimitError";
  } catch (const MemoryLimitError& e) {
    EXPECT_NE(std::string(e.what()).find("the reference interpreter, at node 0 (full f32[1125899906842624]"),
              std::string::npos)
        << e.what();
  }
}

TEST(MemoryLimit, InterpreterCountsTheValuesLiveAtOnce) {
  // Each value is 8 KiB as a host tensor; x, e and s are live together at the
  // sin (24 KiB; x is released after it), so a 20 KiB limit stops there and a
  // 32 KiB one does not.
  Graph g;
  Tensor x = input(g, "x", DType::F32, {1024});
  Tensor e = exp(x);
  Tensor s = sin(x);
  g.add_output(e + s);
  const HostTensor in = HostTensor::zeros({DType::F32, {1024}});
  {
    ScopedMemoryLimit limit(32 << 10);
    EXPECT_EQ(interpret(g, {in}).size(), 1u);
  }
  ScopedMemoryLimit limit(20 << 10);
  try {
    interpret(g, {in});
    FAIL() << "expected a MemoryLimitError";
  } catch (const MemoryLimitError& error) {
    EXPECT_EQ(error.needed_bytes(), 24u << 10);
    EXPECT_NE(std::string(error.what()).find("at node 2 (sin f32[1024]"), std::string::npos) << error.what();
  }
}

TEST(WorkLimit, VisitCountsParse) {
  EXPECT_EQ(parse_visit_count("1000000"), 1000000u);
  EXPECT_EQ(parse_visit_count("1e12"), 1000000000000u);
  EXPECT_EQ(parse_visit_count(" 2.5e3 "), 2500u);
  for (const char* bad : {"", "0", "-5", "1G", "lots", "1e30", "0.5"}) EXPECT_FALSE(parse_visit_count(bad)) << bad;
  EXPECT_EQ(work_limit(), kDefaultWorkLimit);
  EXPECT_EQ(mul_counts(uint64_t{1} << 40, uint64_t{1} << 40), UINT64_MAX);
}

TEST(WorkLimit, InterpreterWorkCountsElementsReadAndWrittenAndProducts) {
  const Graph g = parse_graph(
      "a = input() : f32[4,8]\n"             // 32
      "b = input() : f32[8,3]\n"             // 24
      "m = matmul(a, b) : f32[4,3]\n"        // 12 written + 32 + 24 read + 12 x 8 products
      "s = reduce_sum(m, axes=[1]) : f32[4]\n"  // 4 + 12
      "output s\n");
  const uint64_t want = 32 + 24 + (12 + 32 + 24 + 96) + (4 + 12);
  EXPECT_EQ(interpreter_work(g, /*error_scales=*/false), want);
  EXPECT_EQ(interpreter_work(g, /*error_scales=*/true), 2 * want);
  const Graph huge = parse_graph("x = full(value=1) : f32[65536,65536,65536]\n"
                                 "y = reduce_sum(x, axes=[0,1,2]) : f32[]\noutput y\n");
  EXPECT_EQ(interpreter_work(huge, false), (uint64_t{1} << 49) + 1);
}

TEST(WorkLimit, InterpreterRefusesAGraphAboveTheLimitBeforeEvaluating) {
  const Graph g = parse_graph("x = input() : f32[100]\ny = exp(x)\noutput y\n");  // 100 + 200 visits
  const HostTensor in = HostTensor::zeros({DType::F32, {100}});
  {
    ScopedWorkLimit limit(300);
    EXPECT_EQ(interpret(g, {in}).size(), 1u);
  }
  ScopedWorkLimit limit(299);
  try {
    interpret(g, {in});
    FAIL() << "expected a WorkLimitError";
  } catch (const WorkLimitError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kWorkLimit);
    EXPECT_EQ(e.needed(), 300u);
    EXPECT_EQ(e.limit_amount(), 299u);
    EXPECT_NE(std::string(e.what()).find("needs 300 element visits, more than the work limit of 299 element visits"),
              std::string::npos)
        << e.what();
  }
  // With error scales, twice.
  EXPECT_THROW(interpret_with_error_scales(g, {in}), WorkLimitError);
}

// Both ways in: copied (read_input_file) and mapped (MappedInputFile, ONNX models).
const std::vector<std::pair<std::string, std::function<std::string(const std::string&, uint64_t)>>> kReaders{
    {"read_input_file", [](const std::string& path, uint64_t max_bytes) { return read_input_file(path, max_bytes); }},
    {"MappedInputFile",
     [](const std::string& path, uint64_t max_bytes) { return std::string(MappedInputFile(path, max_bytes).bytes()); }}};

TEST(InputFile, ReadsARegularFile) {
  const std::string path = ::testing::TempDir() + "/smelt_input_file_test.txt", empty = path + ".empty";
  std::ofstream(path) << "hello";
  std::ofstream{empty};
  for (const auto& [reader, read] : kReaders) {
    EXPECT_EQ(read(path, UINT64_MAX), "hello") << reader;
    EXPECT_EQ(read(empty, UINT64_MAX), "") << reader;
  }
  std::remove(path.c_str());
  std::remove(empty.c_str());
}

TEST(InputFile, DirectoriesDevicesAndMissingFilesAreRefusedBeforeReading) {
  const std::pair<std::string, std::string> cases[] = {
      {::testing::TempDir(), "is a directory, not a file"},
      {"/dev/zero", "is not a regular file"},
      {"/nonexistent/smelt/file", "cannot read file: No such file or directory"}};
  for (const auto& [reader, read] : kReaders)
    for (const auto& [path, message] : cases) {
      try {
        read(path, UINT64_MAX);
        FAIL() << reader << ": expected an InputFileError for " << path;
      } catch (const InputFileError& e) {
        EXPECT_EQ(std::string(e.what()), path + ": " + e.message());
        EXPECT_NE(e.message().find(message), std::string::npos) << reader << ": " << e.what();
      }
    }
}

TEST(InputFile, FileAboveTheMemoryLimitOrTheCallersBoundIsRefused) {
  const std::string path = ::testing::TempDir() + "/smelt_input_file_big.txt";
  std::ofstream(path) << std::string(4096, 'x');
  for (const auto& [reader, read] : kReaders) {
    try {
      read(path, 1000);
      FAIL() << reader << ": expected an InputFileError";
    } catch (const InputFileError& e) {
      EXPECT_NE(e.message().find("is 4.0 KiB; a file of this kind holds at most 1000 B"), std::string::npos)
          << reader << ": " << e.what();
    }
    ScopedMemoryLimit limit(1000);
    try {
      read(path, UINT64_MAX);
      FAIL() << reader << ": expected an InputFileError";
    } catch (const InputFileError& e) {
      EXPECT_NE(e.message().find("reading the file needs 4.0 KiB, more than the memory limit of 1000 B"),
                std::string::npos)
          << reader << ": " << e.what();
    }
  }
  std::remove(path.c_str());
}

}  // namespace
}  // namespace smelt::ir
