// The .rules parser: a reader turns bytes into s-expressions with positions,
// then the rule builder turns those into rule_ast.h and checks everything the
// language fixes statically. Rule files are fuzzed, so nothing here trusts the
// input: nesting is bounded and numbers are range-checked.
#include "rules/rule_parser.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <system_error>

#include "rules/expr_functions.h"
#include "rules/group_template.h"

namespace smelt::rules {

RuleError::RuleError(std::string file, int line, int col, std::string rule, std::string message)
    : Error(ErrorKind::kRule, (rule.empty() ? "" : "rule " + rule + ": ") + message, {std::move(file), line, col}),
      rule_(std::move(rule)),
      problem_(std::move(message)) {}

namespace {

// Deep enough for any real rule, shallow enough that recursion cannot exhaust the stack.
constexpr int kMaxDepth = 200;
// Integers stay within 2^53, as in the .sg format, so arithmetic on them cannot overflow.
constexpr int64_t kMaxMagnitude = int64_t{1} << 53;

std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

// ---- reader: bytes → s-expressions --------------------------------------------

struct SyntaxNode {
  bool is_list = false;
  char bracket = '(';     // '(' or '[' for lists
  std::string_view atom;  // when !is_list
  std::vector<SyntaxNode> items;
  SourcePos pos;
};

bool is_delimiter(char c) {
  return c == '(' || c == ')' || c == '[' || c == ']' || c == ';' || c == ' ' || c == '\t' ||
         c == '\n' || c == '\r';
}

class RuleTextReader {
 public:
  RuleTextReader(std::string_view text, const std::string& file) : text_(text), file_(file) {}

  std::vector<SyntaxNode> read_all() {
    std::vector<SyntaxNode> forms;
    for (skip_space(); at_ < text_.size(); skip_space()) {
      rule_name_.clear();
      forms.push_back(read(0));
    }
    return forms;
  }

 private:
  [[noreturn]] void fail(SourcePos p, const std::string& message) const {
    throw RuleError(file_, p.line, p.col, rule_name_, message);
  }

  void advance() {
    if (text_[at_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++at_;
  }

  void skip_space() {
    while (at_ < text_.size()) {
      char c = text_[at_];
      if (c == ';') {
        while (at_ < text_.size() && text_[at_] != '\n') advance();
      } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        advance();
      } else {
        return;
      }
    }
  }

  SyntaxNode read(int depth) {
    SyntaxNode n;
    n.pos = {line_, col_};
    char c = text_[at_];
    if (c == ')' || c == ']') fail(n.pos, std::string("unexpected '") + c + "' (unbalanced parentheses)");
    if (c == '(' || c == '[') return read_list(depth);
    size_t begin = at_;
    while (at_ < text_.size() && !is_delimiter(text_[at_])) {
      auto byte = static_cast<unsigned char>(text_[at_]);
      if (byte < 0x21 || byte > 0x7e) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02x", byte);
        fail({line_, col_}, std::string("unexpected byte ") + hex);
      }
      advance();
    }
    n.atom = text_.substr(begin, at_ - begin);
    return n;
  }

  SyntaxNode read_list(int depth) {
    SyntaxNode n;
    n.is_list = true;
    n.pos = {line_, col_};
    n.bracket = text_[at_];
    if (depth >= kMaxDepth) fail(n.pos, "nesting deeper than " + std::to_string(kMaxDepth));
    char close = n.bracket == '(' ? ')' : ']';
    advance();
    for (skip_space();; skip_space()) {
      if (at_ >= text_.size())
        fail(n.pos, std::string("unclosed '") + n.bracket + "' (unbalanced parentheses)");
      char c = text_[at_];
      if (c == ')' || c == ']') {
        if (c != close)
          fail({line_, col_}, std::string("expected '") + close + "' to close the '" + n.bracket +
                                  "' at " + std::to_string(n.pos.line) + ":" +
                                  std::to_string(n.pos.col) + ", found '" + c + "'");
        advance();
        return n;
      }
      n.items.push_back(read(depth + 1));
      // Remember the rule's name so that later syntax errors inside it can name it.
      if (depth == 0 && n.items.size() == 2 && !n.items[0].is_list && n.items[0].atom == "rule" &&
          !n.items[1].is_list)
        rule_name_ = std::string(n.items[1].atom);
    }
  }

