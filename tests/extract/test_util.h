#pragma once
// Small e-graphs written inline, for the extract tests.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "egraph/serialize.h"
#include "extract/problem.h"

namespace smelt::extract::testing {

inline const std::filesystem::path kGym = SMELT_EXTRACTION_GYM_DIR;

inline Problem parse_problem(const std::string& json) {
  return problem_from_serialized(egraph::read_serialized(json, "test"));
}

// The node of `problem` named `name` (node names are the file's keys).
inline NodeId node_named(const Problem& problem, const std::string& name) {
  for (NodeId n = 0; n < problem.num_nodes(); ++n)
    if (problem.node_name(n) == name) return n;
  ADD_FAILURE() << "no node " << name;
  return kNone;
}

inline ClassId class_named(const Problem& problem, const std::string& name) {
  for (ClassId c = 0; c < problem.num_classes(); ++c)
    if (problem.class_name(c) == name) return c;
  ADD_FAILURE() << "no class " << name;
  return kNone;
}

}  // namespace smelt::extract::testing
