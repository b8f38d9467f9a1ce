// Hostile input files and graphs too large for the machine, run as a user
// would: each is exit 1 with a clear message and nothing on stdout, before
// anything large is read or allocated.
#include <cstdint>
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
  // A graph reducing 2^48 copies of `value` to a scalar with `op`.
  fs::path reduction_of_a_full(const std::string& name, const std::string& op, const std::string& value) {
    return write(name, "x = full(value=" + value + ") : f32[65536,65536,65536]\n" + "y = " + op +
                           "(x, axes=[0,1,2]) : f32[]\n" + "output y\n");
  }
  // Runs `g` and expects it to finish with output y's checksum `checksum`.
  void expect_runs_to(const fs::path& g, const std::string& checksum) {
    const CliResult r = smelt("run " + g.string());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("y: f32[] checksum=" + checksum + "\n"), std::string::npos) << r.out;
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
  // (3 * 2^50 element visits: past the work limit too, which is raised here)
  expect_bad_input(smelt("run --target reference --work-limit 1e18 " + no_inputs.string()),
                   "the reference interpreter, at node 0", "reference");
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

// A sum over 2^48 elements that nothing folds (sin of an iota): the compiled
// kernel and the reference interpreter would visit each of them. Every run is
// refused before it starts, naming the visits it needs; a small graph runs
// under a small limit and is refused under a smaller one.
TEST_F(HostileInputTest, RunAboveTheWorkLimitIsRefusedBeforeItStarts) {
  const fs::path g = write("sum.sg",
                           "x = iota(axis=0) : f32[65536,65536,65536]\n"
                           "s = sin(x)\n"
                           "y = reduce_sum(s, axes=[0,1,2]) : f32[]\n"
                           "output y\n");
  const uint64_t n = uint64_t{1} << 48;
  // One kernel: the sum's 2^48 iterations.
  expect_bad_input(smelt("run " + g.string()),
                   "running the program's 1 kernel (loop iterations) needs 2.81e+14 element visits (" +
                       std::to_string(n) + "), more than the work limit of 1e+12 element visits (1000000000000) "
                       "(--work-limit sets the limit)",
                   "compiled");
  // The interpreter: iota writes n, sin reads and writes n, the sum reads n and writes 1; twice with error scales.
  expect_bad_input(smelt("run --check " + g.string()),
                   "the reference interpreter, on graph <unnamed> (3 ops, with error scales), needs 2.25e+15 element "
                   "visits (" + std::to_string(2 * (4 * n + 1)) + ")",
                   "--check");
  expect_bad_input(smelt("run --target reference " + g.string()),
                   "(3 ops), needs 1.13e+15 element visits (" + std::to_string(4 * n + 1) + ")", "reference");
  // The limit is the user's: raised past the need, the refusal is not a work limit's.
  const fs::path small = write("small.sg", "x = input() : f32[1000]\ny = reduce_sum(x, axes=[0])\noutput y\n");
  for (const char* target : {"host", "reference"}) {
    const std::string run = "run --target " + std::string(target) + " " + small.string();
    EXPECT_EQ(smelt(run + " --work-limit 1e4").exit_code, 0) << run;
    expect_bad_input(smelt(run + " --work-limit 500"), "more than the work limit of 500 element visits (--work-limit",
                     run);
  }
  expect_bad_input(smelt("run --check --work-limit 3000 " + small.string()), "the reference interpreter", "--check");
  const CliResult bogus = smelt("run " + small.string() + " --work-limit lots");
  EXPECT_EQ(bogus.exit_code, 2);
  EXPECT_NE(bogus.err.find("not a count"), std::string::npos) << bogus.err;
  EXPECT_NE(smelt("run --help").out.find("--work-limit"), std::string::npos);
}

// A sum of 2^48 copies of 1.0 folds to the reference's 2^48 (exact in its
// double accumulator: rules/reductions.rules) and runs at once; 2^48 copies of
// 0.1f would round there, do not fold, and are refused by the work limit.
TEST_F(HostileInputTest, ASumOfAFullFoldsWhereTheReferenceSumIsExact) {
  expect_runs_to(reduction_of_a_full("ones.sg", "reduce_sum", "1"), "2.81474977e+14");
  expect_bad_input(smelt("run " + reduction_of_a_full("tenths.sg", "reduce_sum", "0.1").string()),
                   "more than the work limit of", "compiled");
}

// A maximum over 2^48 copies of one value folds (rules/reductions.rules): the
// compiled program runs no reduction and finishes at once. The reference
// interpreter does not fold, so --check is refused before anything runs.
TEST_F(HostileInputTest, MaxOfAFullFoldsAndItsCheckIsRefusedUpFront) {
  const fs::path g = reduction_of_a_full("max.sg", "reduce_max", "1");
  expect_runs_to(g, "1");
  expect_bad_input(smelt("run --check " + g.string()), "the reference interpreter, on graph <unnamed> (2 ops",
                   "--check");
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
