#pragma once
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "egraph/enode.h"
#include "egraph/ids.h"

namespace smelt::egraph {

// Flat storage for e-nodes. A node is a short run of 32-bit words:
//   head [payload_lo payload_hi] [arity] child...
// where the head packs op (23 bits), arity (8 bits) and a has-payload flag;
// a node with kWideArity or more children (a concat of hundreds of tensors)
// has kWideArity in the head and its arity in the word before the children.
// Each node owns a fixed 16-byte record holding its words when they fit (up
// to 3 children, or a payload and 1 child: almost every node), zero-padded;
// longer nodes spill to an overflow array and their record points there.
// So reading a node is one cache miss, no per-node heap allocation, and the
// words are compared and hashed as a whole: a canonical node *is* its key.
class NodeStore {
 public:
  static constexpr unsigned kArityShift = 23;
  static constexpr std::uint32_t kOpMask = (1u << kArityShift) - 1;
  static constexpr std::uint32_t kWideArity = 0xFF;
  static constexpr std::size_t kMaxArity = std::size_t{1} << 24;
  static constexpr std::uint32_t kPayloadFlag = 1u << 31;
  static constexpr std::size_t kRecordWords = 4;
  // Record head of a spilled node; encode never produces it (op kOpMask is
  // not a valid operator).
  static constexpr std::uint32_t kSpilled = ~std::uint32_t{0};

  // Encodes a node into `out` (resized); throws on arity > kMaxArity.
  static void encode(Op op, std::uint64_t payload, std::span<const Id> children,
                     std::vector<std::uint32_t>& out);
  // Of the words of one node, from its head on.
  static bool is_wide(std::uint32_t head) { return ((head >> kArityShift) & 0xFF) == kWideArity; }
  static std::size_t child_offset(const std::uint32_t* w) {
    return 1 + ((w[0] & kPayloadFlag) ? 2 : 0) + (is_wide(w[0]) ? 1 : 0);
  }
  static std::size_t arity(const std::uint32_t* w) {
    return is_wide(w[0]) ? w[child_offset(w) - 1] : (w[0] >> kArityShift) & 0xFF;
  }
  static std::size_t word_count(const std::uint32_t* w) { return child_offset(w) + arity(w); }
  static Op op_of(std::uint32_t head) { return head & kOpMask; }

  static std::uint64_t hash(const std::uint32_t* words, std::size_t n) {
    std::uint64_t h = 0;
    for (std::size_t i = 0; i < n; ++i) h = (std::rotl(h, 5) ^ words[i]) * 0x517cc1b727220a95ull;
    // murmur finalizer: the hashcons takes its tag and home slot from the high bits.
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
  }

  Id size() const { return static_cast<Id>(records_.size() / kRecordWords); }
  Id append(std::span<const std::uint32_t> words);

  const std::uint32_t* words(Id id) const {
    const std::uint32_t* record = records_.data() + std::size_t{id} * kRecordWords;
    return record[0] == kSpilled ? overflow_.data() + record[1] : record;
  }
  std::uint32_t* words(Id id) {
    std::uint32_t* record = records_.data() + std::size_t{id} * kRecordWords;
    return record[0] == kSpilled ? overflow_.data() + record[1] : record;
  }
  void prefetch(Id id) const { __builtin_prefetch(records_.data() + std::size_t{id} * kRecordWords); }
  std::size_t length(Id id) const { return word_count(words(id)); }
  std::uint64_t hash(Id id) const { return hash(words(id), length(id)); }
  bool equals(Id id, const std::uint32_t* key, std::size_t n) const {
    const std::uint32_t* w = words(id);
    return word_count(w) == n && std::memcmp(w, key, n * sizeof(std::uint32_t)) == 0;
  }

  NodeView view(Id id) const {
    const std::uint32_t* w = words(id);
    const std::uint32_t head = w[0];
    NodeView v;
    v.op = op_of(head);
    if (head & kPayloadFlag) v.payload = w[1] | (std::uint64_t{w[2]} << 32);
    v.children = {w + child_offset(w), arity(w)};
    return v;
  }
  std::span<Id> children(Id id) {
    std::uint32_t* w = words(id);
    return {w + child_offset(w), arity(w)};
  }

  std::size_t memory_bytes() const {
    return (records_.capacity() + overflow_.capacity()) * sizeof(std::uint32_t);
  }

 private:
  std::vector<std::uint32_t> records_;   // kRecordWords per node
  std::vector<std::uint32_t> overflow_;  // words of spilled nodes

};

// The encoded words of one node being looked up or added: a fixed inline
// buffer (no allocation) that grows into a vector only for wide nodes.
class NodeKey {
 public:
  void encode(Op op, std::uint64_t payload, std::span<const Id> children) {
    if (children.size() + 3 > inline_.size() || op >= NodeStore::kOpMask) {  // inline_ holds narrow nodes only
      NodeStore::encode(op, payload, children, wide_);  // validates, may throw
      wide_in_use_ = true;
      size_ = wide_.size();
      return;
    }
    const bool has_payload = payload != 0;
    std::size_t n = 0;
    inline_[n++] = op | (static_cast<std::uint32_t>(children.size()) << NodeStore::kArityShift) |
                   (has_payload ? NodeStore::kPayloadFlag : 0);
    if (has_payload) {
      inline_[n++] = static_cast<std::uint32_t>(payload);
      inline_[n++] = static_cast<std::uint32_t>(payload >> 32);
    }
    for (Id child : children) inline_[n++] = child;
    wide_in_use_ = false;
    size_ = n;
  }
  std::uint32_t* data() { return wide_in_use_ ? wide_.data() : inline_.data(); }
  std::size_t size() const { return size_; }
  std::size_t first_child() { return NodeStore::child_offset(data()); }
  std::uint32_t& operator[](std::size_t i) { return data()[i]; }

 private:
  std::array<std::uint32_t, 11> inline_{};
  std::vector<std::uint32_t> wide_;
  bool wide_in_use_ = false;
  std::size_t size_ = 0;
};

}  // namespace smelt::egraph
