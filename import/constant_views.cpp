#include "import/constant_views.h"

#include "ir/graph.h"

namespace importer {

ir::Tensor permute_folding_constants(ir::Tensor x, const std::vector<int64_t>& perm) {
  const ir::Node& node = x.graph->node(x.id);
  const ir::Shape& shape = x.shape();
  const int64_t count = ir::numel(shape);
  std::vector<bool> seen(shape.size(), false);
  bool valid = perm.size() == shape.size();
  for (int64_t a : perm) {
    valid = valid && a >= 0 && a < static_cast<int64_t>(shape.size()) && !seen[static_cast<size_t>(a)];
    if (valid) seen[static_cast<size_t>(a)] = true;
  }
  // Anything else (a bad perm among it) is ir::permute's to build or reject.
  if (!valid || node.op != ir::Op::Constant || static_cast<int64_t>(node.attrs.values.size()) != count)
    return ir::permute(x, perm);
  ir::Shape out_shape(perm.size());
  for (size_t a = 0; a < perm.size(); ++a) out_shape[a] = shape[static_cast<size_t>(perm[a])];
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
  return ir::constant(*x.graph, std::move(values), x.dtype(), std::move(out_shape));
}

}  // namespace importer