  std::string_view text_;
  const std::string& file_;
  size_t at_ = 0;
  int line_ = 1, col_ = 1;
  std::string rule_name_;
};

// ---- the functions of expressions ---------------------------------------------

// ---- atoms ----------------------------------------------------------------------

bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_name_char(char c) {
  return is_name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
}
bool is_name(std::string_view s) {
  return !s.empty() && is_name_start(s[0]) && std::all_of(s.begin(), s.end(), is_name_char);
}
bool is_variable(std::string_view s) { return s.size() >= 2 && s[0] == '?' && is_name(s.substr(1)); }
bool is_keyword(const SyntaxNode& n) { return !n.is_list && !n.atom.empty() && n.atom[0] == ':'; }

bool is_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}
// -?[0-9]+
bool looks_integer(std::string_view s) {
  if (!s.empty() && s[0] == '-') s.remove_prefix(1);
  return is_digits(s);
}
// -?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?
bool looks_float(std::string_view s) {
  if (!s.empty() && s[0] == '-') s.remove_prefix(1);
  size_t i = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  if (i == 0) return false;
  if (i < s.size() && s[i] == '.') {
    size_t j = ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == j) return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (!is_digits(s.substr(i))) return false;
    i = s.size();
  }
  return i == s.size();
}

bool is_factory(ir::Op op) { return ir::op_class(op) == ir::OpClass::Factory; }

// Attributes an op accepts, by .sg key; factories add "shape" and "dtype" (their result type).
bool accepts_attr(ir::Op op, std::string_view key) {
  if (is_factory(op) && (key == "shape" || key == "dtype")) return true;
  auto k = ir::parse_attr_key(key);
  return k && (ir::op_info(op).attrs & *k);
}

std::string accepted_attrs(ir::Op op) {
  std::string list;
  for (ir::AttrKey k : ir::kAllAttrKeys)
    if (ir::op_info(op).attrs & k) list += (list.empty() ? ":" : " :") + std::string(ir::attr_key_name(k));
  if (is_factory(op)) list += (list.empty() ? ":" : " :") + std::string("shape :dtype");
  return list.empty() ? "none" : list;
}

// The attributes a right side must give: all but those with .sg defaults
// (slice's step, pad's value, reductions' keepdims).
std::vector<std::string> required_attrs(ir::Op op) {
  std::vector<std::string> keys;
  for (ir::AttrKey k : ir::kAllAttrKeys) {
    if (!(ir::op_info(op).attrs & k)) continue;
    if (k == ir::kAttrStep || k == ir::kAttrKeepdims || (k == ir::kAttrValue && op == ir::Op::Pad))
      continue;
    keys.emplace_back(ir::attr_key_name(k));
  }
  if (is_factory(op)) {
    keys.emplace_back("shape");
    keys.emplace_back("dtype");
  }
  return keys;
}

// ---- rule builder: s-expressions → AST ------------------------------------------

enum class VarKind : uint8_t { kTensor, kOp, kAttr };

std::string_view kind_name(VarKind k) {
  switch (k) {
    case VarKind::kTensor: return "a tensor variable";
    case VarKind::kOp: return "an op variable";
    case VarKind::kAttr: return "an attribute variable";
  }
  return "?";
}

enum class Side : uint8_t { kLhs, kRhs };

class RuleBuilder {
 public:
  explicit RuleBuilder(const std::string& file) : file_(file) {}

