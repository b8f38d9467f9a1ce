#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "egraph/egraph.h"
#include "egraph/pattern.h"

namespace smelt::egraph {

// What to search for: one pattern, or several patterns sharing variables (a
// multi-pattern: all must match at once, e.g. two roots over a common ?a).
// Variable 0 is the root of the first pattern. Patterns are compiled into a
// small matching program (egg's machine) run over the e-graph's ClassIndex.
class Query {
 public:
  // One pattern; its root is variable "?root" unless written "(= ?name PATTERN)".
  static Query parse(std::string_view pattern, SymbolTable& symbols, std::string_view source = "pattern");
  // Several patterns; each may name its root with "(= ?name PATTERN)".
  static Query parse_all(std::span<const std::string> patterns, SymbolTable& symbols,
                         std::string_view source = "pattern");

  std::size_t num_vars() const { return var_names_.size(); }
  const std::vector<std::string>& var_names() const { return var_names_; }
  std::optional<std::uint32_t> var_index(std::string_view name) const;
  const std::vector<Pattern>& patterns() const { return patterns_; }
  // Query variable of pattern p's variable v.
  std::uint32_t query_var(std::size_t p, std::uint32_t v) const { return var_maps_[p][v]; }
  std::uint32_t root_var(std::size_t p) const { return root_vars_[p]; }

  // Receives matches in batches: a flat array, num_vars() class ids per match.
  // Returns false to stop the search.
  using Sink = std::function<bool(std::span<const Id> matches)>;
  // Runs on a clean e-graph; stops once at least `limit` matches were handed
  // out. It reads only the ClassIndex and node words (never the union-find),
  // so the sink may apply rewrites while the search goes on. Returns the
  // number of matches handed to the sink.
  std::size_t search(const EGraph& graph, const Sink& sink,
                     std::size_t limit = std::numeric_limits<std::size_t>::max()) const;
  // Convenience for tests: every match, flat.
  std::vector<Id> search_all(const EGraph& graph) const;

  struct Instruction {
    enum class Kind : std::uint8_t { kScanOp, kScanClasses, kBind, kCompare, kCheckGround, kYield };
    Kind kind = Kind::kYield;
    std::uint32_t reg = 0;    // class register read (kBind, kCompare, kCheckGround) or written (scans)
    std::uint32_t other = 0;  // kCompare: second register; kCheckGround: ground term index
    Op op = 0;
    std::uint64_t payload = 0;
    std::uint32_t arity = 0;
    std::uint32_t out = 0;    // first register receiving the node's children
  };
  const std::vector<Instruction>& program() const { return program_; }

 private:
  void add_pattern(Pattern pattern, std::optional<std::string> root_name);
  void compile();
  void compile_node(std::size_t p, std::uint32_t node, std::uint32_t reg, bool scan);

  std::vector<Pattern> patterns_;
  std::vector<std::vector<std::uint32_t>> var_maps_;
  std::vector<std::uint32_t> root_vars_;
  std::vector<std::string> var_names_;
  std::vector<Instruction> program_;
  std::vector<std::uint32_t> var_regs_;  // register holding each variable
  std::vector<RecExpr> ground_terms_;    // looked up once per search
  std::uint32_t num_regs_ = 0;
};

}  // namespace smelt::egraph
