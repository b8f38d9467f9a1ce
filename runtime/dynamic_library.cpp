#include "runtime/dynamic_library.h"

#include <dlfcn.h>

#include <utility>

namespace smelt::runtime {

DynamicLibrary DynamicLibrary::open(const std::vector<std::string>& names, Namespace where) {
  DynamicLibrary lib;
  for (const std::string& name : names) {
    lib.handle_ = where == Namespace::kOwn ? ::dlmopen(LM_ID_NEWLM, name.c_str(), RTLD_NOW | RTLD_LOCAL)
                                           : ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib.handle_) {
      lib.name_ = name;
      lib.error_.clear();
      return lib;
    }
    const char* message = ::dlerror();
    if (lib.error_.empty()) lib.error_ = message ? message : name + ": cannot be opened";
  }
  return lib;
}

DynamicLibrary::DynamicLibrary(DynamicLibrary&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), name_(std::move(other.name_)), error_(std::move(other.error_)) {}

DynamicLibrary& DynamicLibrary::operator=(DynamicLibrary&& other) noexcept {
  if (this != &other) {
    if (handle_) ::dlclose(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
    name_ = std::move(other.name_);
    error_ = std::move(other.error_);
  }
  return *this;
}

DynamicLibrary::~DynamicLibrary() {
  if (handle_) ::dlclose(handle_);
}

void* DynamicLibrary::symbol(const char* symbol) const { return handle_ ? ::dlsym(handle_, symbol) : nullptr; }

}  // namespace smelt::runtime
