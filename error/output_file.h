#pragma once
// Every file smelt writes whole (rewritten e-graphs, pictures, calibrated
// profiles, scatter plots, cached host objects) goes through here: the bytes
// go to a temporary file beside `path`, named for this process and call, and
// are renamed over `path` once all are written. A reader, or a second smelt
// writing the same path, never sees half a file; a failure leaves `path` as it
// was and no temporary behind.
#include <string>
#include <string_view>

namespace smelt {

// "" when `bytes` are now `path`'s; otherwise why not, as "PATH: cannot write:
// reason" (a missing folder, no permission, a full disk), the form of
// InputFileError's messages (error/input_file.h).
std::string write_output_file(const std::string& path, std::string_view bytes);

}  // namespace smelt
