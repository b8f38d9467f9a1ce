// Elementwise ONNX ops: direct smelt ops, or decompositions into them with the
// same semantics. Implicit broadcasting is made explicit (import/broadcast.h).
#include <cmath>
#include <limits>

#include "import/broadcast.h"
#include "import/context.h"
#include "import/dtype_checks.h"
#include "import/tensor_proto.h"

namespace smelt::importer {
namespace {

using ir::Tensor;


void unary(ConverterTable& table, const std::string& op, DTypeClass cls, Tensor (*fn)(Context&, Tensor)) {
  table[op] = [cls, fn](Context& ctx) {
    ctx.require_inputs(1, 1);
    require_dtype(ctx, 0, cls);
    ctx.set_output(0, fn(ctx, ctx.input(0)));
  };
}

// Binary ops with numpy broadcasting; the result dtype is the smelt op's.
void binary(ConverterTable& table, const std::string& op, DTypeClass cls, Tensor (*fn)(Tensor, Tensor)) {
  table[op] = [cls, fn](Context& ctx) {
    ctx.require_inputs(2, 2);
    require_dtypes(ctx, 0, 1, cls);
    std::vector<Tensor> xs = broadcast_together(ctx, {ctx.input(0), ctx.input(1)});
    ctx.set_output(0, fn(xs[0], xs[1]));
  };
}

// Max, Min, Sum, Mean: one or more operands, broadcast together, folded left.
void variadic(ConverterTable& table, const std::string& op, DTypeClass cls, Tensor (*fn)(Tensor, Tensor), bool mean) {
  table[op] = [cls, fn, mean](Context& ctx) {
    if (ctx.num_inputs() < 1) ctx.fail("needs at least one input");
    std::vector<Tensor> xs;
    for (int i = 0; i < ctx.num_inputs(); ++i) {
      require_dtype(ctx, i, cls);
      xs.push_back(ctx.input(i));
    }
    xs = broadcast_together(ctx, xs);
    Tensor acc = xs[0];
    for (size_t i = 1; i < xs.size(); ++i) acc = fn(acc, xs[i]);
    if (mean) acc = ir::div(acc, ctx.scalar_like(static_cast<double>(xs.size()), acc));
    ctx.set_output(0, acc);
  };
}

Tensor logical_not(Context& ctx, Tensor x) { return ir::eq(x, ctx.scalar_like(0, x)); }

void add_unary_ops(ConverterTable& t) {
  using C = Context;
  unary(t, "Exp", DTypeClass::Float, [](C&, Tensor x) { return ir::exp(x); });
  unary(t, "Log", DTypeClass::Float, [](C&, Tensor x) { return ir::log(x); });
  unary(t, "Sin", DTypeClass::Float, [](C&, Tensor x) { return ir::sin(x); });
  unary(t, "Cos", DTypeClass::Float, [](C&, Tensor x) { return ir::cos(x); });
  unary(t, "Tan", DTypeClass::Float, [](C&, Tensor x) { return ir::div(ir::sin(x), ir::cos(x)); });
  unary(t, "Tanh", DTypeClass::Float, [](C&, Tensor x) { return ir::tanh(x); });
  unary(t, "Sinh", DTypeClass::Float,
        [](C& c, Tensor x) { return ir::mul(ir::sub(ir::exp(x), ir::exp(ir::neg(x))), c.scalar_like(0.5, x)); });
  unary(t, "Cosh", DTypeClass::Float,
        [](C& c, Tensor x) { return ir::mul(ir::add(ir::exp(x), ir::exp(ir::neg(x))), c.scalar_like(0.5, x)); });
  unary(t, "Sqrt", DTypeClass::Float, [](C&, Tensor x) { return ir::sqrt(x); });
  unary(t, "Reciprocal", DTypeClass::Float, [](C&, Tensor x) { return ir::recip(x); });
  unary(t, "Sigmoid", DTypeClass::Float, [](C&, Tensor x) { return ir::sigmoid(x); });
  unary(t, "Erf", DTypeClass::Float, [](C&, Tensor x) { return ir::erf(x); });
  unary(t, "Neg", DTypeClass::Numeric, [](C&, Tensor x) { return ir::neg(x); });
  unary(t, "Abs", DTypeClass::Numeric, [](C&, Tensor x) { return ir::abs(x); });
  unary(t, "Relu", DTypeClass::Numeric, [](C&, Tensor x) { return ir::relu(x); });
  unary(t, "Not", DTypeClass::Bool, [](C& c, Tensor x) { return logical_not(c, x); });
  unary(t, "IsNaN", DTypeClass::Float, [](C& c, Tensor x) { return logical_not(c, ir::eq(x, x)); });
  unary(t, "Softplus", DTypeClass::Float, [](C& c, Tensor x) { return ir::log(ir::add(ir::exp(x), c.scalar_like(1, x))); });
  unary(t, "Softsign", DTypeClass::Float,
        [](C& c, Tensor x) { return ir::div(x, ir::add(c.scalar_like(1, x), ir::abs(x))); });
  // Sign keeps 0 and NaN as they are (numpy's sign).
  unary(t, "Sign", DTypeClass::Numeric, [](C& c, Tensor x) {
    Tensor zero = c.scalar_like(0, x);
    return ir::where(ir::lt(zero, x), c.scalar_like(1, x), ir::where(ir::lt(x, zero), c.scalar_like(-1, x), x));
  });
}

void add_activation_ops(ConverterTable& t) {
  t["LeakyRelu"] = [](Context& ctx) {
    ctx.require_inputs(1, 1);
    require_dtype(ctx, 0, DTypeClass::Float);
    const double alpha = ctx.attr_float("alpha", 0.01f);
    Tensor x = ctx.input(0);
    ctx.set_output(0, ir::where(ir::lt(x, ctx.scalar_like(0, x)), ir::mul(x, ctx.scalar_like(alpha, x)), x));
  };
  t["PRelu"] = [](Context& ctx) {
    ctx.require_inputs(2, 2);
    require_dtypes(ctx, 0, 1, DTypeClass::Float);
    Tensor x = ctx.input(0);
    Tensor slope = broadcast_to(ctx.input(1), broadcast_shapes(ctx, x.shape(), ctx.input(1).shape()));
    if (slope.shape() != x.shape()) ctx.fail("slope must broadcast to the input's shape");
    ctx.set_output(0, ir::where(ir::lt(x, ctx.scalar_like(0, x)), ir::mul(x, slope), x));
  };
  t["Elu"] = [](Context& ctx) {
    ctx.require_inputs(1, 1);
    require_dtype(ctx, 0, DTypeClass::Float);
    const double alpha = ctx.attr_float("alpha", 1.0f);
    Tensor x = ctx.input(0);
    Tensor negative = ir::mul(ctx.scalar_like(alpha, x), ir::sub(ir::exp(x), ctx.scalar_like(1, x)));
    ctx.set_output(0, ir::where(ir::lt(x, ctx.scalar_like(0, x)), negative, x));
  };
  t["Celu"] = [](Context& ctx) {
    ctx.require_inputs(1, 1);
    require_dtype(ctx, 0, DTypeClass::Float);
    const double alpha = ctx.attr_float("alpha", 1.0f);
    Tensor x = ctx.input(0);
    // max(0, x) + min(0, alpha * (exp(x / alpha) - 1))
    Tensor zero = ctx.scalar_like(0, x);
    Tensor e = ir::sub(ir::exp(ir::div(x, ctx.scalar_like(alpha, x))), ctx.scalar_like(1, x));
    ctx.set_output(0, ir::add(ir::max(zero, x), ir::min(zero, ir::mul(ctx.scalar_like(alpha, x), e))));
  };
  t["Selu"] = [](Context& ctx) {
    ctx.require_inputs(1, 1);
    require_dtype(ctx, 0, DTypeClass::Float);
    const double alpha = ctx.attr_float("alpha", 1.67326319217681884765625f);
    const double gamma = ctx.attr_float("gamma", 1.05070102214813232421875f);
    Tensor x = ctx.input(0);
    Tensor negative = ir::mul(ctx.scalar_like(alpha, x), ir::sub(ir::exp(x), ctx.scalar_like(1, x)));
    Tensor y = ir::where(ir::le(x, ctx.scalar_like(0, x)), negative, x);
    ctx.set_output(0, ir::mul(ctx.scalar_like(gamma, x), y));
  };
  t["HardSigmoid"] = [](Context& ctx) {
    ctx.require_inputs(1, 1);
    require_dtype(ctx, 0, DTypeClass::Float);
    const double alpha = ctx.attr_float("alpha", 0.2f), beta = ctx.attr_float("beta", 0.5f);
    Tensor x = ctx.input(0);
    Tensor y = ir::add(ir::mul(x, ctx.scalar_like(alpha, x)), ctx.scalar_like(beta, x));
    ctx.set_output(0, ir::max(ctx.scalar_like(0, x), ir::min(ctx.scalar_like(1, x), y)));
  };
  t["HardSwish"] = [](Context& ctx) {
    ctx.require_inputs(1, 1);
    require_dtype(ctx, 0, DTypeClass::Float);
    Tensor x = ctx.input(0);
    Tensor y = ir::add(ir::mul(x, ctx.scalar_like(1.0 / 6, x)), ctx.scalar_like(0.5, x));
    ctx.set_output(0, ir::mul(x, ir::max(ctx.scalar_like(0, x), ir::min(ctx.scalar_like(1, x), y))));
  };
  t["ThresholdedRelu"] = [](Context& ctx) {
    ctx.require_inputs(1, 1);
    require_dtype(ctx, 0, DTypeClass::Float);
    const double alpha = ctx.attr_float("alpha", 1.0f);
    Tensor x = ctx.input(0);
    ctx.set_output(0, ir::where(ir::lt(ctx.scalar_like(alpha, x), x), x, ctx.scalar_like(0, x)));
  };
  t["Gelu"] = [](Context& ctx) {
    ctx.require_inputs(1, 1);
    require_dtype(ctx, 0, DTypeClass::Float);
    const std::string approximate = ctx.attr_string("approximate", "none");
    Tensor x = ctx.input(0);
    if (approximate == "none") return ctx.set_output(0, ir::gelu(x));
    if (approximate != "tanh") ctx.unsupported("attribute 'approximate' = '" + approximate + "'");
    // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    Tensor inner = ir::mul(ctx.scalar_like(std::sqrt(2 / M_PI), x),
                           ir::add(x, ir::mul(ctx.scalar_like(0.044715, x), ir::mul(x, ir::mul(x, x)))));
    ctx.set_output(0, ir::mul(ir::mul(ctx.scalar_like(0.5, x), x), ir::add(ctx.scalar_like(1, x), ir::tanh(inner))));
  };
  t["Clip"] = [](Context& ctx) {
    ctx.require_inputs(1, 3);
    require_dtype(ctx, 0, DTypeClass::Numeric);
    Tensor x = ctx.input(0);
    // Bounds are scalars; numpy's clip propagates NaN, as smelt's max/min do.
    if (ctx.has_input(1)) x = ir::max(x, broadcast_to(ctx.input(1), x.shape()));
    if (ctx.has_input(2)) x = ir::min(x, broadcast_to(ctx.input(2), x.shape()));
    ctx.set_output(0, x);
  };
}

void add_binary_ops(ConverterTable& t) {
  binary(t, "Add", DTypeClass::Numeric, ir::add);
  binary(t, "Sub", DTypeClass::Numeric, ir::sub);
  binary(t, "Mul", DTypeClass::Numeric, ir::mul);
  // ONNX leaves integer Div's rounding to numpy/the backend; smelt truncates: floats only.
  binary(t, "Div", DTypeClass::Float, ir::div);
  binary(t, "Equal", DTypeClass::Any, ir::eq);
  binary(t, "Less", DTypeClass::Numeric, ir::lt);
  binary(t, "LessOrEqual", DTypeClass::Numeric, ir::le);
  binary(t, "Greater", DTypeClass::Numeric, [](Tensor a, Tensor b) { return ir::lt(b, a); });
  binary(t, "GreaterOrEqual", DTypeClass::Numeric, [](Tensor a, Tensor b) { return ir::le(b, a); });
  binary(t, "And", DTypeClass::Bool, [](Tensor a, Tensor b) { return ir::where(a, b, a); });
  binary(t, "Or", DTypeClass::Bool, [](Tensor a, Tensor b) { return ir::where(a, a, b); });
  binary(t, "Xor", DTypeClass::Bool,
         [](Tensor a, Tensor b) { return ir::eq(ir::eq(a, b), ir::full(*a.graph, a.shape(), 0, ir::DType::Bool)); });
  variadic(t, "Max", DTypeClass::Numeric, ir::max, false);
  variadic(t, "Min", DTypeClass::Numeric, ir::min, false);
  variadic(t, "Sum", DTypeClass::Numeric, ir::add, false);
  variadic(t, "Mean", DTypeClass::Float, ir::add, true);
  t["Pow"] = [](Context& ctx) {
    ctx.require_inputs(2, 2);
    require_dtype(ctx, 0, DTypeClass::Float);
    require_dtype(ctx, 1, DTypeClass::Numeric);
    Tensor base = ctx.input(0), exponent = ctx.input(1);
    // An integer exponent is exact in the base's float type for |e| <= 2^11 (f16).
    if (exponent.dtype() != base.dtype()) exponent = ir::cast(exponent, base.dtype());
    std::vector<Tensor> xs = broadcast_together(ctx, {base, exponent});
    ctx.set_output(0, ir::pow(xs[0], xs[1]));
  };
  t["Where"] = [](Context& ctx) {
    ctx.require_inputs(3, 3);
    require_dtype(ctx, 0, DTypeClass::Bool);
    std::vector<Tensor> xs = broadcast_together(ctx, {ctx.input(0), ctx.input(1), ctx.input(2)});
    ctx.set_output(0, ir::where(xs[0], xs[1], xs[2]));
  };
}

void add_cast_ops(ConverterTable& t) {
  t["Cast"] = [](Context& ctx) {
    ctx.require_inputs(1, 1);
    const int64_t to = ctx.attr_int("to", -1);
    if (to < 0) ctx.fail("attribute 'to' is required");
    std::optional<ir::DType> dtype = dtype_from_onnx(static_cast<int>(to));
    if (!dtype) ctx.unsupported("attribute 'to' = " + onnx_type_name(static_cast<int>(to)) + " (no such smelt dtype)");
    Tensor x = ctx.input(0);
    ctx.set_output(0, x.dtype() == *dtype ? x : ir::cast(x, *dtype));
  };
  t["CastLike"] = [](Context& ctx) {
    ctx.require_inputs(2, 2);
    Tensor x = ctx.input(0);
    const ir::DType to = ctx.input_type(1).dtype;
    ctx.set_output(0, x.dtype() == to ? x : ir::cast(x, to));
  };
}

}  // namespace

void add_elementwise_converters(ConverterTable& table) {
  add_unary_ops(table);
  add_activation_ops(table);
  add_binary_ops(table);
  add_cast_ops(table);
}

}  // namespace smelt::importer
