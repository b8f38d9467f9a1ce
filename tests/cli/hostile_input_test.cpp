// Hostile input files and graphs too large for the machine, run as a user
// would: each is exit 1 with a clear message and nothing on stdout, before
// anything large is read or allocated.
#include <filesystem>
#include <string>

#include "tests/support/smelt_cli_fixture.h"

namespace {

namespace fs = std::filesystem;
using smelt::smelt_testing::CliResult;

class HostileInputTest : public smelt::smelt_testing::SmeltCliTest {
 protected:
  void expect_bad_input(const CliResult& r, const std::string& message, const std::string& what) {
    EXPECT_EQ(r.exit_code, 1) << what << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << what << ": " << r.out;
    EXPECT_NE(r.err.find(message), std::string::npos) << what << ": " << r.err;
  }
};

// 2^50 f32 elements: 8 PiB as host tensors, above the limit on any machine.
const std::string kHugeInput =
    "x = input() : f32[1125899906842624]\n"
    "y = exp(x)\n"
    "output y\n";

TEST_F(HostileInputTest, DirectoryOrDeviceIsRefusedBeforeReading) {
  expect_bad_input(smelt("check " + dir_.string()), dir_.string() + ":1:1: is a directory, not a file", "a folder");
  expect_bad_input(smelt("check /dev/zero"), "/dev/zero:1:1: is not a regular file", "/dev/zero");
  expect_bad_input(smelt("run /dev/zero --target reference"), "/dev/zero:1:1: is not a regular file", "run");
}

TEST_F(HostileInputTest, EveryInputFileGoesThroughTheBoundedReader) {
  const fs::path g = write("g.sg", "x = input() : f32[2]\ny = exp(x)\noutput y\n");
  fs::create_directories(dir_ / "inputs" / "x.npy");  // where an input's .npy file should be
  expect_bad_input(smelt("run " + g.string() + " --inputs " + (dir_ / "inputs").string()),
                   (dir_ / "inputs" / "x.npy").string() + ": is a directory, not a file (input x)", ".npy");
  expect_bad_input(smelt("compile " + g.string() + " --profile /dev/zero"), "/dev/zero: is not a regular file",
                   "profile");
  expect_bad_input(smelt("verify-rules --rules /dev/zero"), "/dev/zero:1:1: is not a regular file", "rules");
}

TEST_F(HostileInputTest, FileAboveTheMemoryLimitIsRefusedBeforeReading) {
  const fs::path g = write("g.sg", "x = input() : f32[2]\noutput x\n");
  EXPECT_EQ(smelt("check " + g.string()).exit_code, 0);
  const CliResult r = smelt("check --memory-limit 16 " + g.string());
  expect_bad_input(r, g.string() + ":1:1: reading the file needs 30 B", "check");
  EXPECT_NE(r.err.find("more than the memory limit of 16 B"), std::string::npos) << r.err;
}

TEST_F(HostileInputTest, TensorsAboveTheMemoryLimitAreAnErrorNotBadAlloc) {
  const fs::path huge = write("huge.sg", kHugeInput);
  EXPECT_EQ(smelt("check " + huge.string()).exit_code, 0);  // checking allocates nothing
  for (const char* command : {"run --target reference ", "run ", "run --check "})
    expect_bad_input(smelt(command + huge.string()), "needs 8.0 PiB, more than the memory limit of", command);
  // Without inputs the graph compiles; its buffers are refused before they are allocated.
  const fs::path no_inputs = write("no_inputs.sg",
                                   "x = full(value=1) : f32[1125899906842624]\n"
                                   "y = exp(x)\n"
                                   "output y\n");
  expect_bad_input(smelt("run " + no_inputs.string()), "allocating the program's", "compiled");
  expect_bad_input(smelt("run --target reference " + no_inputs.string()), "the reference interpreter, at node 0",
                   "reference");
}

TEST_F(HostileInputTest, MemoryLimitFlagSetsTheLimit) {
  // 100,000 f32: 400 KB of buffers compiled, 800 KB per value in the interpreter.
  const fs::path g = write("g.sg",
                           "x = full(value=1) : f32[100000]\n"
                           "y = exp(x)\n"
                           "output y\n");
  for (const char* target : {"host", "reference"}) {
    const std::string run = std::string("run --target ") + target + " " + g.string();
    EXPECT_EQ(smelt(run).exit_code, 0) << run;
    EXPECT_EQ(smelt(run + " --memory-limit 1G").exit_code, 0) << run;
    expect_bad_input(smelt(run + " --memory-limit 100K"), "more than the memory limit of 100.0 KiB (--memory-limit",
                     run);
  }
  const CliResult bogus = smelt("run " + g.string() + " --memory-limit lots");
  EXPECT_EQ(bogus.exit_code, 2);
  EXPECT_NE(bogus.err.find("not a byte count"), std::string::npos) << bogus.err;
  EXPECT_NE(smelt("run --help").out.find("--memory-limit"), std::string::npos);
}

TEST_F(HostileInputTest, IntegerLiteralBeyond2To53IsRejectedNotRounded) {
  // A double would read 2^53 + 1 as 2^53, so c - d would print 0 instead of 1.
  const fs::path g = write("i64.sg",
                           "c = constant(value=9007199254740993) : i64[]\n"
                           "d = constant(value=9007199254740992) : i64[]\n"
                           "e = sub(c, d)\n"
                           "output e\n");
  expect_bad_input(smelt("check " + g.string()), g.string() + ":1:20: integer '9007199254740993' out of range",
                   "check");
}

}  // namespace
