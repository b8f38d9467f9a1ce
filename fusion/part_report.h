#pragma once
// What the fusion search did with one part of a program (fusion/program_parts.h):
// `smelt compile --report` and `--json` print one per part.
#include <cstddef>
#include <string>

namespace smelt::fusion {

struct PartReport {
  size_t first_value = 0, last_value = 0;  // the graph's values it covers (ValueIds, inclusive)
  size_t ops = 0;                          // the graph's ops among them
  size_t classes = 0;                      // e-classes in its region of the e-graph
  // "searched", "looked up" (an identical part's answer: `same_as`), "searched,
  // stopped at the work limit" / "... time limit", or "nothing to compute".
  std::string decided;
  size_t same_as = 0;       // looked up: the part searched (its index)
  size_t evaluations = 0;   // programs priced while searching it
  double predicted_us = 0;  // its program alone (a looked-up part: the one searched)
  double seconds = 0;
};

}  // namespace smelt::fusion
