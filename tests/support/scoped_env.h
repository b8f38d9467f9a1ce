#pragma once
// Sets an environment variable for one scope (PATH to a folder without
// graphviz's `dot`, SMELT_LIBDEVICE to a missing file, SMELT_OBJECT_CACHE to a
// test's own folder), then restores it (or unsets it, if it was not set).
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

namespace smelt::smelt_testing {

class ScopedEnv {
 public:
  ScopedEnv(std::string name, const std::string& value) : name_(std::move(name)) {
    if (const char* old = std::getenv(name_.c_str())) old_ = old;
    ::setenv(name_.c_str(), value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_.c_str(), old_->c_str(), 1);
    else ::unsetenv(name_.c_str());
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

}  // namespace smelt::smelt_testing
