#pragma once
// The process's memory limit, as the public API (ir/memory_limit.h keeps it):
// work that would pass it stops with a smelt::Error of kind kMemoryLimit before
// allocating. The default is half of this machine's memory. And reading files
// within it.
#include "ir/input_file.h"    // IWYU pragma: export
#include "ir/memory_limit.h"  // IWYU pragma: export

namespace smelt {

using ir::default_memory_limit;  // half of physical memory
using ir::format_bytes;          // "1.5 GiB"
using ir::memory_limit;
using ir::parse_byte_count;  // "512M", "2G", "1000" (bytes); empty for malformed text
using ir::set_memory_limit;
// A file's bytes; an Error of kind kInputFile for a file that is not a regular
// one or larger than the memory limit (or `max_bytes`).
using ir::read_input_file;

}  // namespace smelt
