#include "egraph/proof_forest.h"

#include <algorithm>

namespace smelt::egraph {

void ProofForest::make_root(Id id) {
  // Reverse every edge on the path from id to its root.
  Id prev = kNoId;
  Edge carried{};
  for (Id at = id; at != kNoId;) {
    Edge here = edges_[at];
    edges_[at].to = prev;
    if (prev != kNoId) {
      edges_[at].why = carried.why;
      edges_[at].forward = !carried.forward;
    }
    carried = here;
    prev = at;
    at = here.to;
  }
}

void ProofForest::unite(Id a, Id b, Justification why) {
  make_root(a);
  edges_[a] = Edge{b, why, true};
}

ProofForest::Path ProofForest::path(Id a, Id b) const {
  Path out;
  for (Id at = a; at != kNoId; at = edges_[at].to) out.from_a.push_back(at);
  for (Id at = b; at != kNoId; at = edges_[at].to) out.from_b.push_back(at);
  if (out.from_a.back() != out.from_b.back()) return {};
  // Drop the shared tail above the lowest common ancestor.
  while (out.from_a.size() > 1 && out.from_b.size() > 1 &&
         out.from_a[out.from_a.size() - 2] == out.from_b[out.from_b.size() - 2]) {
    out.from_a.pop_back();
    out.from_b.pop_back();
  }
  return out;
}

}  // namespace smelt::egraph
