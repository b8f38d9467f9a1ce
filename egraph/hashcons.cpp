#include "egraph/hashcons.h"

#include <stdexcept>

namespace smelt::egraph {

namespace {
constexpr unsigned kInitialLog2 = 10;
// Grow above 60% load: linear probing stays short and misses end on an empty slot quickly.
std::size_t grow_threshold(std::size_t capacity) { return capacity / 10 * 6; }
}  // namespace

Hashcons::Hashcons()
    : slots_(std::size_t{1} << kInitialLog2, kEmpty),
      shift_(32 - kInitialLog2),
      grow_at_(grow_threshold(slots_.size())) {}

Id Hashcons::find(const std::uint32_t* key, std::size_t n, std::uint64_t hash,
                  const NodeStore& store) const {
  const std::uint32_t tag = tag_of(hash);
  for (std::size_t i = home(tag);; i = (i + 1) & mask()) {
    const std::uint64_t slot = slots_[i];
    if (slot == kEmpty) return kNoId;
    if (static_cast<std::uint32_t>(slot >> 32) == tag && store.equals(static_cast<Id>(slot), key, n))
      return static_cast<Id>(slot);
  }
}

Id Hashcons::find_or_insert(const std::uint32_t* key, std::size_t n, std::uint64_t hash,
                            Id new_id, const NodeStore& store) {
  if (size_ >= grow_at_) grow();
  const std::uint32_t tag = tag_of(hash);
  for (std::size_t i = home(tag);; i = (i + 1) & mask()) {
    const std::uint64_t slot = slots_[i];
    if (slot == kEmpty) {
      slots_[i] = (std::uint64_t{tag} << 32) | new_id;
      ++size_;
      return new_id;
    }
    if (static_cast<std::uint32_t>(slot >> 32) == tag && store.equals(static_cast<Id>(slot), key, n))
      return static_cast<Id>(slot);
  }
}

void Hashcons::erase(std::uint64_t hash, Id id) {
  const std::uint32_t tag = tag_of(hash);
  const std::uint64_t wanted = (std::uint64_t{tag} << 32) | id;
  std::size_t hole = home(tag);
  while (slots_[hole] != wanted) {
    if (slots_[hole] == kEmpty) throw std::logic_error("egraph: hashcons erase of a missing node");
    hole = (hole + 1) & mask();
  }
  // Backward-shift deletion: pull later entries of the probe run into the hole
  // when their home slot does not lie cyclically in (hole, j].
  for (std::size_t j = (hole + 1) & mask(); slots_[j] != kEmpty; j = (j + 1) & mask()) {
    const std::size_t h = home(static_cast<std::uint32_t>(slots_[j] >> 32));
    const bool stays = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j);
    if (!stays) {
      slots_[hole] = slots_[j];
      hole = j;
    }
  }
  slots_[hole] = kEmpty;
  --size_;
}

void Hashcons::grow() {
  if (shift_ == 0) throw std::length_error("egraph: hashcons full");
  std::vector<std::uint64_t> old(slots_.size() * 2, kEmpty);
  old.swap(slots_);
  --shift_;
  grow_at_ = grow_threshold(slots_.size());
  for (std::uint64_t slot : old) {
    if (slot == kEmpty) continue;
    std::size_t i = home(static_cast<std::uint32_t>(slot >> 32));
    while (slots_[i] != kEmpty) i = (i + 1) & mask();
    slots_[i] = slot;
  }
}

}  // namespace smelt::egraph
