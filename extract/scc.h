#pragma once
// Strongly connected components of the class graph (c -> k when a node of c
// has child class k): acyclicity only has to be enforced inside a component.
#include <vector>

#include "extract/problem.h"

namespace smelt::extract {

struct Components {
  std::vector<std::uint32_t> of_class;  // component index of each class
  std::vector<std::uint32_t> size;      // classes per component
};

Components class_components(const Problem& problem);

}  // namespace smelt::extract
