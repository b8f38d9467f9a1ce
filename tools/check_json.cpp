#include "tools/check_json.h"

#include <nlohmann/json.hpp>

namespace smelt::tools {

std::string output_check_json(const ir::Shape& shape, const ir::OutputDifference& d) {
  nlohmann::ordered_json out = {{"ok", d.ok}, {"max_abs_error", d.max_abs}, {"rtol", d.rtol}, {"atol", d.atol}};
  out["worst_element"] = d.worst < 0 ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(ir::multi_index(shape, d.worst));
  out["worst_error"] = d.worst_error;
  out["worst_bound"] = d.worst_bound;
  out["worst_scale"] = d.worst_scale;
  out["failed_elements"] = d.failed;
  out["unchecked_elements"] = d.unchecked;
  return out.dump();
}

}  // namespace smelt::tools
