#pragma once
// Translation validation of index simplification (DESIGN.md, verify/): for
// every index expression of every kernel, Z3 (integer theory) proves that the
// simplified form equals the raw, composed one for every variable value in
// range. A mask must keep its truth value everywhere; a load's index must keep
// its value wherever the load's raw mask holds (elsewhere the load reads the
// pad value and the index is never used); an index value (iota) must keep its
// value everywhere. Every query has a time (and optionally a resource) limit.
// A slot that one query cannot settle is proved step by step: bottom-up over
// the raw expression, each node (over its children's proven forms) is shown
// equal to the simplifier's form of that node, which then stands for it — the
// simplifier only proposes, every equality used is proved. A counterexample
// or an unknown answer means the simplification is not used and the raw
// expression stays in that slot. A query proved in an earlier kernel of the
// program (a model's repeated layers) is not asked again.
#include <cstdint>
#include <string>
#include <vector>

#include "kernel/index_simplify.h"
#include "kernel/kernel.h"

namespace smelt::verify {

struct IndexValidationOptions {
  // Per query. The first, direct query of a slot gets a quarter of it; a slot
  // spends at most five in all.
  unsigned query_timeout_ms = 2000;
  // Z3's deterministic resource limit per query ("rlimit"); 0: none.
  unsigned query_resource_limit = 0;
  // Seconds for every proof of a program (validate_and_simplify) or kernel
  // (validate_kernel) together; slots reached after it keep their raw form.
  double time_limit_s = 1e7;
};

enum class IndexOutcome : uint8_t {
  kUnchanged,       // the simplifier left the expression as it was: nothing to prove
  kProved,          // raw ≡ simplified in range: the simplified form is used
  kCounterexample,  // they differ at `counterexample`: the raw form is kept
  kUnknown,         // timeout, resource limit or solver error: the raw form is kept
};
std::string_view outcome_name(IndexOutcome o);

struct IndexCheck {
  kernel::IndexSlot slot;
  IndexOutcome outcome = IndexOutcome::kUnchanged;
  std::string raw, simplified;          // printed, with the kernel's variable names
  std::vector<int64_t> counterexample;  // kCounterexample: one value per kernel variable
  std::string reason;                   // kUnknown: why
  int steps = 0;  // kProved through intermediate equalities (0: one query did it)
  // kProved by the same query in an earlier kernel of the program (the same
  // printed expressions, mask and variable ranges): not asked again.
  bool reused = false;
  double seconds = 0;
};

struct KernelValidation {
  std::string kernel;
  std::vector<std::string> var_names;  // i0, i1, ... then r0, ... (as kernel::print_program names them)
  std::vector<IndexCheck> checks;  // one per index slot (kernel::index_slots)
  double seconds = 0;
  int count(IndexOutcome o) const;
};

struct ValidationReport {
  std::vector<KernelValidation> kernels;
  bool stopped_at_time_limit = false;  // some slots kept their raw form for want of time
  int count(IndexOutcome o) const;
  // One line per kernel ("proved 3, unchanged 5, fell back 0, counterexamples 0,
  // 12.3 ms") followed by every slot that was not proved.
  std::string str() const;
};

// Checks every slot of `simplified` — `raw` with other index expressions —
// against `raw`; each slot that is not proved gets raw's expression back (so
// `simplified` is then correct whatever the simplifier did).
KernelValidation validate_kernel(const kernel::Kernel& raw, kernel::Kernel& simplified,
                                 const IndexValidationOptions& options = {});

// Simplifies every kernel of `program` (kernel::simplify_kernel), validates each
// simplification against the raw form and keeps only the proved ones.
ValidationReport validate_and_simplify(kernel::KernelProgram& program, const IndexValidationOptions& options = {});

}  // namespace smelt::verify
