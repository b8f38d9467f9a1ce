#pragma once
// Integer index expressions of a kernel's iteration variables: + − × floor-div,
// mod, min, max, select and the comparisons / logic that valid masks use.
// Nodes live in a hash-consed pool, so equal subexpressions are shared.
#include <cstdint>
#include <optional>
#include <utility>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace smelt::kernel {

using IndexRef = int32_t;  // a node of an IndexPool; kNoIndex where absent
inline constexpr IndexRef kNoIndex = -1;

class IndexPool {
 public:
  enum class Kind : uint8_t {
    kConst, kVar, kAdd, kSub, kMul, kFloorDiv, kMod, kMin, kMax, kSelect,
    kLt, kLe, kEq, kAnd, kOr, kNot,
  };
  struct Node {
    Kind kind = Kind::kConst;
    int64_t value = 0;  // kConst: the constant; kVar: the variable's number
    IndexRef a = kNoIndex, b = kNoIndex, c = kNoIndex;
    bool operator==(const Node&) const = default;
  };

  IndexRef constant(int64_t v);
  IndexRef var(int number);
  IndexRef add(IndexRef a, IndexRef b);
  IndexRef sub(IndexRef a, IndexRef b);
  IndexRef mul(IndexRef a, IndexRef b);
  IndexRef floor_div(IndexRef a, IndexRef b);  // rounds toward −∞; b > 0 in practice
  IndexRef mod(IndexRef a, IndexRef b);        // result has the sign of b
  IndexRef min(IndexRef a, IndexRef b);
  IndexRef max(IndexRef a, IndexRef b);
  IndexRef select(IndexRef cond, IndexRef a, IndexRef b);
  IndexRef lt(IndexRef a, IndexRef b);
  IndexRef le(IndexRef a, IndexRef b);
  IndexRef eq(IndexRef a, IndexRef b);
  IndexRef logical_and(IndexRef a, IndexRef b);  // kNoIndex stands for "true"
  IndexRef logical_or(IndexRef a, IndexRef b);
  IndexRef logical_not(IndexRef a);

  const Node& node(IndexRef r) const { return nodes_.at(static_cast<size_t>(r)); }
  size_t size() const { return nodes_.size(); }
  bool is_const(IndexRef r, int64_t v) const;
  // True when r's value is always 0 or 1 (comparisons, logic, 0, 1, kNoIndex).
  bool is_boolean(IndexRef r) const;
  // Both are constants (neither kNoIndex).
  bool both_const(IndexRef a, IndexRef b) const;

  // r as (base, constant): `i + 64` is (i, 64), `i - 64` (i, -64), `64 + i`
  // (i, 64), `(1 + 2i) - 1` (2i, 0) (constants peeled off to any depth, as an
  // unsimplified window index is written); anything else (r, 0).
  std::pair<IndexRef, int64_t> base_and_offset(IndexRef r) const;

  // x when the index expressions of two adjacent axes of a buffer, the second
  // of extent `low_extent`, are (x floordiv low_extent, x mod low_extent):
  // together they address element x of the two axes flattened, as
  // floor(x/e)·e + x mod e = x (a view of [..., h, w] as [..., h·w]; a kernel
  // whose rows were merged, kernel/kernel_reindex.h). kNoIndex otherwise.
  IndexRef flattened_pair(IndexRef high, IndexRef low, int64_t low_extent) const;

  // The coefficient of variable `var` in r where r is affine in it (0 where
  // it does not occur); nullopt where it enters through a floor-div, mod,
  // min, max, select or a product of two terms holding it (a gather).
  std::optional<int64_t> coefficient(IndexRef r, int var) const;

  // Appends to `out` the conjuncts of r (the leaves of its tree of kAnd
  // nodes, left to right) that `out` does not hold yet; r itself where it is
  // not a kAnd, nothing for kNoIndex. A mask's comparisons, one by one.
  void append_conjuncts(IndexRef r, std::vector<IndexRef>& out) const;

  // Bit v set: variable v occurs in r (variables 63 and above share bit 63).
  uint64_t vars_used(IndexRef r) const { return r == kNoIndex ? 0 : vars_used_[static_cast<size_t>(r)]; }
  // Nodes on the longest path from r to a leaf (0 for kNoIndex): what the
  // recursive walks of an expression (eval, str, simplification) descend.
  uint32_t depth(IndexRef r) const { return r == kNoIndex ? 0 : depth_[static_cast<size_t>(r)]; }

  // Value for the given variable values (comparisons give 0 / 1).
  int64_t eval(IndexRef r, std::span<const int64_t> vars) const;
  // Readable form; variables are named by `var_names` (or v0, v1, ...).
  std::string str(IndexRef r, std::span<const std::string> var_names = {}) const;

 private:
  IndexRef intern(Node n);
  struct NodeHash {
    size_t operator()(const Node& n) const;
  };
  std::vector<Node> nodes_;
  std::vector<uint64_t> vars_used_;  // per node
  std::vector<uint32_t> depth_;      // per node
  std::unordered_map<Node, IndexRef, NodeHash> index_;
};

}  // namespace smelt::kernel
