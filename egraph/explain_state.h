#pragma once
#include "egraph/egraph.h"
#include "egraph/hashcons.h"
#include "egraph/node_store.h"
#include "egraph/proof_forest.h"

namespace smelt::egraph {

// What an e-graph keeps when explanations are on (private to egraph/).
struct EGraph::ExplainState {
  NodeStore originals;   // every id's node exactly as added (children not canonicalized)
  Hashcons by_original;  // original words -> id, so re-adding a term finds its exact id
  ProofForest forest;
};

}  // namespace smelt::egraph
