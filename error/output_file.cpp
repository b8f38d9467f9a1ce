#include "error/output_file.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace smelt {

std::string write_output_file(const std::string& path, std::string_view bytes) {
  // Unique among processes (the pid) and among this process's threads (the
  // count): the object cache's test processes store the same file at once.
  static std::atomic<unsigned long> count{0};
  const std::string temporary = path + ".tmp." + std::to_string(static_cast<long>(::getpid())) + "." +
                                std::to_string(count.fetch_add(1, std::memory_order_relaxed));
  auto failed = [&](int error) {
    std::remove(temporary.c_str());
    return path + ": cannot write: " + std::strerror(error);
  };
  // Not exclusive ("x"): a temporary a crashed process left under a pid now
  // reused is written over, not an error.
  std::FILE* out = std::fopen(temporary.c_str(), "wb");
  if (!out) return path + ": cannot write: " + std::strerror(errno);
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), out) == bytes.size();
  const int write_error = errno;
  if (std::fclose(out) != 0 || !written) return failed(written ? errno : write_error);
  if (std::rename(temporary.c_str(), path.c_str()) != 0) return failed(errno);
  return "";
}

}  // namespace smelt
