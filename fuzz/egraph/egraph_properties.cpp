// rapidcheck properties of the e-graph core. Run by ctest with a fixed seed
// (RC_PARAMS in fuzz/egraph/CMakeLists.txt); exit status 1 on any failure.
#include <rapidcheck.h>

#include <algorithm>
#include <map>
#include <functional>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "egraph/egraph.h"
#include "egraph/explanation.h"
#include "egraph/query.h"

namespace {

using namespace smelt::egraph;

// One random step: kind 0-5 add a node, 6-7 unite two earlier terms, 8 rebuild.
using Command = std::tuple<int, int, int>;  // kind, first pick, second pick

rc::Gen<std::vector<Command>> commands() {
  return rc::gen::container<std::vector<Command>>(
      rc::gen::tuple(rc::gen::inRange(0, 9), rc::gen::inRange(0, 1 << 20), rc::gen::inRange(0, 1 << 20)));
}

// A tiny language: leaves a b c, unary f, binary g.
struct Term {
  std::string op;
  std::vector<std::size_t> children;  // indices of earlier terms
};

// Naive congruence closure over the recorded terms: the reference.
class Reference {
 public:
  std::size_t add(Term term) {
    terms_.push_back(std::move(term));
    parent_.push_back(parent_.size());
    return terms_.size() - 1;
  }
  void unite(std::size_t a, std::size_t b) { parent_[find(a)] = find(b); }
  std::size_t find(std::size_t x) {
    while (parent_[x] != x) x = parent_[x];
    return x;
  }
  void close() {
    for (bool changed = true; changed;) {
      changed = false;
      std::map<std::pair<std::string, std::vector<std::size_t>>, std::size_t> seen;
      for (std::size_t t = 0; t < terms_.size(); ++t) {
        std::vector<std::size_t> key;
        for (std::size_t child : terms_[t].children) key.push_back(find(child));
        const auto [it, inserted] = seen.emplace(std::pair(terms_[t].op, key), t);
        if (!inserted && find(it->second) != find(t)) {
          unite(it->second, t);
          changed = true;
        }
      }
    }
  }
  std::size_t distinct_nodes() {
    std::set<std::pair<std::string, std::vector<std::size_t>>> nodes;
    for (const Term& term : terms_) {
      std::vector<std::size_t> key;
      for (std::size_t child : term.children) key.push_back(find(child));
      nodes.emplace(term.op, key);
    }
    return nodes.size();
  }
  const std::vector<Term>& terms() const { return terms_; }
  std::string text(std::size_t t) const {
    const Term& term = terms_[t];
    if (term.children.empty()) return term.op;
    std::string out = "(" + term.op;
    for (std::size_t child : term.children) out += " " + text(child);
    return out + ")";
  }

 private:
  std::vector<Term> terms_;
  std::vector<std::size_t> parent_;
};

// Replays commands on an e-graph and the reference; checks the invariants
// after every rebuild. Returns the e-graph handle of each term.
std::vector<Id> replay(const std::vector<Command>& script, EGraph& graph, Reference& reference, bool exact_ids) {
  static const char* const kOps[] = {"a", "b", "c", "f", "f", "g"};
  std::vector<Id> handles;
  for (const auto& [kind, first, second] : script) {
    if (kind <= 5 || handles.empty()) {
      const std::string op = kOps[std::min(kind, 5)];
      Term term{op, {}};
      if (op == "f") term.children = {static_cast<std::size_t>(first) % std::max<std::size_t>(handles.size(), 1)};
      if (op == "g")
        term.children = {static_cast<std::size_t>(first) % std::max<std::size_t>(handles.size(), 1),
                         static_cast<std::size_t>(second) % std::max<std::size_t>(handles.size(), 1)};
      if (handles.empty() && !term.children.empty()) term = Term{"a", {}};
      std::vector<Id> children;
      for (std::size_t child : term.children) children.push_back(handles[child]);
      const Op op_id = graph.symbols().intern(term.op);
      handles.push_back(exact_ids ? graph.add_uncanonical(op_id, 0, children) : graph.add(op_id, 0, children));
      reference.add(std::move(term));
    } else if (kind <= 7) {
      const std::size_t i = static_cast<std::size_t>(first) % handles.size();
      const std::size_t j = static_cast<std::size_t>(second) % handles.size();
      graph.unite(handles[i], handles[j]);
      reference.unite(i, j);
    } else {
      graph.rebuild();
      const std::vector<std::string> problems = graph.invariant_violations(1);
      RC_ASSERT(problems.empty());
    }
  }
  graph.rebuild();
  RC_ASSERT(graph.invariant_violations(1).empty());
  reference.close();
  return handles;
}

// Naive e-matching: every substitution of `pattern` at class `cls`; `ops`
// holds the (operator, payload) each op variable is bound to.
using BoundOp = std::optional<std::pair<Op, std::uint64_t>>;
void naive_match(const EGraph& graph, const Pattern& pattern, std::uint32_t node, Id cls, std::vector<Id>& subst,
                 std::vector<BoundOp>& ops, const std::function<void()>& done) {
  const Pattern::Node& pn = pattern.nodes()[node];
  if (pn.is_var) {
    if (subst[pn.var] == kNoId) {
      subst[pn.var] = cls;
      done();
      subst[pn.var] = kNoId;
    } else if (subst[pn.var] == cls) {
      done();
    }
    return;
  }
  for (Id candidate : graph.class_nodes(cls)) {
    const NodeView view = graph.node(candidate);
    if (view.children.size() != pn.children.size()) continue;
    bool bound_here = false;
    if (pn.is_op_var) {
      BoundOp& bound = ops[pn.var];
      if (!bound) {
        bound = std::pair(view.op, view.payload);
        bound_here = true;
      } else if (*bound != std::pair(view.op, view.payload)) {
        continue;
      }
    } else if (view.op != pn.op || (!pn.any_payload && view.payload != pn.payload)) {
      continue;
    }
    // Match children left to right, continuing with the next child on success.
    std::function<void(std::size_t)> child_at = [&](std::size_t i) {
      if (i == pn.children.size()) {
        done();
        return;
      }
      naive_match(graph, pattern, pn.children[i], graph.find(view.children[i]), subst, ops,
                  [&] { child_at(i + 1); });
    };
    child_at(0);
    if (bound_here) ops[pn.var].reset();
  }
}

// Every match of `pattern` by naive matching: the root class, then its variables.
std::set<std::vector<Id>> naive_matches(const EGraph& graph, const Pattern& pattern) {
  std::set<std::vector<Id>> expected;
  for (Id cls : graph.classes()) {
    std::vector<Id> subst(pattern.vars().size(), kNoId);
    std::vector<BoundOp> ops(pattern.op_vars().size());
    naive_match(graph, pattern, pattern.root(), cls, subst, ops, [&] {
      std::vector<Id> match{cls};
      match.insert(match.end(), subst.begin(), subst.end());
      expected.insert(match);
    });
  }
  return expected;
}

// The query's matches, each cut to its first `width` ids (the classes).
std::set<std::vector<Id>> query_matches(const EGraph& graph, const Query& query) {
  const std::vector<Id> flat = query.search_all(graph);
  std::set<std::vector<Id>> found;
  for (std::size_t at = 0; at < flat.size(); at += query.match_width())
    found.insert(std::vector<Id>(flat.begin() + static_cast<std::ptrdiff_t>(at),
                                 flat.begin() + static_cast<std::ptrdiff_t>(at + query.num_vars())));
  return found;
}

}  // namespace

