#pragma once
// TensorLang: how graph ops live in the generic e-graph. An e-node is the op's
// symbol, a payload and the operand classes; the payload indexes an interned
// attribute record (the op's attributes, and the name of an input), so equal
// attributes give equal payloads and hashconsing shares equal subterms (CSE).
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "egraph/ids.h"
#include "egraph/symbol_table.h"
#include "ir/ops.h"

namespace smelt::rules {

struct AttrRecord {
  ir::Op op = ir::Op::Input;
  ir::Attrs attrs;   // only the fields the op uses (relevant_attrs)
  std::string name;  // inputs only: inputs with different names are different tensors
};

class TensorLang {
 public:
  // Interns every op name into the e-graph's symbol table; call once, before adding nodes.
  void register_ops(smelt::egraph::SymbolTable& symbols);

  smelt::egraph::Op symbol(ir::Op op) const { return symbols_[static_cast<size_t>(op)]; }
  // The graph op of an e-node's symbol; nullopt for symbols that are not tensor ops.
  std::optional<ir::Op> op_of(smelt::egraph::Op symbol) const;

  // The payload of (op, attrs) — and of an input's name; equal records, equal payloads.
  uint64_t payload(ir::Op op, const ir::Attrs& attrs, const std::string& input_name = {});
  // The payload of (op, attrs) if it was interned already; interns nothing.
  std::optional<uint64_t> find_payload(ir::Op op, const ir::Attrs& attrs, const std::string& input_name = {}) const;
  const AttrRecord& record(uint64_t payload) const { return records_.at(payload); }
  // A payload's op and attributes as a byte string, a literal only by its
  // length and whether it is a splat (with its value): equal for two layers'
  // nodes that differ only in their weights and biases.
  std::string shape_key(uint64_t payload) const;
  // Payloads of the inputs, in the order they were first seen: the inputs of
  // every graph read back from the e-graph.
  const std::vector<uint64_t>& inputs() const { return inputs_; }

 private:
  std::vector<smelt::egraph::Op> symbols_;
  std::unordered_map<smelt::egraph::Op, ir::Op> ops_;
  std::deque<AttrRecord> records_;                   // a deque: references stay valid while it grows
  // Serialized record -> payload; a long literal is keyed by its hash, so a
  // key may have more than one record.
  std::unordered_multimap<std::string, uint64_t> index_;
  std::optional<uint64_t> find(const std::string& key, const AttrRecord& record) const;
  std::vector<uint64_t> inputs_;
};

}  // namespace smelt::rules
