#pragma once
// A rapidcheck generator of well-shaped random tensor graphs (smelt::ir::Graph).
//
// rapidcheck generates a *recipe* — a list of steps, each an op kind and a few
// raw choices — and build_graph() turns any recipe into a valid graph: the
// choices are read modulo the options that fit the current operand (its rank,
// extents, dtype), and an operand that does not fit is first cast, reshaped or
// replaced by a fresh input. Shrinking the recipe (fewer steps, choices toward
// 0, i.e. toward the first and simplest option) therefore always gives a valid,
// smaller graph.
//
// Coverage: every op — inputs, constants (scalar and literal), full, iota, all
// unary and binary elementwise ops, where, casts between all dtypes, reshape
// (with -1), permute, slice (negative steps, clamped and empty ranges), pad,
// broadcast (new axes, 1 → n, 1 → 0), concat (of itself, of a slice, of fresh
// operands), view chains, reductions (sum and max, any axes, keepdims both),
// matmul (2-D, batched, broadcast batch axes, A·Aᵀ) — over shapes of rank 0..4
// with extents 0..5, and multi-consumer values (an operand is any earlier
// value; x op x). Every value without a consumer is a graph output.
#include <cstdint>
#include <ostream>
#include <random>
#include <vector>

#include <rapidcheck.h>

#include "ir/graph.h"
#include "ir/host_tensor.h"

namespace smelt::fuzz {

enum class StepKind : uint8_t {
  kUnary, kBinary, kCompare, kWhere, kCast, kReshape, kPermute, kSlice, kPad, kBroadcast,
  kConcat, kReduce, kMatmul, kViewChain, kFactory, kInput,
  kOutput,  // the operand becomes a graph output too, whatever else reads it
  kChunk,   // PyTorch's chunk: reshape an axis into [parts, n / parts], take one part
  kConv,    // a convolution over the value's trailing axes (1 to 3 spatial)
  kGather,  // the value read at loaded indices along one axis (some negative, some out of range)
  kScatter,  // values written into the value at loaded indices (repeated, negative, out of range), combined or not
};
inline constexpr int kNumStepKinds = static_cast<int>(StepKind::kScatter) + 1;

struct GraphStep {
  StepKind kind = StepKind::kUnary;
  int operand = 0;           // which earlier value: 0 is the most recent
  std::vector<int> choices;  // read in order; each modulo the options at hand
};
using GraphRecipe = std::vector<GraphStep>;

struct GraphGenOptions {
  int max_steps = 12;
  int64_t max_numel = 256;  // no value gets more elements (a step that would is skipped)
};

// A valid graph for any recipe; its first input is created before the first
// step that needs an operand. Never throws.
ir::Graph build_graph(const GraphRecipe& recipe, const GraphGenOptions& options = {});

rc::Gen<GraphRecipe> gen_recipe(const GraphGenOptions& options = {});
// gen_recipe() mapped through build_graph(): shrinks through the recipe.
rc::Gen<ir::Graph> gen_graph(const GraphGenOptions& options = {});

// One random tensor per graph input (ir::random_tensor), for running a graph.
std::vector<ir::HostTensor> random_inputs(const ir::Graph& g, std::mt19937_64& rng);

void showValue(const GraphStep& step, std::ostream& os);

}  // namespace smelt::fuzz

namespace smelt::ir {
// rapidcheck prints a failing graph in the .sg text format.
void showValue(const Graph& g, std::ostream& os);
}  // namespace smelt::ir
