// Gathers: Gather, GatherElements and GatherND as smelt's one `gather` op
// (docs/ops.md: out[p] = data[p with one axis replaced by indices[p]]), the
// data and indices brought to one shape by views (which cost nothing: they
// become index maps). Gather with few indices known at import time is slices
// instead, and one with an arithmetic run of indices (position ids) one slice.
// Scatters: Scatter, ScatterElements and ScatterND as smelt's scatter ops
// (scatter, scatter_add, _mul, _max, _min by the 'reduction' attribute).
#include <string>

#include "import/context.h"

namespace smelt::importer {
namespace {

using ir::Tensor;

void require_integer_indices(Context& ctx, int input) {
  const ir::DType t = ctx.input_type(input).dtype;
  if (t != ir::DType::I32 && t != ir::DType::I64) ctx.fail("the indices must be int32 or int64");
}

// data [L..., N, post...] read at indices [L..., I...] (the leading axes L
// aligned; for Gather, L is empty and the data's leading axes are carried as
// `pre`): out [pre..., L..., I..., post...] with out[..., i, ...] =
// data[..., indices[i], ...]. Here `pre` is the data's axes before `axis`
// that the indices do not have.
Tensor take(Context& ctx, Tensor data, Tensor indices, int64_t axis, int64_t batch) {
  const ir::Shape d = data.shape(), idx = indices.shape();
  const auto a = static_cast<size_t>(axis), b = static_cast<size_t>(batch);
  // A scalar index: taken as [1], the unit axis dropped at the end.
  const bool scalar = idx.size() == b;
  ir::Shape index_shape = idx;
  if (scalar) {
    index_shape.push_back(1);
    indices = ir::reshape(indices, index_shape);
  }
  const ir::Shape pre(d.begin() + static_cast<std::ptrdiff_t>(b), d.begin() + static_cast<std::ptrdiff_t>(a));
  const ir::Shape post(d.begin() + static_cast<std::ptrdiff_t>(a) + 1, d.end());
  const ir::Shape lead(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(b));
  const ir::Shape rest(index_shape.begin() + static_cast<std::ptrdiff_t>(b), index_shape.end());  // I...
  // out = lead + pre + rest + post; the gathered axis is rest's last.
  ir::Shape target = lead;
  target.insert(target.end(), pre.begin(), pre.end());
  target.insert(target.end(), rest.begin(), rest.end());
  target.insert(target.end(), post.begin(), post.end());
  const int64_t gathered = static_cast<int64_t>(lead.size() + pre.size() + rest.size()) - 1;
  ir::Shape data_unit = lead;  // lead + pre + [1] * (|rest| - 1) + [N] + post
  data_unit.insert(data_unit.end(), pre.begin(), pre.end());
  data_unit.insert(data_unit.end(), rest.size() - 1, 1);
  data_unit.push_back(d[a]);
  data_unit.insert(data_unit.end(), post.begin(), post.end());
  ir::Shape data_target = target;
  data_target[static_cast<size_t>(gathered)] = d[a];
  Tensor table = ir::broadcast(ir::reshape(data, data_unit), data_target);
  ir::Shape index_unit = lead;  // lead + [1] * |pre| + rest + [1] * |post|
  index_unit.insert(index_unit.end(), pre.size(), 1);
  index_unit.insert(index_unit.end(), rest.begin(), rest.end());
  index_unit.insert(index_unit.end(), post.size(), 1);
  Tensor at = ir::broadcast(ir::reshape(indices, index_unit), target);
  Tensor out = ir::gather(table, at, gathered);
  if (!scalar) return out;
  ir::Shape dropped = target;
  dropped.erase(dropped.begin() + gathered);
  return ir::reshape(out, dropped);
}

// Gather: known indices become slices (few of them, or an arithmetic run such
// as position ids); the rest a gather.
void convert_gather(Context& ctx) {
  ctx.require_inputs(2, 2);
  Tensor data = ctx.input(0);
  if (data.rank() == 0) ctx.fail("the data must have rank >= 1");
  const int64_t axis = ctx.normalize_axis(ctx.attr_int("axis", 0), data.rank(), "attribute 'axis'");
  require_integer_indices(ctx, 1);
  const int64_t d = data.shape()[static_cast<size_t>(axis)];
  ir::Shape shape(data.shape().begin(), data.shape().begin() + axis);
  std::optional<ir::HostTensor> known = ctx.fold(ctx.value(ctx.node().input(1)));
  if (known) {
    const ir::HostTensor& indices = *known;
    shape.insert(shape.end(), indices.type.shape.begin(), indices.type.shape.end());
    shape.insert(shape.end(), data.shape().begin() + axis + 1, data.shape().end());
    std::vector<int64_t> at;
    for (int64_t i : indices.ints) {
      if (i < -d || i >= d) ctx.fail("index " + std::to_string(i) + " is out of range for extent " + std::to_string(d));
      at.push_back(i < 0 ? i + d : i);
    }
    if (at.empty()) return ctx.set_output(0, ir::full(ctx.graph(), shape, 0, data.dtype()));
    const int64_t step = at.size() > 1 ? at[1] - at[0] : 1;
    bool run = step != 0;
    for (size_t k = 1; k < at.size() && run; ++k) run = at[k] - at[k - 1] == step;
    if (run) {
      const int64_t last = at.back();
      Tensor sliced = ir::slice_axis(data, axis, at.front(), step > 0 ? last + 1 : last - 1, step);
      return ctx.set_output(0, ir::reshape(sliced, shape));
    }
    if (at.size() <= 64) {
      std::vector<Tensor> pieces;
      for (int64_t k : at) pieces.push_back(ir::slice_axis(data, axis, k, k + 1));
      Tensor gathered = pieces.size() == 1 ? pieces[0] : ir::concat(pieces, axis);
      return ctx.set_output(0, ir::reshape(gathered, shape));
    }
    // Indices computed from constants alone (T5's relative position buckets: a
    // log, scaled, cast to an integer) are read as the reference computed them:
    // compiled code rounding its own log next to a step could pick another
    // bucket, which would leave every value after it unchecked.
    const std::vector<double> values(at.begin(), at.end());
    Tensor folded = ir::constant(ctx.graph(), values, ir::DType::I64, indices.type.shape);
    return ctx.set_output(0, take(ctx, data, folded, axis, 0));
  }
  ctx.set_output(0, take(ctx, data, ctx.input(1), axis, 0));
}

// GatherElements: out[p] = data[p with `axis` replaced by indices[p]]; the
// indices may be smaller than the data on the other axes (the data is sliced).
void convert_gather_elements(Context& ctx) {
  ctx.require_inputs(2, 2);
  require_integer_indices(ctx, 1);
  Tensor data = ctx.input(0), indices = ctx.input(1);
  const int64_t rank = data.rank();
  if (rank == 0) ctx.fail("the data must have rank >= 1");
  if (indices.rank() != rank) ctx.fail("data and indices must have the same rank");
  const int64_t axis = ctx.normalize_axis(ctx.attr_int("axis", 0), rank, "attribute 'axis'");
  const ir::Shape data_shape = data.shape(), index_shape = indices.shape();
  std::vector<int64_t> start(static_cast<size_t>(rank), 0), stop(data_shape), step(static_cast<size_t>(rank), 1);
  for (int64_t k = 0; k < rank; ++k) {
    if (k == axis) continue;
    if (index_shape[static_cast<size_t>(k)] > data_shape[static_cast<size_t>(k)])
      ctx.fail("the indices are larger than the data on axis " + std::to_string(k));
    stop[static_cast<size_t>(k)] = index_shape[static_cast<size_t>(k)];
  }
  if (stop != data_shape) data = ir::slice(data, start, stop, step);
  ctx.set_output(0, ir::gather(data, indices, axis));
}

// Index tuples [rows..., k] into axes of `extents` (k of them) as one linear
// position each, [rows...]: each component counted from the end when
// negative; a tuple with a component still out of range is -(positions + 1),
// which no count from the end brings into range (a gather reads 0 there, a
// scatter writes nothing).
Tensor linear_positions(Context& ctx, Tensor indices, const ir::Shape& extents) {
  const ir::Shape idx = indices.shape();
  const ir::Shape rows(idx.begin(), idx.end() - 1);
  const int64_t last = static_cast<int64_t>(idx.size()) - 1;
  if (indices.dtype() != ir::DType::I64) indices = ir::cast(indices, ir::DType::I64);
  Tensor linear = ctx.scalar_like(0, ir::DType::I64, rows);
  Tensor inside = ctx.scalar_like(1, ir::DType::Bool, rows);
  int64_t positions = 1;
  for (size_t j = 0; j < extents.size(); ++j) {
    positions *= extents[j];
    Tensor c = ir::reshape(ir::slice_axis(indices, last, static_cast<int64_t>(j), static_cast<int64_t>(j) + 1), rows);
    Tensor zero = ctx.scalar_like(0, c), n = ctx.scalar_like(static_cast<double>(extents[j]), c);
    c = ir::where(ir::lt(c, zero), ir::add(c, n), c);
    inside = ir::where(inside, ir::where(ir::le(zero, c), ir::lt(c, n), ctx.scalar_like(0, ir::DType::Bool, rows)),
                       inside);
    linear = ir::add(ir::mul(linear, n), c);
  }
  return ir::where(inside, linear, ctx.scalar_like(-static_cast<double>(positions) - 1, linear));
}

// GatherND: data [B..., D..., post...] at indices [B..., Q..., k] (b = batch_dims):
// out[b, q, ...] = data[b, indices[b, q, 0], ..., indices[b, q, k-1], ...]. The k
// indexed axes are one flattened axis of the data, read at one linear index;
// a component out of range makes it read 0, as any gather out of range does.
void convert_gather_nd(Context& ctx) {
  ctx.require_inputs(2, 2);
  require_integer_indices(ctx, 1);
  Tensor data = ctx.input(0), indices = ctx.input(1);
  const int64_t batch = ctx.attr_int("batch_dims", 0);
  const ir::Shape d = data.shape(), idx = indices.shape();
  if (batch < 0 || batch >= static_cast<int64_t>(std::min(d.size(), idx.size())))
    ctx.fail("attribute 'batch_dims' = " + std::to_string(batch) + " must be below both ranks");
  for (int64_t k = 0; k < batch; ++k)
    if (d[static_cast<size_t>(k)] != idx[static_cast<size_t>(k)])
      ctx.fail("data and indices differ on batch axis " + std::to_string(k));
  const int64_t depth = idx.back();
  if (depth < 1 || depth > static_cast<int64_t>(d.size()) - batch)
    ctx.fail("the indices' last extent (" + std::to_string(depth) + ") must be in [1, " +
             std::to_string(static_cast<int64_t>(d.size()) - batch) + "]");
  const auto b = static_cast<size_t>(batch), k = static_cast<size_t>(depth);
  // The data with the indexed axes flattened: [B..., prod(D), post...].
  ir::Shape flat(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(b));
  int64_t positions = 1;
  for (size_t j = b; j < b + k; ++j) positions *= d[j];
  flat.push_back(positions);
  flat.insert(flat.end(), d.begin() + static_cast<std::ptrdiff_t>(b + k), d.end());
  const Tensor linear = linear_positions(ctx, indices, ir::Shape(d.begin() + static_cast<std::ptrdiff_t>(b),
                                                                  d.begin() + static_cast<std::ptrdiff_t>(b + k)));
  ctx.set_output(0, take(ctx, ir::reshape(data, flat), linear, batch, batch));
}

// The scatter op of attribute 'reduction' (none, add, mul, max, min).
ir::Op scatter_op(Context& ctx) {
  const std::string reduction = ctx.attr_string("reduction", "none");
  if (reduction == "none") return ir::Op::Scatter;
  if (reduction == "add") return ir::Op::ScatterAdd;
  if (reduction == "mul") return ir::Op::ScatterMul;
  if (reduction == "max") return ir::Op::ScatterMax;
  if (reduction == "min") return ir::Op::ScatterMin;
  ctx.fail("attribute 'reduction' = '" + reduction + "' is none of none, add, mul, max, min");
}

void require_updates_like_data(Context& ctx, const Tensor& data, const Tensor& updates) {
  if (updates.dtype() != data.dtype())
    ctx.fail("the updates (" + std::string(ir::dtype_name(updates.dtype())) + ") and the data (" +
             std::string(ir::dtype_name(data.dtype())) + ") must have one type");
}

// ScatterElements (and the older Scatter): the data with updates[p] written
// at p with `axis` replaced by indices[p] (docs/ops.md: in order, so a
// repeated index takes its last update, or its updates combined in order).
void convert_scatter_elements(Context& ctx) {
  ctx.require_inputs(3, 3);
  require_integer_indices(ctx, 1);
  Tensor data = ctx.input(0), indices = ctx.input(1), updates = ctx.input(2);
  require_updates_like_data(ctx, data, updates);
  if (data.rank() == 0) ctx.fail("the data must have rank >= 1");
  if (indices.rank() != data.rank()) ctx.fail("data and indices must have the same rank");
  if (indices.shape() != updates.shape())
    ctx.fail("indices " + ir::shape_str(indices.shape()) + " and updates " + ir::shape_str(updates.shape()) +
             " must have one shape");
  const int64_t axis = ctx.normalize_axis(ctx.attr_int("axis", 0), data.rank(), "attribute 'axis'");
  for (int64_t k = 0; k < data.rank(); ++k)
    if (k != axis && indices.shape()[static_cast<size_t>(k)] > data.shape()[static_cast<size_t>(k)])
      ctx.fail("the indices are larger than the data on axis " + std::to_string(k));
  const ir::Op op = scatter_op(ctx);
  if (op != ir::Op::Scatter && data.dtype() == ir::DType::Bool) ctx.fail("a reduction needs numbers, not bool data");
  ctx.set_output(0, ir::scatter(data, indices, updates, axis, op));
}

// ScatterND: data [D...] with updates [Q..., D[k:]...] written at indices
// [Q..., k]: each q writes the slice data[indices[q, 0], ..., indices[q, k-1], ...].
// The k indexed axes are one flattened axis of the data and each q one linear
// position on it (a component out of range: a position no count from the end
// brings into range, so nothing is written), its slice one row of [P, R].
void convert_scatter_nd(Context& ctx) {
  ctx.require_inputs(3, 3);
  require_integer_indices(ctx, 1);
  Tensor data = ctx.input(0), indices = ctx.input(1), updates = ctx.input(2);
  require_updates_like_data(ctx, data, updates);
  const ir::Shape d = data.shape(), idx = indices.shape();
  if (d.empty() || idx.empty()) ctx.fail("the data and the indices must have rank >= 1");
  const int64_t depth = idx.back();
  if (depth < 1 || depth > static_cast<int64_t>(d.size()))
    ctx.fail("the indices' last extent (" + std::to_string(depth) + ") must be in [1, " + std::to_string(d.size()) + "]");
  const auto k = static_cast<size_t>(depth);
  ir::Shape want(idx.begin(), idx.end() - 1);  // [Q..., D[k:]...]
  want.insert(want.end(), d.begin() + static_cast<std::ptrdiff_t>(k), d.end());
  if (updates.shape() != want)
    ctx.fail("the updates are " + ir::shape_str(updates.shape()) + "; indices " + ir::shape_str(idx) + " into data " +
             ir::shape_str(d) + " need " + ir::shape_str(want));
  const ir::Op op = scatter_op(ctx);
  if (op != ir::Op::Scatter && data.dtype() == ir::DType::Bool) ctx.fail("a reduction needs numbers, not bool data");
  int64_t positions = 1, row = 1, count = 1;
  for (size_t j = 0; j < k; ++j) positions *= d[j];
  for (size_t j = k; j < d.size(); ++j) row *= d[j];
  for (size_t j = 0; j + 1 < idx.size(); ++j) count *= idx[j];
  const Tensor linear = linear_positions(ctx, ir::reshape(indices, {count, depth}),
                                        ir::Shape(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(k)));
  Tensor at = ir::broadcast(ir::reshape(linear, {count, 1}), {count, row});
  Tensor written = ir::scatter(ir::reshape(data, {positions, row}), at, ir::reshape(updates, {count, row}), 0, op);
  ctx.set_output(0, ir::reshape(written, d));
}

}  // namespace

void add_gather_converters(ConverterTable& t) {
  t["Gather"] = convert_gather;
  t["GatherElements"] = convert_gather_elements;
  t["GatherND"] = convert_gather_nd;
  t["Scatter"] = convert_scatter_elements;
  t["ScatterElements"] = convert_scatter_elements;
  t["ScatterND"] = convert_scatter_nd;
}

}  // namespace smelt::importer
