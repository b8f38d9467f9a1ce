#pragma once
// lower-private (LLVM types): host math functions whose fast formula holds on a
// range only — sin and cos: a polynomial after reduction by π in f32, for
// |x| ≤ 2^20; beyond, the C library.
//
// A kernel calls a scalar function (the C library's, for loops that stay
// scalar); the function carries vector variants (VFABI "vector-function-abi-
// variant", 4, 8 and 16 lanes) that the loop vectorizer calls instead: the
// polynomial for every lane, behind one branch to the C library lane by lane
// when some lane is out of range. After vectorization, inline_host_math puts
// the variants' bodies into the loops: no call, no spills around it, as wide as
// the target's vectors (libmvec's sinf / cosf were 8 lanes and a call each).
// Accuracy: within 3 ulp of the C library (tests/lower/host_semantics_test.cpp).
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include "ir/ops.h"

namespace smelt::lower {

// op ∈ {Sin, Cos}: a call of the scalar function at the builder's insertion point.
llvm::Value* host_range_reduced_math(llvm::IRBuilder<>& builder, ir::Op op, llvm::Value* x);

// Inlines the vector variants where the vectorizer called them and deletes them
// (run after the optimization pipeline).
void inline_host_math(llvm::Module& module);

}  // namespace smelt::lower