int main() {
  bool ok = true;

  ok &= rc::check("rebuild computes the congruence closure; invariants hold after every rebuild", [] {
    EGraph graph;
    Reference reference;
    const std::vector<Id> handles = replay(*commands(), graph, reference, false);
    for (std::size_t i = 0; i < handles.size(); ++i)
      for (std::size_t j = 0; j < handles.size(); ++j)
        RC_ASSERT((graph.find(handles[i]) == graph.find(handles[j])) == (reference.find(i) == reference.find(j)));
    RC_ASSERT(graph.num_nodes() == reference.distinct_nodes());
  });

  ok &= rc::check("explanations connect every pair of equal terms", [] {
    EGraphOptions options;
    options.explanations = true;
    EGraph graph(options);
    Reference reference;
    const std::vector<Id> handles = replay(*commands(), graph, reference, true);
    for (std::size_t i = 0; i < handles.size(); ++i) {
      for (std::size_t j = i + 1; j < handles.size() && j < i + 8; ++j) {
        if (graph.find(handles[i]) != graph.find(handles[j])) continue;
        const Explanation proof = graph.explain_ids(handles[i], handles[j]);
        RC_ASSERT(proof.steps.front().term == reference.text(i));
        RC_ASSERT(proof.steps.back().term == reference.text(j));
      }
    }
  });

  ok &= rc::check("compiled matching finds exactly the naive matches", [] {
    static const std::vector<std::string> kPatterns = {
        "(f ?x)", "(g ?x ?y)", "(g ?x ?x)", "(g (f ?x) ?y)", "(f (g ?x (f ?x)))", "(g ?x a)", "(g (g ?x ?y) (f ?y))",
    };
    EGraph graph;
    Reference reference;
    replay(*commands(), graph, reference, false);
    const std::string& text = kPatterns[*rc::gen::inRange<std::size_t>(0, kPatterns.size())];
    const Pattern pattern = Pattern::parse(text, graph.symbols());
    RC_ASSERT(query_matches(graph, Query::parse(text, graph.symbols())) == naive_matches(graph, pattern));
  });

  ok &= rc::check("op variables and any-payload operators match as naive matching says", [] {
    EGraph graph;
    Reference reference;
    replay(*commands(), graph, reference, false);
    const Op f = graph.symbols().intern("f"), g = graph.symbols().intern("g");
    Pattern pattern;
    switch (*rc::gen::inRange(0, 4)) {
      case 0: {  // (g ?L ?L): one leaf operator in both operands' classes
        const std::uint32_t left = pattern.add_op_var("?L", {});
        pattern.add_op(g, 0, {left, pattern.add_op_var("?L", {})});
        break;
      }
      case 1:  // (?U (f ?x)): any unary node over an f
        pattern.add_op_var("?U", {pattern.add_op(f, 0, {pattern.add_var("?x")})});
        break;
      case 2: {  // (g#_ ?x (?U ?y)): g with any payload
        const std::uint32_t x = pattern.add_var("?x");
        pattern.add_op(g, std::nullopt, {x, pattern.add_op_var("?U", {pattern.add_var("?y")})});
        break;
      }
      default: {  // (?B (?U ?x) (?U ?x)): a binary node over two equal unary nodes of one class
        const std::uint32_t x = pattern.add_var("?x");
        const std::uint32_t left = pattern.add_op_var("?U", {x});
        const std::uint32_t right = pattern.add_op_var("?U", {pattern.add_var("?x")});
        pattern.add_op_var("?B", {left, right});
        break;
      }
    }
    const Query query = Query::from_patterns({pattern}, {}, /*yield_nodes=*/true);
    RC_ASSERT(query_matches(graph, query) == naive_matches(graph, pattern));
  });

  return ok ? 0 : 1;
}