  std::vector<Rule> build(const std::vector<SyntaxNode>& forms) {
    std::vector<Rule> rules;
    std::map<std::string, SourcePos> seen;
    for (const SyntaxNode& form : forms) {
      rule_name_.clear();
      if (!form.is_list || form.bracket != '(' || form.items.empty() || form.items[0].is_list)
        fail(form.pos, "expected (rule NAME ...) or (family NAME)");
      std::string_view head = form.items[0].atom;
      if (head == "family") {
        if (form.items.size() != 2 || form.items[1].is_list || !is_name(form.items[1].atom))
          fail(form.pos, "expected (family NAME)");
        family_ = std::string(form.items[1].atom);
      } else if (head == "rule") {
        Rule r = build_rule(form);
        std::vector<Rule> built;
        if (members_max_ > 0) {
          built = instances(r);
        } else {
          built.push_back(std::move(r));
        }
        for (Rule& b : built) {
          auto [it, inserted] = seen.emplace(b.name, b.pos);
          if (!inserted)
            fail(b.pos, "duplicate rule name (first defined at " + std::to_string(it->second.line) +
                            ":" + std::to_string(it->second.col) + ")");
          rules.push_back(std::move(b));
        }
      } else {
        fail(form.items[0].pos, "unknown form " + quoted(head) + " (expected rule or family)");
      }
    }
    return rules;
  }

 private:
  [[noreturn]] void fail(SourcePos p, const std::string& message) const {
    throw RuleError(file_, p.line, p.col, rule_name_, message);
  }

  // Every variable has one kind in a rule; the first use decides it.
  void note_var(std::string_view name, VarKind kind, SourcePos pos) {
    auto [it, inserted] = kinds_.emplace(std::string(name), kind);
    if (!inserted && it->second != kind)
      fail(pos, std::string(name) + " is used as " + std::string(kind_name(kind)) +
                    " here but as " + std::string(kind_name(it->second)) + " elsewhere");
  }

  // The instances of a group template, each checked like a rule of its own;
  // for `:members MIN *` a few instances and the member lemma, which covers
  // every n (group_template.h), with the template for saturation to
  // instantiate any n from.
  std::vector<Rule> instances(const Rule& tmpl) {
    std::vector<Rule> out;
    const int last = unbounded_ ? std::max(members_min_, kInstancesOfUnbounded) : members_max_;
    for (int n = members_min_; n <= last; ++n) {
      try {
        out.push_back(group_instance(tmpl, shared_, n, distinct_));
      } catch (const std::logic_error& e) {
        fail(tmpl.pos, e.what());
      }
      check_bindings(out.back());
    }
    if (unbounded_) {
      try {
        out.push_back(group_member_lemma(tmpl, shared_, distinct_));
      } catch (const std::logic_error& e) {
        fail(tmpl.pos, e.what());
      }
      out.back().group->tmpl = std::make_shared<const Rule>(tmpl);
      out.back().group->min_members = members_min_;
    }
    return out;
  }

  // `:shared ?v...` / `:distinct ?v...`: once per rule, ?variables only.
  void read_variables(const SyntaxNode& clause, std::span<const SyntaxNode> args, const char* key, bool& seen,
                      std::vector<std::string>& out) {
    if (seen) fail(clause.pos, std::string("a second ") + key + " clause");
    seen = true;
    for (const SyntaxNode& a : args) {
      if (a.is_list || !is_variable(a.atom)) fail(a.pos, std::string(key) + " takes ?variables");
      out.emplace_back(a.atom);
    }
  }

  // `:members MIN MAX`: 2 <= MIN <= MAX <= kMaxMembers; `:members MIN *`: any n >= MIN.
  void read_members(const SyntaxNode& clause, std::span<const SyntaxNode> args) {
    static const std::string usage = ":members takes two counts, MIN and MAX (or *: no largest)";
    auto count = [&](const SyntaxNode& n) {
      if (n.is_list || !is_digits(n.atom) || n.atom.size() > 3) fail(n.pos, usage);
      return std::stoi(std::string(n.atom));
    };
    if (args.size() != 2) fail(clause.pos, usage);
    members_min_ = count(args[0]);
    unbounded_ = !args[1].is_list && args[1].atom == "*";
    members_max_ = unbounded_ ? kMaxMembers : count(args[1]);
    if (members_min_ < 2 || members_min_ > members_max_ || members_max_ > kMaxMembers)
      fail(clause.pos, ":members needs 2 <= MIN <= MAX <= " + std::to_string(kMaxMembers) + " (or MAX *)");
  }

