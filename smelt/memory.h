#pragma once
// The process's memory limit, as the public API (error/memory_limit.h keeps it,
// in namespace smelt): work that would pass it stops with a smelt::Error of
// kind kMemoryLimit before allocating. The default is half of this machine's
// memory. And reading files within it: smelt::read_input_file gives a file's
// bytes, an Error of kind kInputFile for a file that is not a regular one or
// larger than the memory limit. The work limit likewise (set_work_limit): a
// run whose element visits would pass it stops with an Error of kind
// kWorkLimit before it starts; the default is 10^12 visits.
#include "error/input_file.h"    // IWYU pragma: export
#include "error/memory_limit.h"  // IWYU pragma: export
