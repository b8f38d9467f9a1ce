#pragma once
// Helpers of the fusion tests: the example graphs (real or scaled down), and
// comparing a kernel program's outputs with the reference interpreter's.
#include <cstdint>
#include <string>
#include <vector>

#include "cost/device_profile.h"
#include "ir/graph.h"
#include "ir/host_tensor.h"
#include "kernel/kernel.h"
#include "rules/compiled_rule.h"

namespace smelt::fusion_testing {

// examples/NAME.sg, parsed.
ir::Graph example(const std::string& name);
// tests/fusion/graphs/NAME.sg, parsed: graphs the tests need beyond the examples.
ir::Graph test_graph(const std::string& name);
// The names of every examples/*.sg, sorted.
std::vector<std::string> example_names();
// Every shipped host profile (cost::shipped_profiles: cost/profiles/host*.json,
// host.json first): decisions a test checks must hold on every CPU a profile
// ships for.
std::vector<cost::ShippedProfile> shipped_host_profiles();

// The examples whose gemms make the element-by-element interpreters slow
// (seconds to minutes): for running them, a copy with the same structure and
// smaller extents is used (scaled_example).
bool is_large_example(const std::string& name);
// The example with its extents replaced consistently (e.g. mlir_dot_slice with
// M=4, K=8, N=6), so that both interpreters run it in milliseconds; other
// examples unchanged.
ir::Graph scaled_example(const std::string& name);

std::vector<ir::HostTensor> random_inputs(const ir::Graph& g, uint64_t seed);

// Runs the program on random inputs and compares it with the reference
// interpreter (ir::compare_outputs, with the interpreter's error scales).
std::string check_program(const ir::Graph& g, const kernel::KernelProgram& program, uint64_t seed);

// Kernels, nodes of op `op` in all kernels.
int count_ops(const kernel::KernelProgram& program, ir::Op op);

// The shipped rules, compiled once per test process.
const std::vector<rules::CompiledRule>& default_compiled();

}  // namespace smelt::fusion_testing