  Rule build_rule(const SyntaxNode& form) {
    kinds_.clear();
    op_arity_.clear();
    members_min_ = members_max_ = 0;
    unbounded_ = false;
    shared_.clear();
    distinct_.clear();
    bool have_shared = false, have_distinct = false;
    if (form.items.size() < 2 || form.items[1].is_list || !is_name(form.items[1].atom))
      fail(form.pos, "expected a rule name after 'rule' (letters, digits, '-', '_', '.')");
    Rule r;
    r.name = std::string(form.items[1].atom);
    rule_name_ = r.name;
    r.family = family_;
    r.file = file_;
    r.pos = form.pos;
    bool have_lhs = false, have_rhs = false;
    size_t i = 2;
    while (i < form.items.size()) {
      const SyntaxNode& clause = form.items[i];
      if (!is_keyword(clause))
        fail(clause.pos, "expected a clause (:lhs :rhs :let :if :members :shared :distinct :unsafe-fp)");
      size_t end = i + 1;
      while (end < form.items.size() && !is_keyword(form.items[end])) ++end;
      std::span<const SyntaxNode> args(form.items.data() + i + 1, end - i - 1);
      std::string_view key = clause.atom;
      if (key == ":lhs" || key == ":rhs") {
        bool lhs = key == ":lhs";
        if (lhs ? have_lhs : have_rhs) fail(clause.pos, "a second " + std::string(key) + " clause");
        (lhs ? have_lhs : have_rhs) = true;
        if (args.empty() || args.size() > 2)
          fail(clause.pos, std::string(key) + " takes one term, or two for a multi-pattern rule");
        for (const SyntaxNode& a : args)
          (lhs ? r.lhs : r.rhs).push_back(term(a, lhs ? Side::kLhs : Side::kRhs));
      } else if (key == ":let") {
        if (args.size() != 2 || args[0].is_list || !is_variable(args[0].atom))
          fail(clause.pos, ":let takes a ?variable and a term");
        note_var(args[0].atom, VarKind::kTensor, args[0].pos);
        r.lets.emplace_back(std::string(args[0].atom), term(args[1], Side::kRhs));
      } else if (key == ":if") {
        if (args.size() != 1) fail(clause.pos, ":if takes one condition (use several :if clauses)");
        r.conditions.push_back(expr(args[0]));
      } else if (key == ":members") {
        if (members_max_ > 0) fail(clause.pos, "a second :members clause");
        read_members(clause, args);
      } else if (key == ":shared") {
        read_variables(clause, args, ":shared", have_shared, shared_);
      } else if (key == ":distinct") {
        read_variables(clause, args, ":distinct", have_distinct, distinct_);
      } else if (key == ":unsafe-fp") {
        if (!args.empty()) fail(args[0].pos, ":unsafe-fp takes no arguments");
        r.unsafe_fp = true;
      } else {
        fail(clause.pos,
             "unknown clause " + quoted(key) + " (expected :lhs :rhs :let :if :members :shared :distinct :unsafe-fp)");
      }
      i = end;
    }
    if (!have_lhs) fail(form.pos, "missing :lhs");
    if (!have_rhs) fail(form.pos, "missing :rhs");
    if (r.lhs.size() != r.rhs.size())
      fail(form.pos, ":lhs has " + std::to_string(r.lhs.size()) + " terms but :rhs has " +
                         std::to_string(r.rhs.size()));
    for (const Term& t : r.lhs)
      if (t.kind == Term::Kind::kVar)
        fail(t.pos, "a left-side root must be an op term, not a bare variable");
    if (have_shared && members_max_ == 0)
      fail(form.pos, ":shared needs :members (it names a group's shared variables)");
    if (have_distinct && members_max_ == 0)
      fail(form.pos, ":distinct needs :members (it names per-member variables)");
    for (const std::string& d : distinct_)
      if (auto k = kinds_.find(d); k != kinds_.end() && k->second != VarKind::kTensor)
        fail(form.pos, ":distinct " + d + " is not a tensor variable");
    if (members_max_ > 0) {
      if (r.lhs.size() != 1) fail(form.pos, "a group template (:members) has one :lhs term, that of one member");
      return r;  // its instances are checked (RuleBuilder::instances)
    }
    check_bindings(r);
    return r;
  }

