// The smelt binary of this build folder, for tests that run the CLI.
//
// A function, not a compile definition in every test target: the path differs
// between build/ and build-asan/, and a definition that differs changes every
// test source's compile command, so ccache compiled the ASan tree's test
// sources again instead of taking the Release build's objects (2026-11-29:
// five test targets, 100 s of scripts/test's 2-core build). Only
// smelt_binary.cpp carries the path.
#pragma once

namespace smelt::smelt_testing {

const char* smelt_binary();

}  // namespace smelt::smelt_testing

// The tests' spelling of it.
#define SMELT_BINARY ::smelt::smelt_testing::smelt_binary()
