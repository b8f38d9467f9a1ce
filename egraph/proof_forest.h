#pragma once
#include <cstdint>
#include <vector>

#include "egraph/ids.h"
#include "egraph/justification.h"

namespace smelt::egraph {

// egg's proof forest: one tree per e-class over node ids; every edge is one
// recorded union and its justification. The path between two ids in their
// tree is the proof that they are equal.
class ProofForest {
 public:
  struct Edge {
    Id to = kNoId;                 // parent in the tree (kNoId at a tree root)
    Justification why;
    bool forward = true;           // the union was unite(this, to), i.e. a rule's lhs -> rhs
  };

  void add_id() { edges_.push_back({}); }
  std::size_t size() const { return edges_.size(); }
  const Edge& edge(Id id) const { return edges_[id]; }

  // Records unite(a, b) for ids in different trees: a becomes the root of its
  // tree (reversing the path), then a -> b.
  void unite(Id a, Id b, Justification why);

  // Ids on the path a -> ... -> lowest common ancestor <- ... <- b, both
  // sides including their endpoints; empty when a and b are not connected.
  struct Path {
    std::vector<Id> from_a;  // a, parent(a), ..., lca
    std::vector<Id> from_b;  // b, parent(b), ..., lca
  };
  Path path(Id a, Id b) const;

 private:
  void make_root(Id id);
  std::vector<Edge> edges_;
};

}  // namespace smelt::egraph
