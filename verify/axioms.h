#pragma once
// Universally quantified facts about element values (value_domain.h) and two
// ways to give them to Z3: as quantifiers with a trigger pattern (Z3's
// E-matching), or as ground instances over the terms of a formula, which keeps
// the formula quantifier-free so that a failed proof comes with a model.
#include <vector>

#include <z3++.h>

namespace smelt::verify {

struct Axiom {
  std::vector<z3::expr> vars;  // constants standing for the bound variables
  z3::expr pattern;            // mentions every variable
  z3::expr fact;
};

// forall vars {pattern}: fact
z3::expr quantify(const Axiom& a);

// Instances of the axioms for the terms of `formulas`: a pattern's applications
// match syntactically, its constants and repeated variables under the
// condition that they are equal ("t == lit 1 -> mul(d,x,t) = x"). New terms
// from instances are matched again, for `rounds` rounds. Terms that mention a
// variable bound outside them (inside a lambda's body) are not instantiated;
// closed lambdas (a sum's body) are terms like any other.
z3::expr_vector ground_instances(const std::vector<Axiom>& axioms, const z3::expr_vector& formulas,
                                 int rounds);

}  // namespace smelt::verify