  // ---- terms ----

  Term term(const SyntaxNode& n, Side side) {
    Term t;
    t.pos = n.pos;
    if (!n.is_list) {
      if (!is_variable(n.atom)) {
        if (looks_integer(n.atom) || looks_float(n.atom))
          fail(n.pos, "a literal cannot be an operand: bind a ?variable and test it with (const ?v)");
        fail(n.pos, "expected a term (a ?variable or (op ...)), found " + quoted(n.atom));
      }
      t.kind = Term::Kind::kVar;
      t.var = std::string(n.atom);
      note_var(t.var, VarKind::kTensor, n.pos);
      return t;
    }
    if (n.bracket != '(') fail(n.pos, "expected a term, found a '[' list");
    if (n.items.empty()) fail(n.pos, "an empty term ()");
    const SyntaxNode& head = n.items[0];
    if (head.is_list) fail(head.pos, "expected an op name or ?op-variable");
    std::optional<ir::Op> op;
    if (is_variable(head.atom)) {
      t.kind = Term::Kind::kOpVar;
      t.op_var = std::string(head.atom);
      note_var(t.op_var, VarKind::kOp, head.pos);
    } else {
      op = ir::parse_op(head.atom);
      if (!op) fail(head.pos, "unknown op " + quoted(head.atom));
      if (*op == ir::Op::Input)
        fail(head.pos, "input cannot appear in a rule (a ?variable matches any tensor)");
      t.kind = Term::Kind::kOp;
      t.op = *op;
    }
    size_t i = 1;
    for (; i < n.items.size() && !is_keyword(n.items[i]); ++i)
      t.operands.push_back(term(n.items[i], side));
    for (; i < n.items.size(); i += 2) {
      const SyntaxNode& key = n.items[i];
      if (!is_keyword(key)) fail(key.pos, "operands come before attributes");
      std::string_view name = key.atom.substr(1);
      if (!op) fail(key.pos, "an op variable takes no attributes (it keeps those of the matched op)");
      if (!accepts_attr(*op, name))
        fail(key.pos, std::string(ir::op_name(*op)) + " has no attribute " + quoted(key.atom) +
                          " (accepted: " + accepted_attrs(*op) + ")");
      for (const auto& [k, v] : t.attrs)
        if (k == name) fail(key.pos, "attribute " + quoted(key.atom) + " given twice");
      if (i + 1 >= n.items.size() || is_keyword(n.items[i + 1]))
        fail(key.pos, "attribute " + quoted(key.atom) + " needs a value");
      t.attrs.emplace_back(std::string(name), expr(n.items[i + 1]));
    }
    int count = static_cast<int>(t.operands.size());
    if (op) {
      int arity = ir::op_info(*op).arity;
      if (arity >= 0 && count != arity)
        fail(head.pos, std::string(ir::op_name(*op)) + " takes " + std::to_string(arity) +
                           " operand" + (arity == 1 ? "" : "s") + ", given " + std::to_string(count));
      if (arity < 0 && count == 0)
        fail(head.pos, std::string(ir::op_name(*op)) + " takes at least one operand");
      if (side == Side::kRhs)
        for (const std::string& k : required_attrs(*op))
          if (std::none_of(t.attrs.begin(), t.attrs.end(), [&](const auto& a) { return a.first == k; }))
            fail(head.pos, "on the right side " + std::string(ir::op_name(*op)) + " needs :" + k);
    } else {
      if (count == 0) fail(head.pos, "an op variable needs at least one operand");
      auto [it, inserted] = op_arity_.emplace(t.op_var, count);
      if (!inserted && it->second != count)
        fail(head.pos, t.op_var + " is used with " + std::to_string(count) + " operands here but " +
                           std::to_string(it->second) + " elsewhere");
    }
    return t;
  }

  // ---- expressions ----

