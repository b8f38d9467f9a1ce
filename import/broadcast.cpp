#include "import/broadcast.h"

#include <algorithm>

namespace smelt::importer {

ir::Shape broadcast_shapes(const Context& ctx, const ir::Shape& a, const ir::Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  ir::Shape out(rank);
  for (size_t k = 0; k < rank; ++k) {
    const int64_t da = k < rank - a.size() ? 1 : a[k - (rank - a.size())];
    const int64_t db = k < rank - b.size() ? 1 : b[k - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      ctx.fail("shapes " + ir::shape_str(a) + " and " + ir::shape_str(b) + " do not broadcast");
    out[k] = da == 1 ? db : da;
  }
  return out;
}

ir::Tensor broadcast_to(ir::Tensor x, const ir::Shape& shape) {
  if (x.shape() == shape) return x;
  return ir::broadcast(x, shape);
}

std::vector<ir::Tensor> broadcast_together(const Context& ctx, std::vector<ir::Tensor> xs) {
  ir::Shape shape = xs.at(0).shape();
  for (const ir::Tensor& x : xs) shape = broadcast_shapes(ctx, shape, x.shape());
  for (ir::Tensor& x : xs) x = broadcast_to(x, shape);
  return xs;
}

}  // namespace smelt::importer
