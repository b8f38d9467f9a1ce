#include "verify/params.h"

namespace smelt::verify {

std::vector<int64_t> finite_range(ParamKind kind) {
  switch (kind) {
    case ParamKind::kExtent: return {0, 1, 2, 3, 4};
    case ParamKind::kStep: return {-3, -2, -1, 1, 2, 3};
    case ParamKind::kInt: return {-2, -1, 0, 1, 2, 3, 4, 5, 6};
    case ParamKind::kDType: return {0, 1, 2, 3, 4, 5};
  }
  return {};
}

std::string finite_range_text(ParamKind kind) {
  switch (kind) {
    case ParamKind::kExtent: return "0..4";
    case ParamKind::kStep: return "{-3..3}\\{0}";
    case ParamKind::kInt: return "-2..6";
    case ParamKind::kDType: return "0..5";
  }
  return "?";
}

z3::expr Params::get(const std::string& name, ParamKind kind, const std::string& group,
                     size_t index) {
  if (auto it = case_.find(group); it != case_.end() && index < it->second.size())
    return ctx_.int_val(it->second[index]);
  z3::expr x = ctx_.int_const(name.c_str());
  if (kinds_.emplace(name, kind).second) {
    symbols_.emplace_back(name, x);
    if (finite_.count(name) || kind == ParamKind::kDType) {
      z3::expr in_range = ctx_.bool_val(false);
      for (int64_t v : finite_range(kind)) in_range = in_range || x == ctx_.int_val(v);
      domain_.push_back(in_range);
    } else if (kind == ParamKind::kExtent) {
      domain_.push_back(x >= 0);
    } else if (kind == ParamKind::kStep) {
      domain_.push_back(x != 0);
    }
  }
  return x;
}

const std::vector<int64_t>& Params::choose(const std::string& group,
                                           const std::vector<std::vector<int64_t>>& options) const {
  if (auto it = case_.find(group); it != case_.end()) return it->second;
  if (options.empty()) throw Vacuous{};
  throw NeedChoice{group, options};
}

bool Params::is_param(const z3::expr& e) const {
  return e.is_const() && !e.is_numeral() && e.is_int() && kinds_.count(e.decl().name().str()) > 0;
}

}  // namespace smelt::verify
