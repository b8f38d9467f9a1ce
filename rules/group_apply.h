#pragma once
// Applies the instances of one group template (rules/group_template.h) to
// whole groups of matches, so that n towers become one n-wide form at once
// instead of nested pairwise ones (and no ordered subset of them is ever built):
//   1. every match of the member pattern, one per class;
//   2. members with equal shared variables form a group;
//   3. a group splits into levels: a member's level is one more than the
//      highest level of the members it reaches through its operands, so no
//      member of a level reaches another (the batched form would be a cycle);
//   4. a level splits into clusters that satisfy the instance's conditions with
//      their first member (e.g. equal shapes), in class order, and whose
//      members bind the template's :distinct variables to different classes;
//   5. a cluster is cut into chunks of the largest instance that fits, and each
//      chunk whose instance's conditions hold is applied like any rule match.
//      A template's member lemma (`:members MIN *`) stands for an instance of
//      every n, built on demand: a cluster is one chunk, up to
//      kMaxOnDemandMembers members (a bound on the size of an instance built).
// Which matches form a group is a heuristic; each application is an instance
// of the template, proved like any rule (verify/), so it is sound either way.
#include <chrono>
#include <cstddef>
#include <span>
#include <vector>

#include "egraph/egraph.h"
#include "rules/compiled_rule.h"

namespace smelt::rules {

inline constexpr std::size_t kMaxOnDemandMembers = 255;

struct GroupApplication {
  std::vector<size_t> applied;  // by instance (the span's order): chunks applied
  std::vector<size_t> unions;   // by instance: unions that changed the e-graph
};

// `instances`: compiled instances of one template (Rule::group set, the same
// name), any subset of its member counts, and maybe its member lemma (whose
// applications, of instances built on demand, are counted at its position). Searches the e-graph's current
// snapshot (clean, or frozen by an IndexReadGuard) and applies instance i's
// matches with justification why[i].
GroupApplication apply_groups(smelt::egraph::EGraph& graph, std::span<const CompiledRule* const> instances,
                              std::span<const smelt::egraph::Justification> why,
                              std::chrono::steady_clock::time_point deadline =
                                  std::chrono::steady_clock::time_point::max());

}  // namespace smelt::rules
