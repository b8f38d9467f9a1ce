#include "import/constant_views.h"

#include <algorithm>

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
  const double* from_values = node.attrs.values.data();
  std::vector<double> values(static_cast<size_t>(count));
  if (perm.size() == 2 && perm[0] == 1) {
    // A matrix transpose (Gemm transB, a Linear weight) in 64 x 64 tiles: the
    // element-by-element walk read a column at a time and took 1.8 s of GPT-2's
    // compile for its 50257 x 768 tied embedding (2026-11-29).
    const int64_t rows = shape[0], cols = shape[1];  // x's; the output is cols x rows
    constexpr int64_t kTile = 64;
    for (int64_t r0 = 0; r0 < rows; r0 += kTile)
      for (int64_t c0 = 0; c0 < cols; c0 += kTile)
        for (int64_t c = c0; c < std::min(cols, c0 + kTile); ++c)
          for (int64_t r = r0; r < std::min(rows, r0 + kTile); ++r)
            values[static_cast<size_t>(c * rows + r)] = from_values[r * cols + c];
    return ir::constant(*x.graph, std::move(values), x.dtype(), out_shape);
  }
  // Row-major strides of x, taken in the output's axis order.
  std::vector<int64_t> stride(shape.size(), 1);
  for (size_t a = shape.size(); a-- > 1;) stride[a - 1] = stride[a] * shape[a];
  std::vector<int64_t> index(perm.size(), 0);
  for (int64_t flat = 0; flat < count; ++flat) {
    int64_t from = 0;
    for (size_t a = 0; a < perm.size(); ++a) from += index[a] * stride[static_cast<size_t>(perm[a])];
    values[static_cast<size_t>(flat)] = from_values[from];
    for (size_t a = perm.size(); a-- > 0;) {  // the output's next index, row-major
      if (++index[a] < out_shape[a]) break;
      index[a] = 0;
    }
  }
  return ir::constant(*x.graph, std::move(values), x.dtype(), out_shape);
}

}  // namespace smelt::importer
