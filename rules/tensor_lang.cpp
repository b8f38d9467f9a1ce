#include "rules/tensor_lang.h"

#include <cstring>
#include <functional>
#include <stdexcept>
#include <string_view>

#include "rules/attr_values.h"

namespace smelt::rules {
namespace {

// A byte string that identifies a record exactly (floats by their bits, so
// -0.0 and 0.0 stay apart and every NaN pattern is kept).
class KeyWriter {
 public:
  void byte(uint8_t b) { out_.push_back(static_cast<char>(b)); }
  void i64(int64_t v) { raw(&v, sizeof v); }
  void f64(double v) { raw(&v, sizeof v); }
  void ints(const std::vector<int64_t>& v) {
    i64(static_cast<int64_t>(v.size()));
    for (int64_t x : v) i64(x);
  }
  void text(const std::string& s) {
    i64(static_cast<int64_t>(s.size()));
    out_ += s;
  }
  std::string take() { return std::move(out_); }

 private:
  void raw(const void* p, size_t n) { out_.append(static_cast<const char*>(p), n); }
  std::string out_;
};

// Literals up to this many values are in the key bit by bit; longer ones by a
// hash of their bits: a key holding GPT-2's 38 M-value embedding table would
// copy 300 MB for each look-up.
constexpr size_t kLiteralInKey = 64;

// Every value the same bits (a splat: lowered as an immediate).
bool uniform_bits(const ir::Literal& a) {
  for (size_t i = 1; i < a.size(); ++i)
    if (std::memcmp(a.data(), a.data() + i, sizeof(double)) != 0) return false;
  return true;
}

enum class LiteralInKey : uint8_t { kIdentity, kShape };

// kIdentity: a literal's values (a long one's hash); kShape: only a splat's
// value, or that the literal is not a splat (what lowering and costing see).
std::string record_key(const AttrRecord& r, LiteralInKey literal = LiteralInKey::kIdentity) {
  KeyWriter w;
  const ir::Attrs& a = r.attrs;
  w.byte(static_cast<uint8_t>(r.op));
  w.byte(static_cast<uint8_t>(a.result.dtype));
  w.ints(a.result.shape);
  w.ints(a.shape);
  w.byte(static_cast<uint8_t>(a.to));
  w.i64(static_cast<int64_t>(a.values.size()));
  if (literal == LiteralInKey::kShape) {
    const bool splat = uniform_bits(a.values);
    w.byte(splat ? 1 : 0);
    if (splat && !a.values.empty()) w.f64(a.values[0]);
  } else if (a.values.size() <= kLiteralInKey) {
    for (double v : a.values) w.f64(v);
  } else {  // a weight: its bits' hash (ir::same_bits decides between equal hashes: a key compares floats by their bits)
    w.i64(static_cast<int64_t>(a.values.bits_hash()));
  }
  w.i64(a.axis);
  w.ints(a.perm);
  w.ints(a.axes);
  w.byte(a.keepdims ? 1 : 0);
  w.ints(a.start);
  w.ints(a.stop);
  w.ints(a.step);
  w.ints(a.lo);
  w.ints(a.hi);
  w.ints(a.strides);
  w.ints(a.dilations);
  w.i64(a.groups);
  w.text(r.name);
  return w.take();
}

}  // namespace

void TensorLang::register_ops(smelt::egraph::SymbolTable& symbols) {
  symbols_.assign(ir::kNumOps, 0);
  ops_.clear();
  for (int k = 0; k < ir::kNumOps; ++k) {
    const auto op = static_cast<ir::Op>(k);
    const smelt::egraph::Op symbol = symbols.intern(ir::op_name(op));
    symbols_[k] = symbol;
    ops_.emplace(symbol, op);
  }
}

std::optional<ir::Op> TensorLang::op_of(smelt::egraph::Op symbol) const {
  auto it = ops_.find(symbol);
  if (it == ops_.end()) return std::nullopt;
  return it->second;
}

std::optional<uint64_t> TensorLang::find_payload(ir::Op op, const ir::Attrs& attrs,
                                                 const std::string& input_name) const {
  const AttrRecord record{op, relevant_attrs(op, attrs), op == ir::Op::Input ? input_name : std::string()};
  return find(record_key(record), record);
}

std::string TensorLang::shape_key(uint64_t payload) const {
  return record_key(record(payload), LiteralInKey::kShape);
}

std::optional<uint64_t> TensorLang::find(const std::string& key, const AttrRecord& record) const {
  auto [first, last] = index_.equal_range(key);
  for (auto it = first; it != last; ++it)
    if (same_bits(records_[it->second].attrs.values, record.attrs.values)) return it->second;
  return std::nullopt;
}

uint64_t TensorLang::payload(ir::Op op, const ir::Attrs& attrs, const std::string& input_name) {
  AttrRecord record{op, relevant_attrs(op, attrs), op == ir::Op::Input ? input_name : std::string()};
  std::string key = record_key(record);
  if (const std::optional<uint64_t> found = find(key, record)) return *found;
  const uint64_t id = records_.size();
  records_.push_back(std::move(record));
  index_.emplace(std::move(key), id);
  if (op == ir::Op::Input) inputs_.push_back(id);
  return id;
}

}  // namespace smelt::rules
