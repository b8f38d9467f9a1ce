#include "tests/support/smelt_binary.h"

namespace smelt::smelt_testing {

const char* smelt_binary() { return SMELT_BINARY_PATH; }

}  // namespace smelt::smelt_testing
