#include "import/constant_views.h"

#include "ir/graph.h"

namespace smelt::importer {

ir::Tensor permute_folding_constants(ir::Tensor x, const std::vector<int64_t>& perm) {
  // ir::permute checks perm and gives the shape; where x is a constant the
  // permute is left unused (the importer prunes it) for a permuted copy.
  const ir::Tensor permuted = ir::permute(x, perm);
  const ir::Node& node = x.graph->node(x.id);
  const ir::Shape& shape = x.shape();
  const int64_t count = ir::numel(shape);
  if (node.op != ir::Op::Constant || static_cast<int64_t>(node.attrs.values.size()) != count) return permuted;
  const ir::Shape& out_shape = permuted.shape();
  // Row-major strides of x, taken in the output's axis order.
  std::vector<int64_t> stride(shape.size(), 1);
  for (size_t a = shape.size(); a-- > 1;) stride[a - 1] = stride[a] * shape[a];
  std::vector<double> values(static_cast<size_t>(count));
  std::vector<int64_t> index(perm.size(), 0);
  for (int64_t flat = 0; flat < count; ++flat) {
    int64_t from = 0;
    for (size_t a = 0; a < perm.size(); ++a) from += index[a] * stride[static_cast<size_t>(perm[a])];
    values[static_cast<size_t>(flat)] = node.attrs.values[static_cast<size_t>(from)];
    for (size_t a = perm.size(); a-- > 0;) {  // the output's next index, row-major
      if (++index[a] < out_shape[a]) break;
      index[a] = 0;
    }
  }
  return ir::constant(*x.graph, std::move(values), x.dtype(), out_shape);
}

}  // namespace smelt::importer
