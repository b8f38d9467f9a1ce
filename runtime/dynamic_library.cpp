#include "runtime/dynamic_library.h"

#include <dlfcn.h>

#include <utility>

namespace smelt::runtime {
namespace {

// A GPU runtime may carry its own copy of LLVM (ROCm's HIP does, through
// comgr). Bound to smelt's libLLVM instead, its option registrations collide
// with smelt's and LLVM aborts the process ("Option 'disassemble' registered
// more than once!", seen on an NVIDIA machine that also had HIP installed):
// RTLD_DEEPBIND makes the library and its dependencies use their own symbols
// first. AddressSanitizer refuses RTLD_DEEPBIND (it aborts in dlopen), so
// sanitized builds go without it.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

constexpr int kOpenFlags = RTLD_NOW | RTLD_LOCAL | (kSanitized ? 0 : RTLD_DEEPBIND);

}  // namespace

DynamicLibrary DynamicLibrary::open(const std::vector<std::string>& names) {
  DynamicLibrary lib;
  for (const std::string& name : names) {
    lib.handle_ = ::dlopen(name.c_str(), kOpenFlags);
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
