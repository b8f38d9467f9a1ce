#pragma once
// Checks of the element types a converter accepts, so that a model smelt cannot
// express (Sqrt of integers, integer Div whose rounding differs) is reported as
// unsupported, naming the input, instead of failing deep in the graph builder.
#include "import/context.h"

namespace smelt::importer {

enum class DTypeClass { Float, Numeric, Bool, Any };

// Checks input `i` (when present) against the class; UnsupportedError otherwise.
void require_dtype(Context& ctx, int i, DTypeClass cls);
// All present inputs in [first, last].
void require_dtypes(Context& ctx, int first, int last, DTypeClass cls);

}  // namespace smelt::importer