  Expr expr(const SyntaxNode& n) {
    Expr e;
    e.pos = n.pos;
    if (!n.is_list) return atom_expr(n);
    if (n.bracket == '[') {
      e.kind = Expr::Kind::kList;
      for (const SyntaxNode& item : n.items) e.args.push_back(expr(item));
      return e;
    }
    if (n.items.empty()) fail(n.pos, "an empty expression ()");
    const SyntaxNode& head = n.items[0];
    if (head.is_list) fail(head.pos, "expected a function name");
    const ExprFunction* sig = find_expr_function(head.atom);
    if (!sig) fail(head.pos, "unknown function " + quoted(head.atom));
    int count = static_cast<int>(n.items.size()) - 1;
    if (count < sig->min_args || (sig->max_args != kAnyNumberOfArgs && count > sig->max_args)) {
      std::string want = sig->max_args == sig->min_args ? std::to_string(sig->min_args)
                         : sig->max_args == kAnyNumberOfArgs       ? "at least " + std::to_string(sig->min_args)
                                                        : std::to_string(sig->min_args) + " or " +
                                                              std::to_string(sig->max_args);
      fail(head.pos, quoted(head.atom) + " takes " + want + " argument" +
                         (want == "1" ? "" : "s") + ", given " + std::to_string(count));
    }
    e.kind = Expr::Kind::kCall;
    e.name = std::string(head.atom);
    for (int k = 0; k < count; ++k) {
      const SyntaxNode& a = n.items[k + 1];
      ArgKind kind = k == 0 ? sig->first : k == 1 ? sig->second : ArgKind::kValue;
      e.args.push_back(kind == ArgKind::kValue ? expr(a) : special_arg(a, kind, e.name));
    }
    return e;
  }

  // The tensor, op-variable or op-name argument of a function like (shape ?x).
  Expr special_arg(const SyntaxNode& a, ArgKind kind, const std::string& fn) {
    Expr e;
    e.pos = a.pos;
    if (kind == ArgKind::kOpName) {
      if (a.is_list || !ir::parse_op(a.atom))
        fail(a.pos, "(" + fn + " ...) expects an op name here");
      e.kind = Expr::Kind::kSymbol;
      e.name = std::string(a.atom);
      return e;
    }
    if (a.is_list || !is_variable(a.atom))
      fail(a.pos, "(" + fn + " ...) expects " +
                      (kind == ArgKind::kTensor ? "a tensor ?variable" : "an op ?variable") + " here");
    e.kind = Expr::Kind::kVar;
    e.name = std::string(a.atom);
    note_var(e.name, kind == ArgKind::kTensor ? VarKind::kTensor : VarKind::kOp, a.pos);
    return e;
  }

