#pragma once
// Views of constants folded at import: an exporter's transposed weight (Gemm
// transB=1, MatMul of a Transpose of an initializer; torch.nn.Linear's weight
// is [out, in]) becomes a constant in the layout the model reads, so that the
// compiled program reads it row by row instead of transposing it on every run.
#include <cstdint>
#include <vector>

#include "ir/builder.h"

namespace smelt::importer {

// permute(x, perm): a new constant holding x's values permuted when x is a
// constant with a value per element; ir::permute otherwise.
ir::Tensor permute_folding_constants(ir::Tensor x, const std::vector<int64_t>& perm);

}  // namespace smelt::importer
