#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "egraph/ids.h"
#include "egraph/node_store.h"

namespace smelt::egraph {

// The one hashcons: canonical node words -> node id. Open addressing with
// linear probing; each 64-bit slot holds (32-bit hash tag, node id), so most
// probes that miss never touch node storage. Home slot = top bits of the tag,
// which lets deletion (backward shift) and growth work from the slots alone.
class Hashcons {
 public:
  Hashcons();

  std::size_t size() const { return size_; }
  std::size_t capacity() const { return slots_.size(); }

  Id find(const std::uint32_t* key, std::size_t n, std::uint64_t hash,
          const NodeStore& store) const;
  // Returns the id stored under key, or stores new_id (whose words must equal
  // key once it is appended) and returns new_id.
  Id find_or_insert(const std::uint32_t* key, std::size_t n, std::uint64_t hash, Id new_id,
                    const NodeStore& store);
  // Removes the slot holding id, which must be stored under hash.
  void erase(std::uint64_t hash, Id id);

  // Performance hint: pull the home slot of `hash` into cache.
  void prefetch(std::uint64_t hash) const { __builtin_prefetch(&slots_[home(tag_of(hash))]); }
  // The id in the home slot of `hash` if its tag matches (a likely hit), else kNoId.
  Id first_candidate(std::uint64_t hash) const {
    const std::uint64_t slot = slots_[home(tag_of(hash))];
    return slot != kEmpty && static_cast<std::uint32_t>(slot >> 32) == tag_of(hash) ? static_cast<Id>(slot)
                                                                                    : kNoId;
  }

  template <class F>
  void for_each(F&& f) const {
    for (std::uint64_t slot : slots_)
      if (slot != kEmpty) f(static_cast<Id>(slot));
  }
  std::size_t memory_bytes() const { return slots_.capacity() * sizeof(std::uint64_t); }

 private:
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  static std::uint32_t tag_of(std::uint64_t hash) { return static_cast<std::uint32_t>(hash >> 32); }
  std::size_t home(std::uint32_t tag) const { return tag >> shift_; }
  std::size_t mask() const { return slots_.size() - 1; }
  void grow();

  std::vector<std::uint64_t> slots_;
  unsigned shift_;  // 32 - log2(capacity)
  std::size_t size_ = 0;
  std::size_t grow_at_;
};

}  // namespace smelt::egraph
