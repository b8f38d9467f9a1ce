#include "fusion/kernelize.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <limits>
#include <optional>
#include <queue>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "kernel/constant_folding.h"
#include "kernel/kernel_builder.h"
#include "kernel/kernel_reindex.h"

namespace smelt::fusion {

using namespace ir;      // graphs in
using namespace kernel;  // kernels out
namespace {

// Thrown while a kernel is emitted when an anchor would be inlined illegally
// (or a value's index grows too deep); kernelize materializes the value and
// starts over.
struct MustMaterialize {
  ValueId value;
};

using Index = std::vector<IndexRef>;

// Deeper index expressions are cut by storing the value (KernelAssembler::enter).
constexpr size_t kMaxIndexDepth = 256;
// So are kernels of more loads: LLVM's alias sets collapse to "everything may
// alias" past 250 pointers in a loop and the loop vectorizer gives up (a sum
// of sines of 352 inputs ran scalar, 39x slower than predicted); raising that
// limit made LLVM quadratic (2,000 loads: 62 s). A root's own operands are
// loaded whatever the count (a root is stored already), and horizontal groups
// keep their members' loaded buffers within the bound too.
constexpr size_t kMaxKernelLoads = 192;
using Words = std::vector<int64_t>;

struct WordsHash {
  size_t operator()(const Words& w) const {
    size_t h = w.size();
    for (int64_t x : w) h = (h ^ static_cast<size_t>(x)) * 0x100000001b3ull + 0x9e3779b97f4a7c15ull;
    return h;
  }
};

int64_t bits_of(double v) {
  int64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

bool is_anchor(Op op) { return is_anchor_class(op_class(op)); }
bool is_scatter(Op op) { return op_class(op) == OpClass::Scatter; }

// A kernel's iteration space: its root's shape; a scatter's, its updates'.
Shape kernel_space(const Graph& g, ValueId root) {
  const Node& n = g.node(root);
  return is_scatter(n.op) ? g.type(n.operands[2]).shape : g.type(root).shape;
}

bool is_uniform(const std::vector<double>& values) {
  for (double v : values)
    if (bits_of(v) != bits_of(values.front())) return false;
  return true;
}

std::string value_name(const Graph& g, ValueId v) {
  const std::string& name = g.node(v).name;
  if (!name.empty()) return name;
  std::string numbered = std::to_string(v);  // "%" + to_string at -O3: a false -Wrestrict in GCC 12
  numbered.insert(numbered.begin(), '%');
  return numbered;
}

// Buffers and per-value facts shared by the kernels of one program.
struct ProgramState {
  const Graph& g;
  const std::vector<bool>& materialized;
  KernelProgram program;
  std::vector<int> buffer_of;                // what consumers load: input or materialized value
  std::vector<std::vector<int>> stores;      // by root value: the buffers its kernel writes
  std::unordered_map<ValueId, int> literal;  // constant literal buffers, made on first use

  ProgramState(const Graph& graph, const std::vector<bool>& mat)
      : g(graph), materialized(mat), buffer_of(graph.size(), -1), stores(graph.size()) {}
};

// Emits the expression DAGs of one kernel: each root over the kernel's space,
// its inlined region recomputed behind it.
class KernelAssembler {
 public:
  KernelAssembler(ProgramState& state, Kernel& kernel) : s_(state), k_(kernel), pool_(kernel.indices) {}

  void emit_root(ValueId root) {
    emitted_roots_.insert(root);
    Index identity;
    for (size_t i = 0; i < k_.space.size(); ++i) identity.push_back(pool_.var(static_cast<int>(i)));
    current_root_ = root;
    if (is_scatter(node(root).op)) {
      emit_scatter_root(root, identity);
      current_root_ = -1;
      return;
    }
    const int e = value(root, identity, kNoIndex, 0);
    current_root_ = -1;
    for (int buffer : s_.stores[root]) k_.outputs.push_back({buffer, e});
  }

  // Materialized values (not inputs) this kernel reads (a scatter: its data too).
  const std::vector<ValueId>& loaded() const { return loaded_; }
  // After the last root: a kernel of convolutions takes its contraction form,
  // and a kernel's short rows that every load reads as one are merged
  // (kernel/kernel_reindex.h); no root can be emitted into it after that.
  void finish() {
    if (conv_layout_) to_contraction_form(k_, *conv_layout_);
    merge_contiguous_rows(k_, s_.program.buffers);
  }
  // By position in loaded(): every load of that value is at its own output
  // index, unguarded and outside any reduction body, so the value could be
  // computed in this kernel and stored from here instead of loaded.
  const std::vector<bool>& loaded_at_own_index() const { return at_own_index_; }

 private:
  const Node& node(ValueId v) const { return s_.g.node(v); }
  const Shape& shape(ValueId v) const { return s_.g.type(v).shape; }
  DType dtype(ValueId v) const { return s_.g.type(v).dtype; }
  // A value with a buffer is loaded, unless this kernel computes and stores it.
  bool in_buffer(ValueId v) const {
    return s_.buffer_of[v] >= 0 && !emitted_roots_.contains(v);
  }

  // A value that is a load of a buffer once its views are composed.
  bool is_view_of_buffer(ValueId v) const {
    for (;;) {
      if (in_buffer(v)) return true;
      const Node& n = node(v);
      if (n.op == Op::Constant) return !is_uniform(n.attrs.values);
      if (n.op != Op::Reshape && n.op != Op::Permute && n.op != Op::Slice && n.op != Op::Broadcast) return false;
      v = n.operands[0];
    }
  }

  // One evaluation of a value: v at `idx`; loads are valid only where
  // `guard` holds and read `pad` elsewhere (a pad of a plain buffer is a
  // masked load).
  struct Request {
    ValueId v;
    Index idx;
    IndexRef guard;
    double pad;
  };
  // A value being computed, waiting for the operand values it requested.
  struct Frame {
    Request at;
    Words key;                  // of memo_
    int stage = 0;              // 0: nothing requested yet; then what the op's step means by it
    std::vector<int> operands;  // elementwise operands and matmul's lhs, as they arrive
    IndexRef mask = kNoIndex;   // pad's mask, the mask of concat's current branch
    bool wrap = false;          // pad: the operand is computed, its result masked
    size_t next = 0;            // concat: operands left to visit, from the last back
    int result = -1;            // concat: the chain of wheres so far
    IndexRef reduction_var = kNoIndex;  // matmul: the reduction variable
    std::vector<int64_t> offsets;       // concat: each operand's first index on the axis
  };

  // v evaluated at `idx` (Request). Iterative, with an explicit stack of
  // frames: a chain of 100,000 ops is as deep as one, never the C++ stack.
  int value(ValueId v, const Index& idx, IndexRef guard, double pad) {
    std::vector<Frame> frames;
    std::optional<Request> request = Request{v, idx, guard, pad};
    int result = -1;
    for (;;) {
      if (request) {
        const std::optional<int> known = enter(*request, frames);
        request.reset();
        if (known) result = *known;
      }
      if (frames.empty()) return result;
      request = step(frames.back(), result);
      if (request) continue;
      result = frames.back().result;
      memo_.emplace(std::move(frames.back().key), result);
      frames.pop_back();
    }
  }

  // The node of a request known without operands (a load, a source, a memo
  // hit); otherwise pushes a frame to compute it and returns nullopt.
  std::optional<int> enter(const Request& r, std::vector<Frame>& frames) {
    const ValueId v = r.v;
    if (in_buffer(v)) {
      if (node(v).op != Op::Input) {
        const bool own = r.guard == kNoIndex && reduction_depth_ == 0 && shape(v) == k_.space &&
                         at_own_output_index(r.idx, shape(v));
        const auto [at, first] = loaded_position_.try_emplace(v, loaded_.size());
        if (first) {
          loaded_.push_back(v);
          at_own_index_.push_back(own);
        } else if (!own) {
          at_own_index_[at->second] = false;
        }
      }
      const size_t known_nodes = k_.exprs.size();
      const int loaded = load(s_.buffer_of[v], r.idx, dtype(v), r.guard, r.pad);
      // One load too many: the value that reads it is stored (its own
      // kernel loads its part), unless only the root reads it.
      if (k_.exprs.size() > known_nodes && ++loads_ > kMaxKernelLoads && !frames.empty() &&
          frames.back().at.v != current_root_ && !emitted_roots_.contains(frames.back().at.v))
        throw MustMaterialize{frames.back().at.v};
      return loaded;
    }
    // A chain of thousands of pads and slices composes ever deeper indices
    // and masks: past kMaxIndexDepth the value is stored and read back at a
    // fresh index, so every walk of an index expression stays shallow.
    if (index_depth(r) > kMaxIndexDepth && !emitted_roots_.contains(v)) throw MustMaterialize{v};
    if (is_anchor(node(v).op) && v != current_root_ &&
        (reduction_depth_ > 0 || scatter_kernel_ || !at_own_output_index(r.idx, shape(v))))
      throw MustMaterialize{v};
    if (is_scatter(node(v).op) && v != current_root_) throw std::logic_error("kernelize: a scatter was inlined");
    Words key{v, r.guard, bits_of(r.pad)};
    key.insert(key.end(), r.idx.begin(), r.idx.end());
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    if (const std::optional<int> e = source(r)) {
      memo_.emplace(std::move(key), *e);
      return e;
    }
    Frame& f = frames.emplace_back();
    f.at = r;
    f.key = std::move(key);
    return std::nullopt;
  }

  size_t index_depth(const Request& r) const {
    uint32_t depth = pool_.depth(r.guard);
    for (IndexRef i : r.idx) depth = std::max(depth, pool_.depth(i));
    return depth;
  }

  // Ops without operands to evaluate.
  std::optional<int> source(const Request& r) {
    const Node& n = node(r.v);
    switch (n.op) {
      case Op::Input: return load(s_.buffer_of[r.v], r.idx, dtype(r.v), r.guard, r.pad);
      case Op::Constant:
        // An empty literal is uniform too; its value is never read.
        if (is_uniform(n.attrs.values)) return constant(n.attrs.values.empty() ? 0 : n.attrs.values.front(), dtype(r.v));
        return load(literal_buffer(r.v), r.idx, dtype(r.v), r.guard, r.pad);
      case Op::Full: return constant(n.attrs.values.front(), dtype(r.v));
      case Op::Iota: return index_value(r.idx[static_cast<size_t>(n.attrs.axis)], dtype(r.v));
      default: return std::nullopt;
    }
  }

  // Advances the computation of `f`, given the node of the operand it last
  // requested (`operand`; meaningless at stage 0): the next operand to
  // evaluate, or nullopt with f.result set.
  std::optional<Request> step(Frame& f, int operand) {
    const ValueId v = f.at.v;
    const Index& idx = f.at.idx;
    const IndexRef guard = f.at.guard;
    const Node& n = node(v);
    const int stage = f.stage++;
    switch (n.op) {
      case Op::Reshape:
      case Op::Permute:
      case Op::Slice:
      case Op::Broadcast:
        if (stage > 0) break;
        return Request{n.operands[0], view_index(v, idx), guard, f.at.pad};
      case Op::Pad: return pad_step(f, stage, operand);
      case Op::Gather: return gather_step(f, stage, operand);
      case Op::Concat: return concat_step(f, stage, operand);
      case Op::ReduceSum:
      case Op::ReduceMax:
      case Op::Matmul:
      case Op::Conv: return anchor_step(f, stage, operand);
      default:  // elementwise
        if (stage > 0) f.operands.push_back(operand);
        if (f.operands.size() < n.operands.size()) return Request{n.operands[f.operands.size()], idx, guard, 0};
        f.result = op(n.op, std::move(f.operands), dtype(v));
        return std::nullopt;
    }
    f.result = operand;  // a view: its operand's node at the composed index
    return std::nullopt;
  }

  // The index of a view's operand.
  Index view_index(ValueId v, const Index& idx) {
    const Node& n = node(v);
    switch (n.op) {
      case Op::Reshape: return reshape_index(shape(n.operands[0]), shape(v), idx);
      case Op::Permute: {
        Index in(idx.size());
        for (size_t k = 0; k < idx.size(); ++k) in[static_cast<size_t>(n.attrs.perm[k])] = idx[k];
        return in;
      }
      case Op::Slice: {
        Index in(idx.size());
        for (size_t k = 0; k < idx.size(); ++k)
          in[k] = pool_.add(pool_.constant(n.attrs.start[k]), pool_.mul(idx[k], pool_.constant(n.attrs.step[k])));
        return in;
      }
      case Op::Broadcast: {
        const Shape& from = shape(n.operands[0]);
        const size_t lead = idx.size() - from.size();
        Index in(from.size());
        for (size_t j = 0; j < from.size(); ++j) in[j] = from[j] == 1 ? pool_.constant(0) : idx[j + lead];
        return in;
      }
      default: throw std::logic_error("view_index: not a view");
    }
  }

  // Stage 0 requests the operand; stage 1 wraps a computed one in its mask.
  std::optional<Request> pad_step(Frame& f, int stage, int operand) {
    const ValueId v = f.at.v;
    const Node& n = node(v);
    const double pad = n.attrs.values.front();
    if (stage > 0) {
      // A computed value: outside the mask the result is the pad value, never
      // the computation at a shifted index (luminal's slice→cos→pad).
      f.result = f.wrap ? where(f.mask, operand, constant(pad, dtype(v)), dtype(v)) : operand;
      return std::nullopt;
    }
    const Index& idx = f.at.idx;
    const ValueId x = n.operands[0];
    const Shape& in_shape = shape(x);
    Index inner(idx.size());
    IndexRef mask = kNoIndex;
    for (size_t k = 0; k < idx.size(); ++k) {
      const int64_t lo = n.attrs.lo[k], hi = n.attrs.hi[k];
      inner[k] = pool_.sub(idx[k], pool_.constant(lo));
      if (lo > 0) mask = pool_.logical_and(mask, pool_.le(pool_.constant(lo), idx[k]));
      if (hi > 0) mask = pool_.logical_and(mask, pool_.lt(idx[k], pool_.constant(lo + in_shape[k])));
    }
    if (pool_.is_const(mask, 1)) mask = kNoIndex;
    f.mask = mask;
    if (pool_.is_const(mask, 0)) {  // every element of the request is padding
      f.result = constant(pad, dtype(v));
      return std::nullopt;
    }
    if (mask == kNoIndex) return Request{x, std::move(inner), f.at.guard, f.at.pad};
    const IndexRef guard = pool_.logical_and(f.at.guard, mask);
    // A pad of a plain buffer is a masked load.
    f.wrap = !is_view_of_buffer(x);
    return Request{x, std::move(inner), guard, f.wrap ? 0 : pad};
  }

  // gather(data, indices): stage 0 requests the index at the element; stage 1
  // reads the data there, the gathered axis at the loaded index (an indirect
  // variable, negative counting from the end), masked to the axis's extent:
  // an index out of range reads 0 (docs/ops.md). A computed data operand is
  // masked after it is computed, as pad does.
  std::optional<Request> gather_step(Frame& f, int stage, int operand) {
    const ValueId v = f.at.v;
    const Node& n = node(v);
    if (stage == 0) return Request{n.operands[1], f.at.idx, f.at.guard, 0};
    if (stage == 2) {
      f.result = f.wrap ? where(f.mask, operand, constant(0, dtype(v)), dtype(v)) : operand;
      return std::nullopt;
    }
    const ValueId data = n.operands[0];
    const auto axis = static_cast<size_t>(n.attrs.axis);
    const IndexRef extent = pool_.constant(shape(data)[axis]);
    const IndexRef loaded = indirect_var(operand, v);
    const IndexRef at = pool_.select(pool_.lt(loaded, pool_.constant(0)), pool_.add(loaded, extent), loaded);
    f.mask = pool_.logical_and(pool_.le(pool_.constant(0), at), pool_.lt(at, extent));
    Index inner = f.at.idx;
    inner[axis] = at;
    f.wrap = !is_view_of_buffer(data) || f.at.pad != 0;
    return Request{data, std::move(inner), pool_.logical_and(f.at.guard, f.mask), 0};
  }

  // scatter(data, indices, updates) over the updates' space (kernel.h,
  // KernelOutput): each element's index is an indirect variable, negative
  // counting from the end; the position written is the row-major element with
  // the scattered axis there, -1 where the index is out of range (nothing
  // written). A combining scatter loads the element there from its own output
  // and combines the update in. The data (materialized: legal_request) is the
  // copy the output starts from. Anchors in the updates or indices are stored
  // (the kernel runs in order, with no reduction domain).
  void emit_scatter_root(ValueId root, const Index& idx) {
    const Node& n = node(root);
    const ValueId data = n.operands[0];
    scatter_kernel_ = true;
    const int index_node = value(n.operands[1], idx, kNoIndex, 0);
    const int update = value(n.operands[2], idx, kNoIndex, 0);
    const auto axis = static_cast<size_t>(n.attrs.axis);
    const Shape& out_shape = shape(root);
    const IndexRef extent = pool_.constant(out_shape[axis]);
    const IndexRef loaded = indirect_var(index_node, root);
    const IndexRef at_axis = pool_.select(pool_.lt(loaded, pool_.constant(0)), pool_.add(loaded, extent), loaded);
    const IndexRef valid = pool_.logical_and(pool_.le(pool_.constant(0), at_axis), pool_.lt(at_axis, extent));
    Index at = idx;
    at[axis] = at_axis;
    IndexRef linear = pool_.constant(0);
    for (size_t k = 0; k < at.size(); ++k) linear = pool_.add(pool_.mul(linear, pool_.constant(out_shape[k])), at[k]);
    const int position = index_value(pool_.select(valid, linear, pool_.constant(-1)), DType::I64);
    if (node(data).op != Op::Input && loaded_position_.try_emplace(data, loaded_.size()).second) {
      loaded_.push_back(data);
      at_own_index_.push_back(false);
    }
    for (int buffer : s_.stores[root]) {
      int e = update;
      if (const std::optional<Op> combine = scatter_combine(n.op))
        e = op(*combine, {load(buffer, at, dtype(root), valid, 0), update}, dtype(root));
      KernelOutput out{buffer, e};
      out.scatter_at = position;
      out.scatter_initial = s_.buffer_of[data];
      k_.outputs.push_back(out);
    }
  }

  // The indirect variable whose value is node `node` (kernel.h), for gather
  // `v`; past the variables a kernel may have, v is stored instead.
  IndexRef indirect_var(int node, ValueId v) {
    auto it = std::find(k_.indirect.begin(), k_.indirect.end(), node);
    if (it == k_.indirect.end()) {
      if (k_.indirect.size() >= static_cast<size_t>(63 - kIndirectVarBase)) throw MustMaterialize{v};
      it = k_.indirect.insert(k_.indirect.end(), node);
    }
    return pool_.var(kIndirectVarBase + static_cast<int>(it - k_.indirect.begin()));
  }

  // A chain of wheres from the last operand back; each branch's loads are
  // guarded by its own mask.
  std::optional<Request> concat_step(Frame& f, int stage, int operand) {
    const ValueId v = f.at.v;
    const Node& n = node(v);
    const size_t axis = static_cast<size_t>(n.attrs.axis);
    const Index& idx = f.at.idx;
    if (stage == 0) {
      int64_t offset = 0;
      for (ValueId o : n.operands) {
        f.offsets.push_back(offset);
        offset += shape(o)[axis];
      }
      f.next = n.operands.size();
    } else {
      f.result = f.result < 0 ? operand : where(f.mask, operand, f.result, dtype(v));
    }
    const int64_t total = shape(v)[axis];
    while (f.next > 0) {
      const size_t j = --f.next;
      const int64_t begin = f.offsets[j], end = f.offsets[j] + shape(n.operands[j])[axis];
      if (begin == end) continue;
      Index inner = idx;
      inner[axis] = pool_.sub(idx[axis], pool_.constant(begin));
      IndexRef mask = kNoIndex;
      if (begin > 0) mask = pool_.logical_and(mask, pool_.le(pool_.constant(begin), idx[axis]));
      if (end < total) mask = pool_.logical_and(mask, pool_.lt(idx[axis], pool_.constant(end)));
      // A branch whose mask folded to false (the index on the axis is a
      // constant outside it: a slice of one member of a batched concat) is
      // never taken: not visited, so the kernel does not read its buffers.
      if (pool_.is_const(mask, 0)) continue;
      f.mask = mask;
      return Request{n.operands[j], std::move(inner), pool_.logical_and(f.at.guard, mask), 0};
    }
    if (f.result < 0) f.result = constant(0, dtype(v));  // every operand empty: no element exists
    return std::nullopt;
  }

  // A reduction, matmul or conv at its own output index: its body runs over
  // the kernel's one reduction domain. Stage 0 requests the body's (or the
  // first factor's) operand; a contraction's stage 1 its second factor.
  std::optional<Request> anchor_step(Frame& f, int stage, int operand) {
    const ValueId v = f.at.v;
    const Node& n = node(v);
    const Index& idx = f.at.idx;
    const bool contraction = op_class(n.op) == OpClass::Contraction;
    if (stage == 0) {
      const int first_reduction_var = static_cast<int>(k_.space.size());
      Shape domain;
      std::vector<int64_t> axes = n.attrs.axes;
      std::sort(axes.begin(), axes.end());
      if (n.op == Op::Matmul) {
        domain = {shape(n.operands[0]).back()};
      } else if (n.op == Op::Conv) {
        const Shape& w = shape(n.operands[1]);
        domain.assign(w.begin() + 1, w.end());  // channels of a group, kernel positions
      } else {
        for (int64_t a : axes) domain.push_back(shape(n.operands[0])[static_cast<size_t>(a)]);
      }
      if (k_.reduction.empty()) k_.reduction = domain;
      else if (k_.reduction != domain) throw MustMaterialize{v};
      ++reduction_depth_;
      if (n.op == Op::Matmul) {
        f.reduction_var = pool_.var(first_reduction_var);
        return Request{n.operands[0], matmul_operand_index(shape(n.operands[0]), true, idx, f.reduction_var),
                       f.at.guard, 0};
      }
      if (n.op == Op::Conv) {
        note_conv(v);
        Index in;
        f.mask = conv_input_index(v, idx, first_reduction_var, in);
        // Padding reads zeros: a masked load of a buffer, a computed input
        // masked after it is computed (its value at a padded position is not 0).
        f.wrap = f.mask != kNoIndex && !is_view_of_buffer(n.operands[0]);
        return Request{n.operands[0], std::move(in), pool_.logical_and(f.at.guard, f.mask), 0};
      }
      const Shape& in_shape = shape(n.operands[0]);
      Index in(in_shape.size());
      size_t out_axis = 0;
      int next_reduction_var = first_reduction_var;
      for (size_t a = 0; a < in_shape.size(); ++a) {
        if (std::binary_search(axes.begin(), axes.end(), static_cast<int64_t>(a))) {
          in[a] = pool_.var(next_reduction_var++);
          if (n.attrs.keepdims) ++out_axis;
        } else {
          in[a] = idx[out_axis++];
        }
      }
      return Request{n.operands[0], std::move(in), f.at.guard, 0};
    }
    int body = operand;
    if (contraction) {
      if (stage == 1) {
        f.operands.push_back(f.wrap ? where(f.mask, operand, constant(0, dtype(v)), dtype(v)) : operand);
        if (n.op == Op::Conv) return Request{n.operands[1], conv_weight_index(idx), f.at.guard, 0};
        return Request{n.operands[1], matmul_operand_index(shape(n.operands[1]), false, idx, f.reduction_var),
                       f.at.guard, 0};
      }
      // Half-precision products are formed in f32, as tensor hardware does: a
      // bf16/f16 product rounded back to 16 bits before the sum loses what the
      // reference (and any real gemm) keeps.
      const DType t = dtype(v);
      const DType product = t == DType::F16 || t == DType::BF16 ? DType::F32 : t;
      body = op(Op::Mul, {f.operands[0], operand}, product);
    }
    --reduction_depth_;
    f.result = intern(make_reduce(contraction ? Op::ReduceSum : n.op, body, dtype(v), contraction));
    return std::nullopt;
  }

  // conv's input index at output index `idx` = [n, m, out...] and reduction
  // variables [c, kernel...] from `first_var`: [n, group·cg + c, out·stride +
  // kernel·dilation - lo...]. Returns the mask of positions inside the input
  // (kNoIndex where no padding is read).
  IndexRef conv_input_index(ValueId v, const Index& idx, int first_var, Index& in) {
    const Node& n = node(v);
    const Attrs& a = n.attrs;
    const Shape &x = shape(n.operands[0]), &w = shape(n.operands[1]), &out = shape(v);
    const int64_t maps_per_group = w[0] / a.groups, cg = w[1];
    in.assign(x.size(), kNoIndex);
    in[0] = idx[0];
    const IndexRef c = pool_.var(first_var);
    in[1] = a.groups == 1 ? c
                          : pool_.add(pool_.mul(pool_.floor_div(idx[1], pool_.constant(maps_per_group)), pool_.constant(cg)), c);
    IndexRef mask = kNoIndex;
    for (size_t i = 0; i + 2 < x.size(); ++i) {
      const IndexRef at = pool_.sub(pool_.add(pool_.mul(idx[i + 2], pool_.constant(a.strides[i])),
                                              pool_.mul(pool_.var(first_var + 1 + static_cast<int>(i)),
                                                        pool_.constant(a.dilations[i]))),
                                    pool_.constant(a.lo[i]));
      in[i + 2] = at;
      const int64_t last = (out[i + 2] - 1) * a.strides[i] + (w[i + 2] - 1) * a.dilations[i] - a.lo[i];
      if (a.lo[i] > 0) mask = pool_.logical_and(mask, pool_.le(pool_.constant(0), at));
      if (last >= x[i + 2]) mask = pool_.logical_and(mask, pool_.lt(at, pool_.constant(x[i + 2])));
    }
    return mask;
  }

  // conv's weight index: [m, c, kernel...].
  Index conv_weight_index(const Index& idx) {
    const int first_var = static_cast<int>(k_.space.size());
    Index in{idx[1]};
    for (size_t r = 0; r < k_.reduction.size(); ++r) in.push_back(pool_.var(first_var + static_cast<int>(r)));
    return in;
  }

  // The kernel's convolutions, for its contraction form (conv_layout()).
  void note_conv(ValueId v) {
    const ConvLayout layout{node(v).attrs.groups, shape(v)};
    if (!conv_layout_) conv_layout_ = layout;
    else if (!(*conv_layout_ == layout)) conv_layout_->groups = 0;  // mixed: keep the plain form
  }

  // The index of matmul's operand of shape `s` for a[..., m, r] * b[..., r, n],
  // batch axes broadcast numpy-style.
  Index matmul_operand_index(const Shape& s, bool is_lhs, const Index& idx, IndexRef r) {
    const size_t out_rank = idx.size();
    const size_t rank = s.size();
    Index in(rank);
    for (size_t j = 0; j + 2 < rank; ++j) in[j] = s[j] == 1 ? pool_.constant(0) : idx[j + out_rank - rank];
    in[rank - 2] = is_lhs ? idx[out_rank - 2] : r;
    in[rank - 1] = is_lhs ? r : idx[out_rank - 1];
    return in;
  }

  // Identity on the non-unit axes: each element of the anchor is evaluated
  // once, where the kernel's iteration space puts it.
  bool at_own_output_index(const Index& idx, const Shape& s) {
    if (numel(s) != numel(k_.space)) return false;
    size_t next = 0;
    for (size_t a = 0; a < s.size(); ++a) {
      if (s[a] == 1) continue;
      while (next < k_.space.size() && k_.space[next] == 1) ++next;
      if (next == k_.space.size() || k_.space[next] != s[a] || idx[a] != pool_.var(static_cast<int>(next)))
        return false;
      ++next;
    }
    return true;
  }

  // Row-major linearize / delinearize, per group of axes whose extents
  // multiply to the same number (size-1 axes are index 0 and drop out), so
  // reshapes that only split or merge axes stay small.
  Index reshape_index(const Shape& in_shape, const Shape& out_shape, const Index& idx) {
    Index in(in_shape.size(), pool_.constant(0));
    if (numel(in_shape) == 0) return in;
    std::vector<size_t> outs, ins;
    for (size_t t = 0; t < out_shape.size(); ++t)
      if (out_shape[t] != 1) outs.push_back(t);
    for (size_t s = 0; s < in_shape.size(); ++s)
      if (in_shape[s] != 1) ins.push_back(s);
    size_t oi = 0, ii = 0;
    while (oi < outs.size() && ii < ins.size()) {
      std::vector<size_t> group_out{outs[oi++]}, group_in{ins[ii++]};
      int64_t out_product = out_shape[group_out[0]], in_product = in_shape[group_in[0]];
      while (out_product != in_product) {
        if (out_product < in_product) {
          if (oi == outs.size()) throw std::logic_error("reshape: extents do not match");
          group_out.push_back(outs[oi]);
          out_product *= out_shape[outs[oi++]];
        } else {
          if (ii == ins.size()) throw std::logic_error("reshape: extents do not match");
          group_in.push_back(ins[ii]);
          in_product *= in_shape[ins[ii++]];
        }
      }
      IndexRef linear = idx[group_out[0]];
      for (size_t t = 1; t < group_out.size(); ++t)
        linear = pool_.add(pool_.mul(linear, pool_.constant(out_shape[group_out[t]])), idx[group_out[t]]);
      int64_t stride = in_product;
      for (size_t s = 0; s < group_in.size(); ++s) {
        stride /= in_shape[group_in[s]];
        IndexRef e = pool_.floor_div(linear, pool_.constant(stride));
        if (s > 0) e = pool_.mod(e, pool_.constant(in_shape[group_in[s]]));
        in[group_in[s]] = e;
      }
    }
    return in;
  }

  int literal_buffer(ValueId v) {
    auto it = s_.literal.find(v);
    if (it != s_.literal.end()) return it->second;
    const int b = add_constant_buffer(s_.program, value_name(s_.g, v), s_.g.type(v), node(v).attrs.values);
    s_.literal.emplace(v, b);
    return b;
  }

  // --- nodes, hash-consed: equal nodes of one kernel are one node (CSE).
  int load(int buffer, const Index& idx, DType type, IndexRef guard, double pad) {
    // A guard folded to a constant (kernel/index_expr.h): always or never read.
    if (pool_.is_const(guard, 0)) return constant(pad, type);
    if (pool_.is_const(guard, 1)) guard = kNoIndex;
    KernelExpr e = make_load(buffer, idx, type, guard, pad);
    e.operands = indirect_operands(k_, e.index, e.valid);
    return intern(std::move(e));
  }
  int constant(double v, DType type) { return intern(make_constant(v, type)); }
  int index_value(IndexRef index, DType type) {
    KernelExpr e = make_index_value(index, type);
    e.operands = indirect_operands(k_, e.index, kNoIndex);
    return intern(std::move(e));
  }
  int op(Op o, std::vector<int> operands, DType type) { return intern(make_elementwise(o, std::move(operands), type)); }
  // where(mask, if_true, if_false); a mask that always holds (kNoIndex) or
  // folded to a constant (kernel/index_expr.h) picks its side, no node.
  int where(IndexRef mask, int if_true, int if_false, DType type) {
    if (mask == kNoIndex || pool_.is_const(mask, 1)) return if_true;
    if (pool_.is_const(mask, 0)) return if_false;
    return op(Op::Where, {index_value(mask, DType::Bool), if_true, if_false}, type);
  }
  int intern(KernelExpr e) {
    Words key{static_cast<int64_t>(e.kind), static_cast<int64_t>(e.dtype), e.buffer, e.valid, bits_of(e.value),
              static_cast<int64_t>(e.op), static_cast<int64_t>(e.to), e.contraction,
              static_cast<int64_t>(e.index.size())};
    key.insert(key.end(), e.index.begin(), e.index.end());
    key.insert(key.end(), e.operands.begin(), e.operands.end());
    auto [it, inserted] = exprs_.emplace(std::move(key), static_cast<int>(k_.exprs.size()));
    if (inserted) k_.exprs.push_back(std::move(e));
    return it->second;
  }

  ProgramState& s_;
  Kernel& k_;
  IndexPool& pool_;
  ValueId current_root_ = -1;
  std::unordered_set<ValueId> emitted_roots_;  // so far
  int reduction_depth_ = 0;
  bool scatter_kernel_ = false;  // the kernel's root is a scatter
  size_t loads_ = 0;  // load nodes of the kernel
  std::vector<ValueId> loaded_;
  std::vector<bool> at_own_index_;
  std::unordered_map<ValueId, size_t> loaded_position_;  // in loaded_
  std::unordered_map<Words, int, WordsHash> memo_;   // (value, guard, pad, index) -> node
  std::unordered_map<Words, int, WordsHash> exprs_;  // node structure -> node
  std::optional<ConvLayout> conv_layout_;
};

struct SingleKernel {
  std::vector<ValueId> roots;
  Kernel kernel;
};

// What horizontal merging looks at in a single-root kernel.
struct GroupingFacts {
  Shape space;
  Shape reduction;
  std::vector<int> loads;    // the buffers it loads, sorted, each once (any numbering that tells buffers apart)
  std::vector<size_t> deps;  // kernels whose buffers it reads
  // By position in deps: the kernel reads that dependency's value only at its
  // own output index (KernelAssembler::loaded_at_own_index).
  std::vector<bool> dep_at_own_index;
  int own_load = -1;  // the name in `loads` under which consumers load what this kernel stores (-1: none)
  // Merged with no other kernel: a scatter, and a kernel that folds at
  // compile time (kernel::folds_at_compile_time: it never runs). Eight folded
  // copies of a Llama's MLP weights ([512, 1376] each, one per layer's part)
  // merged into one were past the folding's size limit and ran, 2.1 ms of a
  // 4.4 ms decode step (AMD EPYC Zen 4 profile, 2026-12-02).
  bool alone = false;
};

std::string kernel_name(const Graph& g, const std::vector<ValueId>& roots) {
  std::string name;
  for (ValueId v : roots) name += (name.empty() ? "" : ", ") + value_name(g, v);
  return name;
}

// Groups of kernels over one iteration space with at most one reduction
// domain among them that do not depend on each other, even through other
// groups; returned in dependency order.
bool share_a_buffer(const std::vector<int>& a, const std::vector<int>& b) {
  for (int x : a)
    if (std::binary_search(b.begin(), b.end(), x)) return true;
  return false;
}

// A kernel of more members is no faster and costs LLVM more than it saves (188
// sixteen-way concats in one kernel: 20 s of LLVM, not vectorized, 175 us).
constexpr size_t kMaxHorizontalGroup = 16;

// Two anchored kernels join only when they read a common operand (DESIGN.md:
// a contraction group's gemms share an operand, like SwiGLU's gate and up).
std::vector<std::vector<size_t>> horizontal_groups(const std::vector<GroupingFacts>& kernels) {
  const size_t n = kernels.size();
  std::vector<size_t> group_of(n);
  std::vector<std::vector<size_t>> groups;
  std::vector<Shape> group_domain;
  std::vector<std::vector<int>> group_anchor_loads;  // buffers read by the group's anchored members
  std::vector<size_t> group_loads;                   // buffers its members load, counted per member
  // The groups j's dependencies reach, j included in none yet: one walk per
  // kernel (a walk per candidate group was cubic on long chains).
  std::vector<uint32_t> reached;  // == epoch: reached by the current walk
  uint32_t epoch = 0;
  std::vector<size_t> stack;
  for (size_t j = 0; j < n; ++j) {
    const GroupingFacts& kj = kernels[j];
    reached.resize(groups.size(), 0);
    ++epoch;
    stack.clear();
    for (size_t dep : kj.deps)
      if (reached[group_of[dep]] != epoch) {
        reached[group_of[dep]] = epoch;
        stack.push_back(group_of[dep]);
      }
    while (!stack.empty()) {
      const size_t gr = stack.back();
      stack.pop_back();
      for (size_t member : groups[gr])
        for (size_t dep : kernels[member].deps)
          if (reached[group_of[dep]] != epoch) {
            reached[group_of[dep]] = epoch;
            stack.push_back(group_of[dep]);
          }
    }
    size_t chosen = groups.size();
    for (size_t gr = 0; gr < groups.size() && chosen == groups.size(); ++gr) {
      const GroupingFacts& first = kernels[groups[gr].front()];
      if (first.space != kj.space || first.alone || kj.alone || reached[gr] == epoch ||
          groups[gr].size() >= kMaxHorizontalGroup ||
          group_loads[gr] + kj.loads.size() > kMaxKernelLoads)
        continue;
      if (!group_domain[gr].empty() && !kj.reduction.empty() &&
          (group_domain[gr] != kj.reduction || !share_a_buffer(group_anchor_loads[gr], kj.loads)))
        continue;
      chosen = gr;
    }
    if (chosen == groups.size()) {
      groups.emplace_back();
      group_domain.emplace_back();
      group_anchor_loads.emplace_back();
      group_loads.push_back(0);
    }
    groups[chosen].push_back(j);
    group_loads[chosen] += kj.loads.size();
    if (!kj.reduction.empty()) {
      group_domain[chosen] = kj.reduction;
      std::vector<int> merged;
      std::set_union(group_anchor_loads[chosen].begin(), group_anchor_loads[chosen].end(), kj.loads.begin(),
                     kj.loads.end(), std::back_inserter(merged));
      group_anchor_loads[chosen] = std::move(merged);
    }
    group_of[j] = chosen;
  }
  // Kahn's order over the groups, the earliest ready group first.
  std::vector<std::vector<size_t>> users(groups.size());
  std::vector<size_t> waiting_on(groups.size(), 0);
  for (size_t gr = 0; gr < groups.size(); ++gr) {
    std::vector<size_t> deps;
    for (size_t member : groups[gr])
      for (size_t dep : kernels[member].deps)
        if (group_of[dep] != gr) deps.push_back(group_of[dep]);
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    waiting_on[gr] = deps.size();
    for (size_t d : deps) users[d].push_back(gr);
  }
  std::priority_queue<size_t, std::vector<size_t>, std::greater<>> ready;
  for (size_t gr = 0; gr < groups.size(); ++gr)
    if (waiting_on[gr] == 0) ready.push(gr);
  std::vector<std::vector<size_t>> ordered;
  while (!ready.empty()) {
    const size_t gr = ready.top();
    ready.pop();
    ordered.push_back(groups[gr]);
    for (size_t user : users[gr])
      if (--waiting_on[user] == 0) ready.push(user);
  }
  if (ordered.size() < groups.size()) throw std::logic_error("horizontal_groups: the groups depend on each other");
  return ordered;
}

// Producer-consumer merging: a kernel whose stored value another kernel over
// the same space reads only at its own output index is merged into that
// reader, which then computes the value itself and stores it as one more
// output (a value that is both a graph output, or otherwise stored, and used
// by the next op costs a store, not a kernel boundary and a reload). Merged
// kernels hold at most one reduction domain and never close a cycle through a
// third kernel, and only where `pays` says the merged kernel is no slower
// than the two apart (chained math calls can make one loop slower than two).
// Returns units of kernel indices (each ascending) in dependency order, and
// each unit's facts with its deps numbered by unit.
struct MergedUnits {
  std::vector<std::vector<size_t>> units;
  std::vector<GroupingFacts> facts;
};
// (merged, producer, consumer): kernel indices, each ascending.
using MergePays = std::function<bool(const std::vector<size_t>&, const std::vector<size_t>&, const std::vector<size_t>&)>;

// Each trial of `pays` emits the whole merged kernel: without a bound, a
// chain of n stored values merges one at a time at a cost quadratic in n.
constexpr size_t kMaxMergedKernels = 64;

MergedUnits merge_producers(const std::vector<GroupingFacts>& kernels, const MergePays& pays) {
  const size_t n = kernels.size();
  std::vector<size_t> unit_of(n);
  std::vector<std::vector<size_t>> members(n);
  std::vector<Shape> reduction(n);
  for (size_t k = 0; k < n; ++k) {
    unit_of[k] = k;
    members[k] = {k};
    reduction[k] = kernels[k].reduction;
  }
  // Does unit `from` reach unit `to` through a unit other than themselves?
  std::vector<size_t> stack;
  std::vector<bool> seen;
  auto reaches_through_another = [&](size_t from, size_t to) {
    seen.assign(n, false);
    stack.clear();
    for (size_t m : members[from])
      for (size_t dep : kernels[m].deps)
        if (unit_of[dep] != from && unit_of[dep] != to && !seen[unit_of[dep]]) {
          seen[unit_of[dep]] = true;
          stack.push_back(unit_of[dep]);
        }
    while (!stack.empty()) {
      const size_t u = stack.back();
      stack.pop_back();
      for (size_t m : members[u])
        for (size_t dep : kernels[m].deps) {
          const size_t d = unit_of[dep];
          if (d == to) return true;
          if (d != u && !seen[d]) {
            seen[d] = true;
            stack.push_back(d);
          }
        }
    }
    return false;
  };
  for (size_t j = 0; j < n; ++j) {
    for (size_t i = 0; i < kernels[j].deps.size(); ++i) {
      if (!kernels[j].dep_at_own_index[i]) continue;
      const size_t producer = unit_of[kernels[j].deps[i]], consumer = unit_of[j];
      if (producer == consumer || kernels[kernels[j].deps[i]].space != kernels[j].space) continue;
      if (kernels[kernels[j].deps[i]].alone || kernels[j].alone) continue;
      if (!reduction[producer].empty() && !reduction[consumer].empty()) continue;
      if (members[producer].size() + members[consumer].size() > kMaxMergedKernels) continue;
      if (reaches_through_another(consumer, producer) || reaches_through_another(producer, consumer)) continue;
      std::vector<size_t> merged = members[consumer];
      merged.insert(merged.end(), members[producer].begin(), members[producer].end());
      std::sort(merged.begin(), merged.end());
      if (pays && !pays(merged, members[producer], members[consumer])) continue;
      for (size_t m : members[producer]) unit_of[m] = consumer;
      members[consumer] = std::move(merged);
      members[producer].clear();
      if (reduction[consumer].empty()) reduction[consumer] = reduction[producer];
    }
  }
  // Units in dependency order (depth first from each, earliest kernel first).
  MergedUnits result;
  std::vector<int> state(n, 0);  // 0 unvisited, 1 on the path, 2 placed
  std::vector<size_t> number(n, 0);
  auto deps_of = [&](size_t u) {
    std::vector<size_t> d;
    for (size_t m : members[u])
      for (size_t dep : kernels[m].deps)
        if (unit_of[dep] != u) d.push_back(unit_of[dep]);
    return d;
  };
  for (size_t start = 0; start < n; ++start) {
    if (members[start].empty() || state[start] != 0) continue;
    std::vector<std::pair<size_t, std::vector<size_t>>> path{{start, deps_of(start)}};
    state[start] = 1;
    while (!path.empty()) {
      auto& [u, pending] = path.back();
      if (pending.empty()) {
        state[u] = 2;
        number[u] = result.units.size();
        result.units.push_back(members[u]);
        path.pop_back();
        continue;
      }
      const size_t d = pending.back();
      pending.pop_back();
      if (state[d] == 1) throw std::logic_error("merge_producers: merged kernels depend on each other");
      if (state[d] == 0) {
        state[d] = 1;
        path.emplace_back(d, deps_of(d));
      }
    }
  }
  for (const std::vector<size_t>& unit : result.units) {
    GroupingFacts f;
    f.space = kernels[unit.front()].space;
    f.alone = kernels[unit.front()].alone;
    std::vector<int> own;
    for (size_t m : unit) {
      if (!kernels[m].reduction.empty()) f.reduction = kernels[m].reduction;
      if (kernels[m].own_load >= 0) own.push_back(kernels[m].own_load);
      f.loads.insert(f.loads.end(), kernels[m].loads.begin(), kernels[m].loads.end());
      for (size_t dep : kernels[m].deps)
        if (unit_of[dep] != unit_of[m]) f.deps.push_back(number[unit_of[dep]]);
    }
    std::sort(own.begin(), own.end());
    std::sort(f.loads.begin(), f.loads.end());
    f.loads.erase(std::unique(f.loads.begin(), f.loads.end()), f.loads.end());
    std::erase_if(f.loads, [&](int b) { return std::binary_search(own.begin(), own.end(), b); });
    std::sort(f.deps.begin(), f.deps.end());
    f.deps.erase(std::unique(f.deps.begin(), f.deps.end()), f.deps.end());
    f.dep_at_own_index.assign(f.deps.size(), false);
    result.facts.push_back(std::move(f));
  }
  return result;
}

// Kernels (by index) merged into one, in emission order: the units of each
// horizontal group, each unit's members ascending (producers first).
std::vector<std::vector<size_t>> merged_kernels(const std::vector<GroupingFacts>& kernels, bool merge,
                                                const MergePays& pays) {
  std::vector<std::vector<size_t>> out;
  if (!merge) {
    for (size_t k = 0; k < kernels.size(); ++k) out.push_back({k});
    return out;
  }
  const MergedUnits units = merge_producers(kernels, pays);
  for (const std::vector<size_t>& group : horizontal_groups(units.facts)) {
    out.emplace_back();
    for (size_t u : group) out.back().insert(out.back().end(), units.units[u].begin(), units.units[u].end());
  }
  return out;
}

// The buffers of the graph's inputs and of every kernel's root; returns the
// roots (materialized values and outputs), each the root of one kernel.
// Unnamed buffers (`named` false) for a program that is only priced.
std::vector<ValueId> start_program(ProgramState& s, bool named = true) {
  const Graph& g = s.g;
  auto name_of = [&](ValueId v, const char* suffix) { return named ? value_name(g, v) + suffix : std::string(); };
  std::vector<ValueId> inputs = g.inputs();
  for (size_t i = 0; i < inputs.size(); ++i)
    s.buffer_of[inputs[i]] =
        add_buffer(s.program, name_of(inputs[i], ""), g.type(inputs[i]), BufferKind::kInput, static_cast<int>(i));
  std::vector<std::vector<int>> output_positions(g.size());
  for (size_t k = 0; k < g.outputs().size(); ++k) output_positions[g.outputs()[k]].push_back(static_cast<int>(k));

  std::vector<ValueId> roots;
  for (ValueId v = 0; v < static_cast<ValueId>(g.size()); ++v) {
    const bool is_input = g.node(v).op == Op::Input;
    if (!(s.materialized[v] && !is_input) && output_positions[v].empty()) continue;
    roots.push_back(v);
    // An output that is an input gets a copy of its own (never the input's name).
    const std::string name = name_of(v, is_input ? "_copy" : "");
    for (size_t j = 0; j < output_positions[v].size(); ++j)
      s.stores[v].push_back(add_buffer(s.program, j == 0 || !named ? name : name + "#" + std::to_string(j), g.type(v),
                                       BufferKind::kOutput, output_positions[v][j]));
    if (s.stores[v].empty())
      s.stores[v].push_back(add_buffer(s.program, name, g.type(v), BufferKind::kIntermediate));
    if (!is_input) s.buffer_of[v] = s.stores[v].front();
  }
  return roots;
}

std::vector<bool> legal_request(const Graph& g, const std::vector<bool>& materialized) {
  if (g.outputs().empty()) throw std::invalid_argument("kernelize: the graph has no outputs");
  std::vector<bool> mat(g.size(), false);
  for (size_t v = 0; v < g.size() && v < materialized.size(); ++v)
    mat[v] = materialized[v] && g.node(static_cast<ValueId>(v)).op != Op::Input;
  for (ValueId v : g.outputs()) mat[v] = g.node(v).op != Op::Input;
  // A scatter is its own kernel, and starts from a copy of its data's buffer.
  for (size_t v = 0; v < g.size(); ++v) {
    const Node& n = g.node(static_cast<ValueId>(v));
    if (!is_scatter(n.op)) continue;
    mat[v] = true;
    mat[n.operands[0]] = g.node(n.operands[0]).op != Op::Input;
  }
  return mat;
}

std::vector<bool> used_materialization(const Graph& g, const std::vector<ValueId>& roots) {
  std::vector<bool> used(g.size(), false);
  for (ValueId root : roots) used[root] = g.node(root).op != Op::Input;
  return used;
}

Kernelization build(const Graph& g, const std::vector<bool>& materialized, const KernelizeOptions& options) {
  ProgramState s(g, materialized);
  const std::vector<ValueId> roots = start_program(s);

  std::vector<SingleKernel> kernels;
  std::vector<GroupingFacts> facts;
  std::vector<size_t> kernel_of(g.size(), 0);
  for (ValueId root : roots) {
    SingleKernel single;
    single.roots = {root};
    single.kernel.name = kernel_name(g, single.roots);
    single.kernel.space = kernel_space(g, root);
    KernelAssembler emitter(s, single.kernel);
    emitter.emit_root(root);
    GroupingFacts f;
    f.space = single.kernel.space;
    f.reduction = single.kernel.reduction;
    f.loads = read_buffers(single.kernel);
    for (ValueId v : emitter.loaded()) f.deps.push_back(kernel_of[v]);
    f.dep_at_own_index = emitter.loaded_at_own_index();
    f.own_load = g.node(root).op == Op::Input ? -1 : s.buffer_of[root];
    emitter.finish();
    f.alone = is_scatter(g.node(root).op) || kernel::folds_at_compile_time(s.program, single.kernel);
    kernel_of[root] = kernels.size();
    kernels.push_back(std::move(single));
    facts.push_back(std::move(f));
  }

  // Kernels of `members` emitted as one and priced; +inf when that is illegal.
  auto trial_price = [&](const std::vector<size_t>& members) {
    if (members.size() == 1) return options.price(s.program, kernels[members.front()].kernel);
    Kernel trial;
    // The roots' own space: a finished kernel's may have merged rows.
    trial.space = kernel_space(g, kernels[members.front()].roots.front());
    KernelAssembler emitter(s, trial);
    try {
      for (size_t m : members) emitter.emit_root(kernels[m].roots.front());
      emitter.finish();
    } catch (const MustMaterialize&) {
      return std::numeric_limits<double>::infinity();
    }
    return options.price(s.program, trial);
  };
  MergePays pays;
  if (options.price)
    pays = [&](const std::vector<size_t>& merged, const std::vector<size_t>& producer, const std::vector<size_t>& consumer) {
      return trial_price(merged) <= trial_price(producer) + trial_price(consumer);
    };
  for (const std::vector<size_t>& members : merged_kernels(facts, options.merge_kernels, pays)) {
    if (members.size() == 1) {
      s.program.kernels.push_back(std::move(kernels[members.front()].kernel));
      continue;
    }
    // Re-emitted together, so the roots share loads and subexpressions and a
    // root another one reads is computed, not loaded.
    std::vector<ValueId> merged_roots;
    for (size_t m : members) merged_roots.push_back(kernels[m].roots.front());
    Kernel merged;
    merged.name = kernel_name(g, merged_roots);
    merged.space = kernel_space(g, merged_roots.front());  // not a finished kernel's (merged rows)
    KernelAssembler emitter(s, merged);
    for (ValueId root : merged_roots) emitter.emit_root(root);
    emitter.finish();
    s.program.kernels.push_back(std::move(merged));
  }
  Kernelization result;
  result.program = std::move(s.program);
  result.buffer_of = std::move(s.buffer_of);
  for (auto [v, b] : s.literal) result.buffer_of[v] = result.buffer_of[v] >= 0 ? result.buffer_of[v] : b;
  result.materialized = used_materialization(g, roots);
  return result;
}

// --- incremental pricing (IncrementalKernelization)

// The region of one kernel (one root, or the roots of a merged kernel, in
// order): every value the emitter can visit, breadth-first from each root
// through operands, stopping at values that have a buffer. `words` spells it
// with the caller's keys: per root a marker, its number of stores and their
// kind, then per value visited its region number, key, and either the kind of
// its buffer or its operands' region numbers. Equal words: equal kernels up
// to buffer numbering.
struct Region {
  std::vector<ValueId> values;  // by region number
  Words words;
};

class RegionWalker {
 public:
  explicit RegionWalker(size_t graph_size) : number_(graph_size, -1), seen_(graph_size, 0) {}

  // `roots` in emission order.
  void walk(const ProgramState& s, std::span<const uint64_t> keys, std::span<const ValueId> roots, Region& region) {
    region.values.clear();
    region.words.clear();
    for (ValueId root : roots) {
      ++epoch_;
      region.words.push_back(-1);
      region.words.push_back(static_cast<int64_t>(s.stores[root].size()));
      region.words.push_back(static_cast<int64_t>(s.program.buffers[static_cast<size_t>(s.stores[root].front())].kind));
      queue_.assign(1, root);
      seen_[root] = epoch_;
      number(root, region);
      for (size_t q = 0; q < queue_.size(); ++q) {
        const ValueId v = queue_[q];
        const bool buffer = v != root && s.buffer_of[v] >= 0;
        const Node& n = s.g.node(v);
        region.words.push_back(number_[v]);
        region.words.push_back(static_cast<int64_t>(keys[v]));
        if (buffer) {  // its kind too: an input, or a kernel's intermediate or output buffer
          region.words.push_back(-1 - static_cast<int64_t>(s.program.buffers[static_cast<size_t>(s.buffer_of[v])].kind));
          continue;
        }
        region.words.push_back(static_cast<int64_t>(n.operands.size()));
        for (ValueId operand : n.operands) {
          region.words.push_back(number(operand, region));
          if (seen_[operand] != epoch_) {
            seen_[operand] = epoch_;
            queue_.push_back(operand);
          }
        }
      }
    }
    for (ValueId v : region.values) number_[v] = -1;
  }

 private:
  int64_t number(ValueId v, Region& region) {
    if (number_[v] < 0) {
      number_[v] = static_cast<int64_t>(region.values.size());
      region.values.push_back(v);
    }
    return number_[v];
  }

  std::vector<int64_t> number_;   // by ValueId: region number, -1 outside the region
  std::vector<uint32_t> seen_;    // by ValueId: == epoch_ when queued for the current root
  uint32_t epoch_ = 0;
  std::vector<ValueId> queue_;
};

// A buffer as a region-independent name: 2v for the buffer consumers of v
// load (an input's, or a materialized value's first store), 2v + 1 for the
// literal buffer of constant v.
int64_t buffer_name(const ProgramState& s, int buffer, const std::vector<ValueId>& values) {
  for (ValueId v : values) {
    if (s.buffer_of[v] == buffer) return 2 * static_cast<int64_t>(v);
    if (auto it = s.literal.find(v); it != s.literal.end() && it->second == buffer) return 2 * static_cast<int64_t>(v) + 1;
  }
  throw std::logic_error("IncrementalKernelization: a kernel loads a buffer outside its region");
}

// What the cache keeps of a kernel, by its region's words.
struct CachedSingle {
  int must_materialize = -1;  // region number of the anchor whose inlining was illegal, or -1
  Shape reduction;
  std::vector<std::pair<int, bool>> loads;  // region number, literal buffer (else the value's buffer)
  std::vector<int> deps;                    // region numbers of materialized values it loads
  std::vector<bool> dep_at_own_index;       // by position in deps
  double price = 0;
  bool folds = false;  // kernel::folds_at_compile_time
};
struct CachedMerged {
  int must_materialize = -1;
  double price = 0;
};

int region_number(const Region& region, ValueId v) {
  const auto at = std::find(region.values.begin(), region.values.end(), v);
  if (at == region.values.end()) throw std::logic_error("IncrementalKernelization: a value outside the kernel's region");
  return static_cast<int>(at - region.values.begin());
}

// Emits and prices the single kernel of `root` (a cache miss), or notes the
// anchor it must not inline.
void emit_single(const IncrementalKernelization::KernelPrice& price, ProgramState& s, ValueId root, const Region& region,
                 CachedSingle& single) {
  Kernel kernel;
  kernel.space = kernel_space(s.g, root);
  KernelAssembler emitter(s, kernel);
  try {
    emitter.emit_root(root);
  } catch (const MustMaterialize& m) {
    single.must_materialize = region_number(region, m.value);
    return;
  }
  single.reduction = kernel.reduction;
  for (int buffer : read_buffers(kernel)) {
    const int64_t name = buffer_name(s, buffer, region.values);
    single.loads.emplace_back(region_number(region, static_cast<ValueId>(name / 2)), name % 2 == 1);
  }
  for (ValueId v : emitter.loaded()) single.deps.push_back(region_number(region, v));
  single.dep_at_own_index = emitter.loaded_at_own_index();
  emitter.finish();
  single.price = price(s.program, kernel);
  single.folds = kernel::folds_at_compile_time(s.program, kernel);
}

}  // namespace

struct IncrementalKernelization::Cache {
  using Single = CachedSingle;
  using Merged = CachedMerged;
  KernelPrice price;
  KernelizeOptions options;
  std::unordered_map<Words, Single, WordsHash> singles;
  std::unordered_map<Words, Merged, WordsHash> merged;
  size_t emitted = 0, reused = 0;
  Region region;  // scratch
};

IncrementalKernelization::IncrementalKernelization(KernelPrice price, KernelizeOptions options)
    : cache_(std::make_unique<Cache>()) {
  cache_->price = std::move(price);
  cache_->options = options;
}

IncrementalKernelization::~IncrementalKernelization() = default;

size_t IncrementalKernelization::kernels_emitted() const { return cache_->emitted; }
size_t IncrementalKernelization::kernels_reused() const { return cache_->reused; }

void IncrementalKernelization::clear() {
  cache_->singles.clear();
  cache_->merged.clear();
}

IncrementalKernelization::Priced IncrementalKernelization::price(const Graph& g, std::span<const uint64_t> keys,
                                                        const std::vector<bool>& materialized,
                                                        std::chrono::steady_clock::time_point deadline) {
  if (keys.size() != g.size()) throw std::invalid_argument("IncrementalKernelization::price: one key per value");
  Cache& c = *cache_;
  // Bounded memory over long searches: start over past this many kernels.
  constexpr size_t kMaxKernels = 1 << 18;
  if (c.singles.size() + c.merged.size() > kMaxKernels) clear();
  std::vector<bool> mat = legal_request(g, materialized);
  RegionWalker walker(g.size());
  Region& region = c.region;
  // kernelize's loop: each illegal inlining materializes one more anchor.
  for (;;) {
    ProgramState s(g, mat);
    const std::vector<ValueId> roots = start_program(s, false);
    std::optional<ValueId> must_materialize;
    std::vector<GroupingFacts> facts;
    std::vector<double> prices;
    std::vector<size_t> kernel_of(g.size(), 0);
    for (ValueId root : roots) {
      if (std::chrono::steady_clock::now() >= deadline) return {{}, {}, true};
      walker.walk(s, keys, std::span<const ValueId>(&root, 1), region);
      auto [it, inserted] = c.singles.try_emplace(region.words);
      Cache::Single& single = it->second;
      if (inserted) {
        ++c.emitted;
        try {
          emit_single(c.price, s, root, region, single);
        } catch (...) {
          c.singles.erase(it);  // never a half-made entry
          throw;
        }
      } else {
        ++c.reused;
      }
      if (single.must_materialize >= 0) {
        must_materialize = region.values[static_cast<size_t>(single.must_materialize)];
        break;
      }
      GroupingFacts f;
      f.space = kernel_space(g, root);
      f.alone = is_scatter(g.node(root).op) || single.folds;
      f.reduction = single.reduction;
      for (auto [number, literal] : single.loads)
        f.loads.push_back(static_cast<int>(2 * region.values[static_cast<size_t>(number)] + (literal ? 1 : 0)));
      std::sort(f.loads.begin(), f.loads.end());
      for (int number : single.deps) f.deps.push_back(kernel_of[region.values[static_cast<size_t>(number)]]);
      f.dep_at_own_index = single.dep_at_own_index;
      f.own_load = g.node(root).op == Op::Input ? -1 : static_cast<int>(2 * root);
      kernel_of[root] = facts.size();
      facts.push_back(std::move(f));
      prices.push_back(single.price);
    }
    if (must_materialize) {
      mat[*must_materialize] = true;
      continue;
    }
    // The price of the kernels of `members` emitted as one (cached by region);
    // nullopt with `must_materialize` set when that inlines an anchor illegally.
    auto unit_price = [&](const std::vector<size_t>& members) -> std::optional<double> {
      if (members.size() == 1) return prices[members.front()];
      std::vector<ValueId> merged_roots;
      for (size_t m : members) merged_roots.push_back(roots[m]);
      walker.walk(s, keys, merged_roots, region);
      auto [it, inserted] = c.merged.try_emplace(region.words);
      Cache::Merged& merged = it->second;
      if (inserted) {
        ++c.emitted;
        Kernel kernel;
        kernel.space = kernel_space(g, merged_roots.front());
        KernelAssembler emitter(s, kernel);
        try {
          try {
            for (ValueId root : merged_roots) emitter.emit_root(root);
            emitter.finish();
            merged.price = c.price(s.program, kernel);
          } catch (const MustMaterialize& m) {
            merged.must_materialize = region_number(region, m.value);
          }
        } catch (...) {
          c.merged.erase(it);
          throw;
        }
      } else {
        ++c.reused;
      }
      if (merged.must_materialize >= 0) {
        must_materialize = region.values[static_cast<size_t>(merged.must_materialize)];
        return std::nullopt;
      }
      return merged.price;
    };
    // As kernelize's trial prices: an illegal merge never pays.
    const MergePays pays = [&](const std::vector<size_t>& merged, const std::vector<size_t>& producer,
                               const std::vector<size_t>& consumer) {
      if (std::chrono::steady_clock::now() >= deadline) return false;  // stopped below
      const std::optional<double> together = unit_price(merged);
      must_materialize.reset();
      return together && *together <= *unit_price(producer) + *unit_price(consumer);
    };
    Priced result;
    for (const std::vector<size_t>& members : merged_kernels(facts, c.options.merge_kernels, pays)) {
      const std::optional<double> price = unit_price(members);
      if (!price) break;
      result.kernel_prices.push_back(*price);
    }
    if (std::chrono::steady_clock::now() >= deadline) return {{}, {}, true};
    if (must_materialize) {
      mat[*must_materialize] = true;
      continue;
    }
    result.materialized = used_materialization(g, roots);
    return result;
  }
}

Kernelization kernelize(const Graph& g, const std::vector<bool>& materialized, const KernelizeOptions& options) {
  std::vector<bool> mat = legal_request(g, materialized);
  // Each illegal inlining found materializes one more anchor (or value whose
  // index grew too deep); at most one restart per value.
  for (;;) {
    try {
      return build(g, mat, options);
    } catch (const MustMaterialize& m) {
      if (mat[m.value]) throw std::logic_error("kernelize: a materialized value was inlined");
      mat[m.value] = true;
    }
  }
}

KernelProgram kernelize_program(const Graph& g, const std::vector<bool>& materialized) {
  return kernelize(g, materialized).program;
}

std::vector<bool> materialize_everything(const Graph& g) {
  std::vector<bool> mat(g.size(), false);
  // A constant (a weight) is read where it is used, as every runtime reads its
  // initializers: stored by a kernel of its own, a weight was copied on every
  // call and its product packed B per call (a 1 x 4096 x 4096 product: 24 ms
  // unfused against 3.4 ms fused, 2026-11-29), so the unfused program was a
  // straw man. An output that is a constant is still stored.
  for (ValueId v : g.outputs()) mat[v] = g.node(v).op != Op::Input;
  for (size_t v = 0; v < g.size(); ++v) {
    const Op op = g.node(static_cast<ValueId>(v)).op;
    if (op != Op::Input && op != Op::Constant) mat[v] = true;
  }
  return mat;
}

std::vector<bool> materialize_outputs(const Graph& g) {
  std::vector<bool> mat(g.size(), false);
  for (ValueId v : g.outputs()) mat[v] = g.node(v).op != Op::Input;
  return mat;
}

}  // namespace smelt::fusion
