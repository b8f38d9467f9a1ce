#pragma once
// Deliberate bugs in a kernel program, the kind a compiler makes: a constant
// off by 1 %, an activation's slope off by 5 %, an index off by one, a wrong
// mask, a dropped term of a sum. They test the checks, not the compiler: a
// mutated program run with `smelt run --check --mutate NAME` must be reported
// as wrong wherever the bug changes an output (scripts/mutation_check runs
// every mutation on every example; tests/lower/mutation_test.cpp does it in CI).
#include <string>
#include <string_view>
#include <vector>

#include "kernel/kernel.h"

namespace smelt::kernel {

struct Mutation {
  std::string_view name;
  std::string_view what;  // one line, for --help and reports
};

// Every mutation, in a fixed order.
const std::vector<Mutation>& mutations();

// Applies mutation `name` at its site nearest the program's end (the last
// kernel that has one, its last site there) and returns a line saying where
// ("kernel 3 'fused_7': sigmoid operand x 1.05"); "" when the program has no
// such site. Throws std::invalid_argument for an unknown name.
std::string mutate(KernelProgram& program, std::string_view name);

}  // namespace smelt::kernel
