#pragma once
// DAG-aware local search: re-choose one class at a time, keeping a change when
// the DAG cost of the whole extraction drops.
#include <vector>

#include "extract/deadline.h"
#include "extract/extractor.h"

namespace smelt::extract {

// DAG cost of the term that `choice` gives the roots, or +inf when it has a
// cycle or a reached class without a choice. Reuses its buffers across calls.
class DagEvaluator {
 public:
  explicit DagEvaluator(const Problem& problem);
  double cost(const std::vector<NodeId>& choice);
  // The classes the last finite evaluation reached, children before parents.
  const std::vector<ClassId>& reached() const { return order_; }

 private:
  const Problem& problem_;
  std::vector<std::uint32_t> mark_;  // == epoch_: done, == epoch_ + 1: open
  std::uint32_t epoch_ = 0;
  std::vector<std::pair<ClassId, std::uint32_t>> stack_;
  std::vector<ClassId> order_;
};

// `choice` has a node for every class that has an acyclic term (classes outside
// the current term keep theirs, used when a change pulls them in). Returns the
// improved choice; stops at a local optimum or the deadline.
std::vector<NodeId> improve_locally(const Problem& problem, std::vector<NodeId> choice, const Deadline& deadline);

// The better of bottom-up and greedy-dag, then improve_locally.
std::vector<NodeId> local_search_choice(const Problem& problem, const Deadline& deadline);

class LocalSearchExtractor final : public Extractor {
 public:
  std::string_view name() const override { return "local-search"; }
  ExtractResult extract(const Problem& problem, const ExtractOptions& options) const override;
};

}  // namespace smelt::extract
