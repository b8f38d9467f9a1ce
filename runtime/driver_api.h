#pragma once
// runtime-private: the function table of a GPU driver opened with dlopen
// (cuda_driver.cpp, hip_driver.cpp): binding its symbols, and loading it once
// per process.
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>

#include "runtime/device.h"
#include "runtime/dynamic_library.h"

namespace smelt::runtime {

// Binds a driver library's symbols to function pointers; a missing one throws
// DeviceUnavailable "<driver>: <library> lacks <name><missing_hint>".
struct DriverSymbols {
  const DynamicLibrary& library;
  const char* driver;             // "cuda" | "hip": the messages' prefix
  const char* missing_hint = "";  // what a missing symbol means, e.g. " (driver too old)"

  // Binds `fn` to the first of `names` the library exports (versioned names first).
  template <typename Fn>
  void bind(Fn& fn, std::initializer_list<const char*> names) const {
    fn = nullptr;
    for (const char* name : names)
      if (void* p = library.symbol(name)) {
        fn = reinterpret_cast<Fn>(p);
        return;
      }
    throw DeviceUnavailable(std::string(driver) + ": " + library.name() + " lacks " + *names.begin() +
                            missing_hint);
  }
};

// The table `load` returns, loaded once per process (one table per Api type);
// a DeviceUnavailable from `load` is remembered and rethrown on every call.
template <typename Api>
const Api& load_once(std::unique_ptr<Api> (*load)()) {
  static std::once_flag once;
  static std::unique_ptr<Api> api;
  static std::string failure;
  std::call_once(once, [load] {
    try {
      api = load();
    } catch (const DeviceUnavailable& e) {
      failure = e.what();
    }
  });
  if (!api) throw DeviceUnavailable(failure);
  return *api;
}

}  // namespace smelt::runtime
