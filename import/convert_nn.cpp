// Contractions and normalizations: MatMul, Gemm (alpha, beta, transA, transB),
// Softmax, LogSoftmax, LayerNormalization, decomposed into smelt ops.
#include "import/broadcast.h"
#include "import/constant_views.h"
#include "import/context.h"
#include "import/dtype_checks.h"

namespace smelt::importer {
namespace {

using ir::Tensor;


// numpy matmul: 1-D operands get a unit axis that is dropped from the result.
void convert_matmul(Context& ctx) {
  ctx.require_inputs(2, 2);
  require_dtypes(ctx, 0, 1, DTypeClass::Numeric);
  Tensor a = ctx.input(0), b = ctx.input(1);
  if (a.rank() == 0 || b.rank() == 0) ctx.fail("operands must have rank >= 1");
  const bool a_vector = a.rank() == 1, b_vector = b.rank() == 1;
  if (a_vector) a = ir::reshape(a, {1, a.shape()[0]});
  if (b_vector) b = ir::reshape(b, {b.shape()[0], 1});
  if (a.shape().back() != b.shape()[b.shape().size() - 2])
    ctx.fail("inner extents differ: " + ir::shape_str(a.shape()) + " x " + ir::shape_str(b.shape()));
  Tensor y = ir::matmul(a, b);
  if (a_vector || b_vector) {
    ir::Shape shape(y.shape().begin(), y.shape().end() - 2);
    if (!a_vector) shape.push_back(y.shape()[y.shape().size() - 2]);
    if (!b_vector) shape.push_back(y.shape().back());
    y = ir::reshape(y, shape);
  }
  ctx.set_output(0, y);
}

void convert_gemm(Context& ctx) {
  ctx.require_inputs(2, 3);
  require_dtypes(ctx, 0, 2, DTypeClass::Float);
  const double alpha = ctx.attr_float("alpha", 1), beta = ctx.attr_float("beta", 1);
  const bool trans_a = ctx.attr_int("transA", 0) != 0, trans_b = ctx.attr_int("transB", 0) != 0;
  Tensor a = ctx.input(0), b = ctx.input(1);
  if (a.rank() != 2 || b.rank() != 2) ctx.fail("A and B must be matrices");
  if (trans_a) a = permute_folding_constants(a, {1, 0});
  if (trans_b) b = permute_folding_constants(b, {1, 0});
  if (a.shape()[1] != b.shape()[0]) ctx.fail("inner extents differ");
  Tensor y = ir::matmul(a, b);
  if (alpha != 1) y = ir::mul(ctx.scalar_like(alpha, y), y);
  if (ctx.has_input(2) && beta != 0) {
    Tensor c = ctx.input(2);
    if (broadcast_shapes(ctx, c.shape(), y.shape()) != y.shape()) ctx.fail("C does not broadcast to A*B's shape");
    c = broadcast_to(c, y.shape());
    if (beta != 1) c = ir::mul(ctx.scalar_like(beta, c), c);
    y = ir::add(y, c);
  }
  ctx.set_output(0, y);
}

// exp(x - max) / sum(exp(x - max)) over one axis (opset 13 semantics).
void convert_softmax(Context& ctx, bool log) {
  ctx.require_inputs(1, 1);
  require_dtype(ctx, 0, DTypeClass::Float);
  Tensor x = ctx.input(0);
  const int64_t axis = ctx.normalize_axis(ctx.attr_int("axis", -1), x.rank(), "attribute 'axis'");
  Tensor shifted = ir::sub(x, ir::broadcast(ir::reduce_max(x, {axis}, true), x.shape()));
  Tensor exps = ir::exp(shifted);
  Tensor total = ir::broadcast(ir::reduce_sum(exps, {axis}, true), x.shape());
  ctx.set_output(0, log ? ir::sub(shifted, ir::log(total)) : ir::div(exps, total));
}

void convert_layer_norm(Context& ctx) {
  ctx.require_inputs(2, 3);
  require_dtypes(ctx, 0, 2, DTypeClass::Float);
  Tensor x = ctx.input(0);
  const ir::DType dtype = x.dtype();
  const int64_t axis = ctx.normalize_axis(ctx.attr_int("axis", -1), x.rank(), "attribute 'axis'");
  const double epsilon = ctx.attr_float("epsilon", 1e-5f);
  const int64_t stash_type = ctx.attr_int("stash_type", 1);
  if (stash_type != 1) ctx.unsupported("attribute 'stash_type' = " + std::to_string(stash_type));
  // stash_type 1: mean and variance are computed in f32.
  if (dtype != ir::DType::F32) x = ir::cast(x, ir::DType::F32);
  std::vector<int64_t> axes;
  int64_t count = 1;
  for (int64_t k = axis; k < x.rank(); ++k) axes.push_back(k), count *= x.shape()[static_cast<size_t>(k)];
  Tensor inv_count = ctx.scalar_like(1.0 / static_cast<double>(count), ir::reduce_sum(x, axes, true));
  Tensor mean = ir::mul(ir::reduce_sum(x, axes, true), inv_count);
  Tensor centered = ir::sub(x, ir::broadcast(mean, x.shape()));
  Tensor variance = ir::mul(ir::reduce_sum(ir::mul(centered, centered), axes, true), inv_count);
  Tensor inv_std = ir::rsqrt(ir::add(variance, ctx.scalar_like(epsilon, variance)));
  Tensor normalized = ir::mul(centered, ir::broadcast(inv_std, x.shape()));
  if (dtype != ir::DType::F32) normalized = ir::cast(normalized, dtype);
  auto unidirectional = [&](Tensor p, const char* what) {
    if (broadcast_shapes(ctx, p.shape(), normalized.shape()) != normalized.shape())
      ctx.fail(std::string(what) + " " + ir::shape_str(p.shape()) + " does not broadcast to the input's shape");
    return broadcast_to(p, normalized.shape());
  };
  Tensor y = ir::mul(normalized, unidirectional(ctx.input(1), "scale"));
  if (ctx.has_input(2)) y = ir::add(y, unidirectional(ctx.input(2), "bias"));
  ctx.set_output(0, y);
  ctx.set_output(1, mean);
  ctx.set_output(2, inv_std);
}

// Inference batch normalization over axis 1: (x - mean) / sqrt(var + epsilon) * scale + B.
void convert_batch_norm(Context& ctx) {
  ctx.require_inputs(5, 5);
  require_dtypes(ctx, 0, 4, DTypeClass::Float);
  if (ctx.attr_int("training_mode", 0) != 0) ctx.unsupported("attribute 'training_mode' = 1 (batch statistics)");
  ctx.attr_float("momentum", 0.9f);  // only used in training mode
  const double epsilon = ctx.attr_float("epsilon", 1e-5f);
  Tensor x = ctx.input(0);
  if (x.rank() < 2) ctx.fail("the input must have rank >= 2 ([N, C, ...])");
  ir::Shape per_channel(static_cast<size_t>(x.rank()), 1);
  per_channel[1] = x.shape()[1];
  const ir::Shape shape = x.shape();
  auto channel = [&](int i, const char* what) {
    Tensor p = ctx.input(i);
    if (p.dtype() != x.dtype()) ctx.unsupported(std::string(what) + " has another dtype than the input");
    if (p.shape() != ir::Shape{shape[1]}) ctx.fail(std::string(what) + " must be [C]");
    return p;
  };
  Tensor scale = channel(1, "scale"), bias = channel(2, "B"), mean = channel(3, "input_mean"),
         variance = channel(4, "input_var");
  // Per channel, as PyTorch's and ONNX Runtime's inference kernels compute it:
  // alpha = scale / sqrt(var + epsilon), beta = B - mean * alpha (vectors of C,
  // folded at compile time when they are constants), then y = x * alpha + beta:
  // two operations per element, and a per-map factor that conv-scale-into-weights
  // can fold into a convolution's weights.
  Tensor alpha = ir::div(scale, ir::sqrt(ir::add(variance, ctx.scalar_like(epsilon, variance))));
  Tensor beta = ir::sub(bias, ir::mul(mean, alpha));
  auto per_map = [&](const Tensor& v) { return ir::broadcast(ir::reshape(v, per_channel), shape); };
  ctx.set_output(0, ir::add(ir::mul(x, per_map(alpha)), per_map(beta)));
}

// DepthToSpace and SpaceToDepth on [N, C, H, W]: reshape, permute, reshape.
void convert_depth_space(Context& ctx, bool to_space) {
  ctx.require_inputs(1, 1);
  Tensor x = ctx.input(0);
  if (x.rank() != 4) ctx.fail("the input must be [N, C, H, W]");
  const int64_t b = ctx.attr_int("blocksize", 0);
  if (b <= 0) ctx.fail("attribute 'blocksize' must be positive");
  const int64_t n = x.shape()[0], c = x.shape()[1], h = x.shape()[2], w = x.shape()[3];
  if (to_space) {
    const std::string mode = ctx.attr_string("mode", "DCR");
    if (c % (b * b) != 0) ctx.fail("channels are not a multiple of blocksize^2");
    if (mode == "DCR") {
      x = ir::permute(ir::reshape(x, {n, b, b, c / (b * b), h, w}), {0, 3, 4, 1, 5, 2});
    } else if (mode == "CRD") {
      x = ir::permute(ir::reshape(x, {n, c / (b * b), b, b, h, w}), {0, 1, 4, 2, 5, 3});
    } else {
      ctx.unsupported("attribute 'mode' = '" + mode + "'");
    }
    return ctx.set_output(0, ir::reshape(x, {n, c / (b * b), h * b, w * b}));
  }
  if (h % b != 0 || w % b != 0) ctx.fail("height and width must be multiples of blocksize");
  x = ir::permute(ir::reshape(x, {n, c, h / b, b, w / b, b}), {0, 3, 5, 1, 2, 4});
  ctx.set_output(0, ir::reshape(x, {n, c * b * b, h / b, w / b}));
}

}  // namespace

void add_nn_converters(ConverterTable& t) {
  t["BatchNormalization"] = convert_batch_norm;
  t["DepthToSpace"] = [](Context& ctx) { convert_depth_space(ctx, true); };
  t["SpaceToDepth"] = [](Context& ctx) { convert_depth_space(ctx, false); };
  t["MatMul"] = convert_matmul;
  t["Gemm"] = convert_gemm;
  t["Softmax"] = [](Context& ctx) { convert_softmax(ctx, false); };
  t["LogSoftmax"] = [](Context& ctx) { convert_softmax(ctx, true); };
  t["LayerNormalization"] = convert_layer_norm;
}

}  // namespace smelt::importer
