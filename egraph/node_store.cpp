#include "egraph/node_store.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace smelt::egraph {

void NodeStore::encode(Op op, std::uint64_t payload, std::span<const Id> children,
                       std::vector<std::uint32_t>& out) {
  if (children.size() > kMaxArity)
    throw std::invalid_argument("egraph: e-node arity above " + std::to_string(kMaxArity));
  if (op >= kOpMask) throw std::invalid_argument("egraph: operator id out of range");
  const bool has_payload = payload != 0;  // payload 0 is stored as "none": one encoding per node
  const bool wide = children.size() >= kWideArity;
  std::uint32_t head = op | ((wide ? kWideArity : static_cast<std::uint32_t>(children.size())) << kArityShift);
  if (has_payload) head |= kPayloadFlag;
  out.resize(1 + (has_payload ? 2 : 0) + (wide ? 1 : 0) + children.size());
  out[0] = head;
  std::size_t at = 1;
  if (has_payload) {
    out[1] = static_cast<std::uint32_t>(payload);
    out[2] = static_cast<std::uint32_t>(payload >> 32);
    at = 3;
  }
  if (wide) out[at++] = static_cast<std::uint32_t>(children.size());
  for (Id child : children) out[at++] = child;
}

Id NodeStore::append(std::span<const std::uint32_t> words) {
  if (size() >= kNoId - 1) throw std::length_error("egraph: out of node ids");
  const std::size_t at = records_.size();
  records_.resize(at + kRecordWords, 0);
  if (words.size() <= kRecordWords) {
    std::copy(words.begin(), words.end(), records_.begin() + static_cast<std::ptrdiff_t>(at));
  } else {
    if (overflow_.size() + words.size() > std::numeric_limits<std::uint32_t>::max())
      throw std::length_error("egraph: node overflow storage exhausted");
    records_[at] = kSpilled;
    records_[at + 1] = static_cast<std::uint32_t>(overflow_.size());
    overflow_.insert(overflow_.end(), words.begin(), words.end());
  }
  return static_cast<Id>(at / kRecordWords);
}

}  // namespace smelt::egraph
