#include "extract/extractor.h"

#include "extract/bottom_up.h"
#include "extract/exact.h"
#include "extract/greedy_dag.h"
#include "extract/local_search.h"

namespace smelt::extract {

std::unique_ptr<Extractor> make_extractor(std::string_view name) {
  if (name == "bottom-up") return std::make_unique<BottomUpExtractor>();
  if (name == "greedy-dag") return std::make_unique<GreedyDagExtractor>();
  if (name == "local-search") return std::make_unique<LocalSearchExtractor>();
  if (name == "exact") return std::make_unique<ExactExtractor>();
  return nullptr;
}

std::vector<std::string> extractor_names() { return {"bottom-up", "greedy-dag", "local-search", "exact"}; }

}  // namespace smelt::extract
