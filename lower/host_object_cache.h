#pragma once
// Compiled host objects kept on disk by the LLVM module they came from
// (private to lower/). Optimizing and generating code is most of a compile's
// LLVM time (54-80 % of the test suite's every-example runs, 2026-11-30), and
// the same program is often compiled again: a second `smelt run` of a model,
// the test suite's many passes over the same examples. Where SMELT_OBJECT_CACHE
// names a folder, HostJit::compile looks an object up there before it
// optimizes, and stores what it compiles.
//
// The key is a SHA-256 of everything the object depends on: the unoptimized
// module as text (its kernels, constants, target triple and data layout), the
// CPU name and features, whether libmvec's vector math may be called, the LLVM
// version and kHostPipelineVersion (host_target.h: bump it when the passes
// that run on a module or the code generation options change). A file holds its
// key and a checksum of the object: a truncated, damaged or foreign file is a
// miss (and is overwritten), never an object loaded. Files are written under a
// temporary name and renamed, so processes and threads may share a folder.
#include <cstdint>
#include <optional>
#include <string>

#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

namespace smelt::lower {

// The folder SMELT_OBJECT_CACHE names (empty: no cache).
std::string host_object_cache_folder();

// The key of `module` (before optimization) compiled for `machine`.
std::string host_object_key(const llvm::Module& module, const llvm::TargetMachine& machine);

// The object stored under `key` in `folder`, if a whole one is there.
std::optional<std::string> load_host_object(const std::string& folder, const std::string& key);

// Stores `object` under `key`; a failure to write (a full disk, a read-only
// folder) leaves the cache as it was and is not an error: the caller has its
// object.
void store_host_object(const std::string& folder, const std::string& key, const std::string& object);

// Objects this process found in, and stored into, a cache (for the tests).
struct HostObjectCacheCounts {
  uint64_t hits = 0, stores = 0;
};
HostObjectCacheCounts host_object_cache_counts();

}  // namespace smelt::lower