  Expr atom_expr(const SyntaxNode& n) {
    Expr e;
    e.pos = n.pos;
    std::string_view s = n.atom;
    if (is_variable(s)) {
      e.kind = Expr::Kind::kVar;
      e.name = std::string(s);
      note_var(s, VarKind::kAttr, n.pos);
    } else if (looks_integer(s)) {
      e.kind = Expr::Kind::kInt;
      auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), e.int_value);
      if (ec != std::errc() || end != s.data() + s.size() || e.int_value > kMaxMagnitude ||
          e.int_value < -kMaxMagnitude)
        fail(n.pos, "integer " + quoted(s) + " out of range (|v| <= 2^53)");
    } else if (looks_float(s) || s == "inf" || s == "-inf" || s == "nan") {
      e.kind = Expr::Kind::kFloat;
      std::string copy(s);
      e.float_value = s == "nan" ? std::nan("") : std::strtod(copy.c_str(), nullptr);
      if (std::isinf(e.float_value) && s.find("inf") == std::string_view::npos)
        fail(n.pos, "number " + quoted(s) + " out of range");
    } else if (s == "true" || s == "false") {
      e.kind = Expr::Kind::kBool;
      e.bool_value = s == "true";
    } else if (auto dt = ir::parse_dtype(s)) {
      e.kind = Expr::Kind::kDType;
      e.dtype = *dt;
    } else if (is_keyword(n)) {
      fail(n.pos, "unexpected " + quoted(s) + " (a clause or attribute key is not a value)");
    } else {
      fail(n.pos, "unknown name " + quoted(s) +
                      " (expected a number, true/false, a dtype, a ?variable, [list] or (function ...))");
    }
    return e;
  }

  // ---- bindings ----

  struct Bound {
    std::set<std::string> tensors, ops, attrs;
  };

  // The left side binds; its attribute expressions that are not plain variables
  // may only use attribute variables bound somewhere on the left.
  static void bind_lhs(const Term& t, Bound& b) {
    if (t.kind == Term::Kind::kVar) b.tensors.insert(t.var);
    if (t.kind == Term::Kind::kOpVar) b.ops.insert(t.op_var);
    for (const auto& [k, v] : t.attrs)
      if (v.kind == Expr::Kind::kVar) b.attrs.insert(v.name);
    for (const Term& o : t.operands) bind_lhs(o, b);
  }

  void require_bound(const Expr& e, const Bound& b, const std::string& where) const {
    if (e.kind == Expr::Kind::kVar) {
      bool bound = b.tensors.count(e.name) || b.ops.count(e.name) || b.attrs.count(e.name);
      if (!bound) fail(e.pos, "unbound variable " + e.name + " in " + where);
    }
    for (const Expr& a : e.args) require_bound(a, b, where);
  }

  void require_bound(const Term& t, const Bound& b, const std::string& where) const {
    if (t.kind == Term::Kind::kVar && !b.tensors.count(t.var))
      fail(t.pos, "unbound variable " + t.var + " in " + where);
    if (t.kind == Term::Kind::kOpVar && !b.ops.count(t.op_var))
      fail(t.pos, "unbound op variable " + t.op_var + " in " + where +
                      " (op variables are bound by the left side)");
    for (const auto& [k, v] : t.attrs) require_bound(v, b, where);
    for (const Term& o : t.operands) require_bound(o, b, where);
  }

  void check_bindings(const Rule& r) const {
    Bound b;
    for (const Term& t : r.lhs) bind_lhs(t, b);
    for (const Term& t : r.lhs) require_bound(t, b, ":lhs");
    // Conditions see the left side's variables only: they are checked on a match,
    // before anything of the right side exists.
    for (const Expr& c : r.conditions) require_bound(c, b, ":if (conditions see the left side only)");
    for (const auto& [name, t] : r.lets) {
      if (b.tensors.count(name)) fail(t.pos, ":let " + name + " is already bound");
      require_bound(t, b, ":let " + name);
      b.tensors.insert(name);
    }
    for (const Term& t : r.rhs) require_bound(t, b, ":rhs");
  }

  static constexpr int kMaxMembers = 16;
  // The instances a `:members MIN *` template ships besides its member lemma
  // (MIN..4): proved one by one, a check on the lemma for small n.
  static constexpr int kInstancesOfUnbounded = 4;

  const std::string& file_;
  int members_min_ = 0, members_max_ = 0;  // of the rule being built; 0: not a group template
  bool unbounded_ = false;                 // `:members MIN *`
  std::vector<std::string> shared_;
  std::vector<std::string> distinct_;
  std::string family_;
  std::string rule_name_;
  std::map<std::string, VarKind> kinds_;
  std::map<std::string, int> op_arity_;
};

}  // namespace

std::vector<Rule> parse_rules(std::string_view text, const std::string& file) {
  std::vector<SyntaxNode> forms = RuleTextReader(text, file).read_all();
  return RuleBuilder(file).build(forms);
}

void check_unique_names(std::span<const Rule> rules) {
  std::map<std::string, const Rule*> seen;
  for (const Rule& r : rules) {
    auto [it, inserted] = seen.emplace(r.name, &r);
    if (!inserted)
      throw RuleError(r.file, r.pos.line, r.pos.col, r.name,
                      "duplicate rule name (first defined at " + it->second->file + ":" +
                          std::to_string(it->second->pos.line) + ":" +
                          std::to_string(it->second->pos.col) + ")");
  }
}

}  // namespace smelt::rules
