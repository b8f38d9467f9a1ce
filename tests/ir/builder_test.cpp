// The builder: shape-checked at build time; errors name the op, the operands'
// types and what was expected. Also the attribute canonicalization of inference.
#include "ir/builder.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace smelt::ir {
namespace {

// Runs `build`, which must throw ShapeError mentioning every fragment, and must
// leave the graph as it was.
void expect_shape_error(Graph& g, const std::function<void()>& build,
                        const std::vector<std::string>& fragments) {
  size_t before = g.size();
  try {
    build();
    ADD_FAILURE() << "expected ShapeError: " << fragments.front();
  } catch (const ShapeError& e) {
    std::string msg = e.what();
    for (const std::string& fragment : fragments)
      EXPECT_NE(msg.find(fragment), std::string::npos) << "'" << fragment << "' not in: " << msg;
  }
  EXPECT_EQ(g.size(), before);
}

TEST(BuilderErrors, ElementwiseShapeMismatch) {
  Graph g;
  Tensor a = input(g, "a", DType::F32, {2, 3});
  Tensor b = input(g, "b", DType::F32, {3});
  expect_shape_error(g, [&] { add(a, b); }, {"add(f32[2,3], f32[3])", "equal shapes", "broadcast"});
  Tensor c = input(g, "c", DType::Bool, {2, 3});
  expect_shape_error(g, [&] { where(c, a, b); },
                     {"where(bool[2,3], f32[2,3], f32[3])", "equal shapes"});
}

TEST(BuilderErrors, ElementwiseDtypeMismatch) {
  Graph g;
  Tensor a = input(g, "a", DType::F32, {2});
  Tensor b = input(g, "b", DType::I32, {2});
  Tensor p = input(g, "p", DType::Bool, {2});
  expect_shape_error(g, [&] { mul(a, b); }, {"mul(f32[2], i32[2])", "same dtype", "cast"});
  expect_shape_error(g, [&] { exp(b); }, {"exp(i32[2])", "float operand"});
  expect_shape_error(g, [&] { pow(b, b); }, {"pow(i32[2], i32[2])", "float operands"});
  expect_shape_error(g, [&] { neg(p); }, {"neg(bool[2])", "numeric", "not bool"});
  expect_shape_error(g, [&] { lt(p, p); }, {"lt(bool[2], bool[2])", "numeric operands"});
  expect_shape_error(g, [&] { where(a, a, a); },
                     {"where(f32[2], f32[2], f32[2])", "condition", "bool"});
  expect_shape_error(g, [&] { where(p, a, b); }, {"where(bool[2], f32[2], i32[2])", "same dtype"});
}

TEST(BuilderErrors, Matmul) {
  Graph g;
  Tensor a = input(g, "a", DType::F32, {2, 3});
  Tensor b = input(g, "b", DType::F32, {4, 5});
  Tensor v = input(g, "v", DType::F32, {3});
  Tensor x = input(g, "x", DType::F32, {2, 2, 3});
  Tensor y = input(g, "y", DType::F32, {3, 3, 4});
  Tensor i = input(g, "i", DType::I32, {3, 4});
  expect_shape_error(g, [&] { matmul(a, b); }, {"matmul(f32[2,3], f32[4,5])", "K=3 vs 4"});
  expect_shape_error(g, [&] { matmul(v, a); }, {"matmul(f32[3], f32[2,3])", "rank >= 2"});
  expect_shape_error(g, [&] { matmul(x, y); },
                     {"matmul(f32[2,2,3], f32[3,3,4])", "batch dimensions"});
  expect_shape_error(g, [&] { matmul(a, i); }, {"matmul(f32[2,3], i32[3,4])", "same dtype"});
}

TEST(BuilderErrors, Views) {
  Graph g;
  Tensor a = input(g, "a", DType::F32, {2, 3});
  Tensor b = input(g, "b", DType::F32, {3, 3});
  expect_shape_error(g,
                     [&] {
                       broadcast(a, {2, 4});
                     },
                     {"broadcast(f32[2,3])", "cannot broadcast to [2,4]", "must be 1 or 4"});
  expect_shape_error(g, [&] { broadcast(a, {3}); }, {"broadcast(f32[2,3])", "lower rank"});
  expect_shape_error(g,
                     [&] {
                       reshape(a, {4, 2});
                     },
                     {"reshape(f32[2,3])", "8 elements, the operand 6"});
  expect_shape_error(g, [&] { reshape(a, {-1, -1}); }, {"reshape(f32[2,3])", "at most one -1"});
  expect_shape_error(g, [&] { reshape(a, {-1, 4}); }, {"reshape(f32[2,3])", "cannot infer"});
  expect_shape_error(g, [&] { permute(a, {0, 0}); }, {"permute(f32[2,3])", "not a permutation"});
  expect_shape_error(g, [&] { permute(a, {0}); }, {"permute(f32[2,3])", "every axis"});
  expect_shape_error(g,
                     [&] {
                       concat({a, b}, 1);
                     },
                     {"concat(f32[2,3], f32[3,3])", "every axis but 1"});
  expect_shape_error(g,
                     [&] {
                       concat({a, a}, 2);
                     },
                     {"concat(f32[2,3], f32[2,3])", "axis 2 out of range"});
  expect_shape_error(g, [&] { slice_axis(a, 1, 0, 3, 0); }, {"slice(f32[2,3])", "step must not be 0"});
  expect_shape_error(g, [&] { slice_axis(a, 2, 0, 1); }, {"slice(f32[2,3])", "axis 2 out of range"});
  expect_shape_error(g, [&] { slice(a, {0}, {1}, {1}); },
                     {"slice(f32[2,3])", "one entry per axis"});
  expect_shape_error(g, [&] { pad(a, {0, -1}, {0, 0}); }, {"pad(f32[2,3])", ">= 0"});
  expect_shape_error(g, [&] { pad(a, {0}, {0}); }, {"pad(f32[2,3])", "one entry per axis"});
}

TEST(BuilderErrors, Reductions) {
  Graph g;
  Tensor a = input(g, "a", DType::F32, {2, 3});
  Tensor p = input(g, "p", DType::Bool, {2});
  expect_shape_error(g, [&] { reduce_sum(a, {1, 1}); }, {"reduce_sum(f32[2,3])", "distinct axes"});
  expect_shape_error(g, [&] { reduce_max(a, {2}); }, {"reduce_max(f32[2,3])", "distinct axes"});
  expect_shape_error(g, [&] { reduce_sum(a, {}); }, {"reduce_sum(f32[2,3])", "at least one axis"});
  expect_shape_error(g, [&] { reduce_max(p, {0}); }, {"reduce_max(bool[2])", "not bool"});
}

TEST(BuilderErrors, Sources) {
  Graph g;
  expect_shape_error(g,
                     [&] {
                       constant(g, {1, 2, 3}, DType::F32, {2, 2});
                     },
                     {"constant()", "3 values for shape [2,2]"});
  expect_shape_error(g, [&] { constant(g, 0.5, DType::I32); }, {"constant()", "whole number"});
  expect_shape_error(g, [&] { constant(g, 3e9, DType::I32); }, {"constant()", "i32 range"});
  expect_shape_error(g, [&] { full(g, {2}, 2, DType::Bool); }, {"full()", "0 or 1"});
  expect_shape_error(g, [&] { iota(g, {2, 3}, 2); }, {"iota()", "axis 2 out of range"});
  expect_shape_error(g, [&] { iota(g, {2}, 0, DType::Bool); }, {"iota()", "numeric"});
  expect_shape_error(g,
                     [&] {
                       input(g, "x", DType::F32, {2, -1});
                     },
                     {"input()", "negative extent"});
  input(g, "x", DType::F32, {2});
  expect_shape_error(g, [&] { input(g, "x", DType::F32, {2}); },
                     {"input", "'x' is already defined"});
}

TEST(BuilderErrors, ArityAndGraphs) {
  Graph g, other;
  Tensor a = input(g, "a", DType::F32, {2});
  Tensor b = input(other, "b", DType::F32, {2});
  expect_shape_error(g, [&] { apply(Op::Add, {a}); }, {"add", "takes 2 operand(s), got 1"});
  expect_shape_error(g, [&] { add(a, b); }, {"add", "different graphs"});
  expect_shape_error(g, [&] { apply(Op::Concat, {}); }, {"concat", "must belong to a graph"});
}

TEST(Builder, InfersTypes) {
  Graph g;
  Tensor x = input(g, "x", DType::F16, {4, 1, 8});
  Tensor w = input(g, "w", DType::F16, {3, 8, 5});
  Tensor batched = input(g, "batched", DType::F16, {4, 1, 2, 8});
  EXPECT_EQ(matmul(batched, w).type(), (TensorType{DType::F16, {4, 3, 2, 5}}));
  EXPECT_EQ(lt(x, x).type(), (TensorType{DType::Bool, {4, 1, 8}}));
  EXPECT_EQ(cast(x, DType::I64).type(), (TensorType{DType::I64, {4, 1, 8}}));
  EXPECT_EQ(broadcast(x, {2, 4, 6, 8}).type(), (TensorType{DType::F16, {2, 4, 6, 8}}));
  EXPECT_EQ(concat({w, w}, 2).type(), (TensorType{DType::F16, {3, 8, 10}}));
  EXPECT_EQ(pad(x, {1, 0, 2}, {0, 3, 1}).type(), (TensorType{DType::F16, {5, 4, 11}}));
  EXPECT_EQ(reduce_sum(w, {0, 2}).type(), (TensorType{DType::F16, {8}}));
  EXPECT_EQ(reduce_max(w, {0, 2}, true).type(), (TensorType{DType::F16, {1, 8, 1}}));
  EXPECT_EQ(permute(w, {2, 0, 1}).type(), (TensorType{DType::F16, {5, 3, 8}}));
  EXPECT_EQ(where(lt(x, x), x, x).type(), (TensorType{DType::F16, {4, 1, 8}}));
}

TEST(Builder, CanonicalizesAttributes) {
  Graph g;
  Tensor x = input(g, "x", DType::F32, {10, 6});
  // Bounds clamp ([0,n] for positive steps, [-1,n-1] for negative), stop lies just
  // past the last element taken, and an empty slice is start = stop = 0.
  Tensor s = slice(x, {100, -5}, {-100, 4}, {-3, 1});
  EXPECT_EQ(s.shape(), (Shape{4, 4}));
  const Attrs& sa = g.node(s).attrs;
  EXPECT_EQ(sa.start, (std::vector<int64_t>{9, 0}));
  EXPECT_EQ(sa.stop, (std::vector<int64_t>{-1, 4}));
  Tensor e = slice_axis(x, 1, 5, 2);
  EXPECT_EQ(e.shape(), (Shape{10, 0}));
  EXPECT_EQ(g.node(e).attrs.start, (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(g.node(e).attrs.stop, (std::vector<int64_t>{10, 0}));
  Tensor r = reshape(x, {-1, 3});
  EXPECT_EQ(g.node(r).attrs.shape, (Shape{20, 3}));
  Tensor m = reduce_sum(x, {1, 0}, true);
  EXPECT_EQ(g.node(m).attrs.axes, (std::vector<int64_t>{0, 1}));
}

// A shape read from one value stays valid while others are added: builder
// code passes `x.shape()` beside an argument that adds nodes (ONNX Clip's
// max(x, broadcast(bound, x.shape())) read freed memory on MobileNetV2 exported
// by TorchScript, where the graph's storage happened to grow there).
TEST(Builder, AShapeReadStaysValidWhileNodesAreAdded) {
  Graph g;
  Tensor x = input(g, "x", DType::F32, {1, 192, 28, 28});
  const Shape& shape = x.shape();
  const TensorType& type = x.type();
  for (int i = 0; i < 5000; ++i) full(g, {1}, i, DType::F32);
  EXPECT_EQ(shape, (Shape{1, 192, 28, 28}));
  EXPECT_EQ(type.dtype, DType::F32);
  Tensor bound = full(g, {}, 6, DType::F32);
  for (int i = 0; i < 64; ++i) x = min(x, broadcast(neg(bound), x.shape()));
  EXPECT_EQ(x.shape(), (Shape{1, 192, 28, 28}));
}

}  // namespace
}  // namespace smelt::ir
