#pragma once
// Sets the PATH environment variable for one scope (e.g. to a folder without
// graphviz's `dot`, or with a stand-in for it), then restores it.
#include <cstdlib>
#include <optional>
#include <string>

namespace smelt::smelt_testing {

class ScopedPath {
 public:
  explicit ScopedPath(const std::string& path) {
    if (const char* old = std::getenv("PATH")) old_ = old;
    ::setenv("PATH", path.c_str(), 1);
  }
  ~ScopedPath() {
    if (old_) ::setenv("PATH", old_->c_str(), 1);
    else ::unsetenv("PATH");
  }
  ScopedPath(const ScopedPath&) = delete;
  ScopedPath& operator=(const ScopedPath&) = delete;

 private:
  std::optional<std::string> old_;
};

}  // namespace smelt::smelt_testing
