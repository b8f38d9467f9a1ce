#pragma once
// The e-class analysis of tensor e-graphs: per class its type (shape and dtype,
// inferred with the op table and equal for every node of the class), the value
// every element is known to have (a splat), and whether the class is cheap to
// recompute in every consumer (factories, and views / elementwise ops of cheap
// classes). modify() adds the folded `full` into every class with a known splat.
//
// The analysis owns the e-graph's TensorLang, so a tensor e-graph is one object:
// make one with make_tensor_egraph().
#include <optional>

#include "egraph/analysis.h"
#include "egraph/egraph.h"
#include "ir/ops.h"
#include "rules/tensor_lang.h"

namespace smelt::rules {

struct TensorData {
  std::optional<ir::TensorType> type;  // empty only for a class with no node yet
  std::optional<double> splat;         // every element's value, rounded to the dtype
  bool cheap = false;
};

class TensorAnalysis final : public smelt::egraph::DataAnalysis<TensorData> {
 public:
  TensorLang& lang() { return lang_; }
  const TensorLang& lang() const { return lang_; }

  TensorData make_data(const smelt::egraph::EGraph& graph, smelt::egraph::NodeView node) const override;
  // Throws std::logic_error when the two classes have different types: a rule
  // (or a caller) united tensors that cannot be equal.
  bool merge_data(TensorData& into, const TensorData& from) const override;
  void modify(smelt::egraph::EGraph& graph, smelt::egraph::Id cls) override;

  // The type of a class (std::logic_error for a class with no node).
  const ir::TensorType& type(const smelt::egraph::EGraph& graph, smelt::egraph::Id cls) const;

 private:
  TensorLang lang_;
};

// A tensor e-graph: every graph op registered as a symbol, with TensorAnalysis.
smelt::egraph::EGraph make_tensor_egraph(smelt::egraph::EGraphOptions options = {});
// The analysis / language of a tensor e-graph (std::logic_error for another e-graph).
TensorAnalysis& tensor_analysis(smelt::egraph::EGraph& graph);
const TensorAnalysis& tensor_analysis(const smelt::egraph::EGraph& graph);

}  // namespace smelt::rules
