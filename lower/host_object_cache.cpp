#include "lower/host_object_cache.h"

#include <array>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <llvm/ADT/StringExtras.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/Support/SHA256.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Support/xxhash.h>

#include "error/output_file.h"
#include "lower/host_target.h"

namespace smelt::lower {

namespace {
std::atomic<uint64_t> hits{0}, stores{0};

// A file: this magic line, the key's 64 hex digits and a newline, the object's
// size and xxh3 as 16 hex digits each and a newline, then the object.
constexpr const char* kMagic = "smelt host object 1\n";

std::string hex64(uint64_t value) {
  uint8_t bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<uint8_t>(value >> (56 - 8 * i));
  return llvm::toHex(bytes, /*LowerCase=*/true);
}

std::string header(const std::string& key, const std::string& object) {
  return std::string(kMagic) + key + "\n" + hex64(object.size()) +
         hex64(llvm::xxh3_64bits(llvm::StringRef(object))) + "\n";
}

std::filesystem::path path_of(const std::string& folder, const std::string& key) {
  return std::filesystem::path(folder) / (key + ".o");
}
}  // namespace

std::string host_object_cache_folder() {
  const char* folder = std::getenv("SMELT_OBJECT_CACHE");
  return folder ? folder : "";
}

std::string host_object_key(const llvm::Module& module, const llvm::TargetMachine& machine) {
  std::string text;
  llvm::raw_string_ostream ir(text);
  module.print(ir, nullptr);
  llvm::SHA256 sha;
  auto add = [&](llvm::StringRef part) {
    sha.update(part);
    sha.update(llvm::StringRef("\0", 1));
  };
  add(LLVM_VERSION_STRING);
  add(std::to_string(kHostPipelineVersion));
  add(machine.getTargetTriple().str());
  add(machine.getTargetCPU());
  add(machine.getTargetFeatureString());
  add(host_vector_math_available() ? "libmvec" : "no libmvec");
  add(text);
  const std::array<uint8_t, 32> digest = sha.final();
  return llvm::toHex(digest, /*LowerCase=*/true);
}

std::optional<std::string> load_host_object(const std::string& folder, const std::string& key) {
  std::ifstream in(path_of(folder, key), std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream bytes;
  bytes << in.rdbuf();
  const std::string file = bytes.str();
  const size_t object_at = std::string(kMagic).size() + key.size() + 1 + 32 + 1;
  if (file.size() < object_at) return std::nullopt;
  std::string object = file.substr(object_at);
  if (file.compare(0, object_at, header(key, object)) != 0) return std::nullopt;
  ++hits;
  return object;
}

void store_host_object(const std::string& folder, const std::string& key, const std::string& object) {
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  if (error) return;
  if (!write_output_file(path_of(folder, key).string(), header(key, object) + object).empty()) return;
  ++stores;
}

HostObjectCacheCounts host_object_cache_counts() { return {hits.load(), stores.load()}; }

}  // namespace smelt::lower
