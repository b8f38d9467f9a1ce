#pragma once
// A shared library opened with dlopen at run time, so smelt runs on machines
// without a GPU driver and can say which library is missing.
#include <string>
#include <vector>

namespace smelt::runtime {

class DynamicLibrary {
 public:
  enum class Namespace {
    kShared,  // dlopen: the library binds to what the process has loaded
    // dlmopen(LM_ID_NEWLM): the library and its dependencies in a link-map
    // namespace of their own. ROCm's HIP loads comgr and its own LLVM; bound
    // to smelt's libLLVM, LLVM's option registry saw options twice and aborted
    // the process (seen on an H200 machine with ROCm 5 installed; RTLD_DEEPBIND
    // did not help).
    kOwn,
  };
  // Tries each name in order; returns a library that is not loaded() when
  // none opens, with the loader's message for the first name in error().
  static DynamicLibrary open(const std::vector<std::string>& names, Namespace where = Namespace::kShared);
  DynamicLibrary(DynamicLibrary&& other) noexcept;
  DynamicLibrary& operator=(DynamicLibrary&& other) noexcept;
  DynamicLibrary(const DynamicLibrary&) = delete;
  DynamicLibrary& operator=(const DynamicLibrary&) = delete;
  ~DynamicLibrary();

  bool loaded() const { return handle_ != nullptr; }
  const std::string& name() const { return name_; }    // the name that opened
  const std::string& error() const { return error_; }  // why none did
  // The address of `symbol`, or nullptr.
  void* symbol(const char* symbol) const;

 private:
  DynamicLibrary() = default;
  void* handle_ = nullptr;
  std::string name_, error_;
};

}  // namespace smelt::runtime
