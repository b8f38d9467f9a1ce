// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss. The class picked by each
// target is selected with a one-hot mask (iota over the class axis == target), so
// targets may be data; ignore_index and class weights follow the ONNX definition.
#include "import/broadcast.h"
#include "import/context.h"
#include "import/dtype_checks.h"

namespace smelt::importer {
namespace {

using ir::Tensor;


struct LossOptions {
  std::string reduction;
  std::optional<int64_t> ignore_index;
};

LossOptions loss_options(Context& ctx) {
  LossOptions o;
  o.reduction = ctx.attr_string("reduction", "mean");
  if (o.reduction != "none" && o.reduction != "sum" && o.reduction != "mean")
    ctx.fail("attribute 'reduction' = '" + o.reduction + "' (none, sum or mean)");
  if (ctx.attribute("ignore_index")) o.ignore_index = ctx.attr_int("ignore_index", 0);
  return o;
}

// input: [N, C, d...] (log-probabilities), target: [N, d...] integers, weight: [C] or none.
Tensor nll_loss(Context& ctx, Tensor input, Tensor target, std::optional<Tensor> weight, const LossOptions& o) {
  const ir::Shape shape = input.shape();
  if (shape.size() < 2) ctx.fail("the input must have rank >= 2 ([N, C, ...])");
  ir::Shape target_shape = shape;
  target_shape.erase(target_shape.begin() + 1);
  if (target.shape() != target_shape)
    ctx.fail("the target is " + ir::shape_str(target.shape()) + ", expected " + ir::shape_str(target_shape));
  if (target.dtype() != ir::DType::I64) target = ir::cast(target, ir::DType::I64);
  ir::Shape with_class_axis = target_shape;
  with_class_axis.insert(with_class_axis.begin() + 1, 1);
  Tensor picks = ir::eq(ir::iota(ctx.graph(), shape, 1, ir::DType::I64),
                        ir::broadcast(ir::reshape(target, with_class_axis), shape));
  Tensor zeros = ctx.scalar_like(0, input);
  Tensor picked = ir::reduce_sum(ir::where(picks, input, zeros), {1}, false);
  // The weight of each target's class: 1 without weights, 0 for an ignored target.
  Tensor per_class = ctx.scalar_like(1, input);
  if (weight) {
    if (weight->shape() != ir::Shape{shape[1]}) ctx.fail("the weight must be [C]");
    ir::Shape weight_shape(shape.size(), 1);
    weight_shape[1] = shape[1];
    per_class = ir::broadcast(ir::reshape(*weight, weight_shape), shape);
  }
  Tensor target_weight = ir::reduce_sum(ir::where(picks, per_class, zeros), {1}, false);
  if (o.ignore_index) {
    Tensor ignored = ir::eq(target, ctx.scalar_like(static_cast<double>(*o.ignore_index), target));
    target_weight = ir::where(ignored, ctx.scalar_like(0, target_weight), target_weight);
  }
  Tensor loss = ir::neg(ir::mul(picked, target_weight));
  if (o.reduction == "none") return loss;
  std::vector<int64_t> all(static_cast<size_t>(loss.rank()));
  for (size_t k = 0; k < all.size(); ++k) all[k] = static_cast<int64_t>(k);
  Tensor total = ir::reduce_sum(loss, all, false);
  if (o.reduction == "sum") return total;
  return ir::div(total, ir::reduce_sum(target_weight, all, false));
}

void convert_nll_loss(Context& ctx) {
  ctx.require_inputs(2, 3);
  require_dtype(ctx, 0, DTypeClass::Float);
  require_dtype(ctx, 1, DTypeClass::Numeric);
  require_dtype(ctx, 2, DTypeClass::Float);
  if (ir::is_float(ctx.input_type(1).dtype)) ctx.fail("the target must hold integers");
  const LossOptions o = loss_options(ctx);
  std::optional<Tensor> weight;
  if (ctx.has_input(2)) weight = ctx.input(2);
  ctx.set_output(0, nll_loss(ctx, ctx.input(0), ctx.input(1), weight, o));
}

void convert_softmax_cross_entropy(Context& ctx) {
  ctx.require_inputs(2, 3);
  require_dtype(ctx, 0, DTypeClass::Float);
  require_dtype(ctx, 1, DTypeClass::Numeric);
  require_dtype(ctx, 2, DTypeClass::Float);
  if (ir::is_float(ctx.input_type(1).dtype)) ctx.fail("the labels must hold integers");
  const LossOptions o = loss_options(ctx);
  Tensor scores = ctx.input(0);
  if (scores.rank() < 2) ctx.fail("the scores must have rank >= 2 ([N, C, ...])");
  // log_softmax over the class axis, the max subtracted first.
  const ir::Shape shape = scores.shape();
  Tensor shifted = ir::sub(scores, ir::broadcast(ir::reduce_max(scores, {1}, true), shape));
  Tensor log_prob = ir::sub(shifted, ir::broadcast(ir::log(ir::reduce_sum(ir::exp(shifted), {1}, true)), shape));
  std::optional<Tensor> weight;
  if (ctx.has_input(2)) weight = ctx.input(2);
  ctx.set_output(0, nll_loss(ctx, log_prob, ctx.input(1), weight, o));
  ctx.set_output(1, log_prob);
}

}  // namespace

void add_loss_converters(ConverterTable& t) {
  t["NegativeLogLikelihoodLoss"] = convert_nll_loss;
  t["SoftmaxCrossEntropyLoss"] = convert_softmax_cross_entropy;
}

}  // namespace smelt::importer
