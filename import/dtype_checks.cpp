#include "import/dtype_checks.h"

namespace smelt::importer {
namespace {

bool in_class(ir::DType t, DTypeClass cls) {
  switch (cls) {
    case DTypeClass::Float:
      return ir::is_float(t);
    case DTypeClass::Numeric:
      return ir::is_numeric(t);
    case DTypeClass::Bool:
      return t == ir::DType::Bool;
    case DTypeClass::Any:
      return true;
  }
  return false;
}

const char* class_name(DTypeClass cls) {
  switch (cls) {
    case DTypeClass::Float:
      return "a float type (f32, f16, bf16)";
    case DTypeClass::Numeric:
      return "a numeric type";
    case DTypeClass::Bool:
      return "bool";
    case DTypeClass::Any:
      return "any type";
  }
  return "";
}

}  // namespace

void require_dtype(Context& ctx, int i, DTypeClass cls) {
  if (!ctx.has_input(i)) return;
  const ir::DType t = ctx.input_type(i).dtype;
  if (!in_class(t, cls))
    ctx.unsupported("input " + std::to_string(i) + " is " + std::string(ir::dtype_name(t)) + "; smelt supports " +
                    ctx.op_type() + " on " + class_name(cls) + " only");
}

void require_dtypes(Context& ctx, int first, int last, DTypeClass cls) {
  for (int i = first; i <= last; ++i) require_dtype(ctx, i, cls);
}

}  // namespace smelt::importer
