#pragma once
#include <utility>
#include <vector>

#include "egraph/enode.h"
#include "egraph/ids.h"

namespace smelt::egraph {

class EGraph;

// An e-class analysis (egg's Analysis): data per class, computed from nodes
// (make), joined on union (merge), and a hook that may change the e-graph
// (modify), e.g. add the folded constant and union it into the class.
// The e-graph calls these; implement DataAnalysis<Data> rather than this.
class Analysis {
 public:
  struct MergeResult {
    bool into_changed = false;  // the surviving class's data changed
    bool from_changed = false;  // the merged data differs from the absorbed class's data
  };

  virtual ~Analysis() = default;
  // `node` was just created as a new class (its id is the class id).
  virtual void make_class(const EGraph& graph, Id node) = 0;
  // A class created with no node yet (importers of cyclic graphs).
  virtual void make_empty_class(Id cls) = 0;
  virtual MergeResult merge_classes(Id into, Id from) = 0;
  // Recompute node's data and merge it into class `cls`; true when cls changed.
  virtual bool remake(const EGraph& graph, Id node, Id cls) = 0;
  virtual void modify(EGraph& graph, Id cls) { (void)graph, (void)cls; }
  // True when no node of `cls` would change the class data (a fixpoint).
  virtual bool consistent(const EGraph& graph, Id cls) const = 0;
};

// Typed analysis: implement make_data and merge_data (and optionally modify).
// Data must be copyable and default-constructible (the empty class's data).
template <class Data>
class DataAnalysis : public Analysis {
 public:
  // Data for one node; read children's data with data(graph, child).
  virtual Data make_data(const EGraph& graph, NodeView node) const = 0;
  // Join `from` into `into`; return true when `into` changed.
  virtual bool merge_data(Data& into, const Data& from) const = 0;

  // Data of the class of `id` (any id; it is resolved with find).
  const Data& data(const EGraph& graph, Id id) const;
  // For analyses that refine data from outside make/merge; the e-graph does
  // not see such changes, so keep them consistent with the nodes.
  Data& mutable_data(const EGraph& graph, Id id);

  void make_class(const EGraph& graph, Id node) override;
  void make_empty_class(Id cls) override {
    grow(cls);
    data_[cls] = Data{};
  }
  MergeResult merge_classes(Id into, Id from) override {
    Data absorbed = data_[from];
    MergeResult result;
    result.into_changed = merge_data(data_[into], absorbed);
    result.from_changed = merge_data(absorbed, data_[into]);
    return result;
  }
  bool remake(const EGraph& graph, Id node, Id cls) override;
  bool consistent(const EGraph& graph, Id cls) const override;

 private:
  void grow(Id id) {
    if (data_.size() <= id) data_.resize(id + 1);
  }
  std::vector<Data> data_;  // indexed by class id (valid for roots)
};

}  // namespace smelt::egraph
