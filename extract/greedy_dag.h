#pragma once
// DAG-greedy extraction (extraction-gym's faster-greedy-dag, in the version its
// reference results came from: a FIFO of nodes, children checked when a node is
// taken): each class keeps the cheapest *set* of classes needed by one of its
// terms, shared classes counted once, so a node whose children overlap is
// charged for the union only.
#include "extract/extractor.h"

namespace smelt::extract {

class GreedyDagExtractor final : public Extractor {
 public:
  std::string_view name() const override { return "greedy-dag"; }
  ExtractResult extract(const Problem& problem, const ExtractOptions& options) const override;
};

}  // namespace smelt::extract
