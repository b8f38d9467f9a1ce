#pragma once
// The op table: every tensor op is defined once here — name, arity, attributes,
// class, shape/dtype inference and (for elementwise ops) scalar semantics.
// Semantics of each op are documented in docs/ops.md.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ir/dtype.h"
#include "ir/literal.h"
#include "ir/shape.h"

namespace smelt::ir {

enum class Op : uint8_t {
  // sources
  Input, Constant, Full, Iota,
  // elementwise, unary
  Neg, Exp, Exp2, Log, Log2, Sin, Cos, Tanh, Sqrt, Rsqrt, Recip, Abs, Relu, Sigmoid, Gelu, Erf,
  Cast,
  // elementwise, binary and ternary
  Add, Sub, Mul, Div, Max, Min, Pow, Lt, Le, Eq, Where,
  // views
  Reshape, Permute, Slice, Pad, Broadcast, Concat,
  // reductions and contraction
  ReduceSum, ReduceMax, Matmul, Conv,
  // data-dependent addressing: reads at loaded positions; writes there (the
  // value written replaces the element, or is added, multiplied, max'ed, min'ed in)
  Gather, Scatter, ScatterAdd, ScatterMul, ScatterMax, ScatterMin,
};
inline constexpr int kNumOps = static_cast<int>(Op::ScatterMin) + 1;

// Indexed: an op that reads at positions loaded from another tensor (gather).
// Scatter: an op that writes at positions loaded from another tensor.
enum class OpClass : uint8_t { Source, Factory, Elementwise, View, Reduction, Contraction, Indexed, Scatter };
// For a scatter op, the elementwise op that combines the value written with the
// element there (Add, Mul, Max, Min); nullopt for scatter, which replaces it.
std::optional<Op> scatter_combine(Op scatter);
// Reductions and contractions: ops whose kernel has a reduction domain (an anchor).
inline bool is_anchor_class(OpClass c) { return c == OpClass::Reduction || c == OpClass::Contraction; }
std::string_view op_class_name(OpClass c);

// Attribute keys; an op's table entry says which it takes. The text format uses
// the key names ("shape", "perm", ...).
enum AttrKey : uint32_t {
  kAttrShape = 1u << 0,     // reshape, broadcast: target shape
  kAttrTo = 1u << 1,        // cast: target dtype
  kAttrValue = 1u << 2,     // constant: literal; full, pad: scalar value
  kAttrAxis = 1u << 3,      // iota, concat, gather, scatter
  kAttrPerm = 1u << 4,      // permute
  kAttrAxes = 1u << 5,      // reductions
  kAttrKeepdims = 1u << 6,  // reductions
  kAttrStart = 1u << 7,     // slice
  kAttrStop = 1u << 8,      // slice
  kAttrStep = 1u << 9,      // slice
  kAttrLo = 1u << 10,       // pad
  kAttrHi = 1u << 11,       // pad; conv: padding after each spatial axis
  kAttrStrides = 1u << 12,    // conv
  kAttrDilations = 1u << 13,  // conv
  kAttrGroups = 1u << 14,     // conv
};
inline constexpr AttrKey kAllAttrKeys[] = {kAttrShape, kAttrTo,      kAttrValue,   kAttrAxis,      kAttrPerm,
                                           kAttrAxes,  kAttrKeepdims, kAttrStart,  kAttrStop,      kAttrStep,
                                           kAttrLo,    kAttrHi,      kAttrStrides, kAttrDilations, kAttrGroups};
std::string_view attr_key_name(AttrKey k);
std::optional<AttrKey> parse_attr_key(std::string_view name);

struct TensorType {
  DType dtype = DType::F32;
  Shape shape;
  bool operator==(const TensorType&) const = default;
};
// "f32[10,20]"
std::string type_str(const TensorType& t);

// Attribute values of one op instance. Factories (input, constant, full, iota)
// carry their result type in `result`; the other ops ignore it.
struct Attrs {
  TensorType result;              // input, constant, full, iota
  Shape shape;                    // reshape, broadcast
  DType to = DType::F32;          // cast
  Literal values;                 // constant: row-major literal; full, pad: one value
  int64_t axis = 0;               // iota, concat, gather, scatter
  std::vector<int64_t> perm;      // permute
  std::vector<int64_t> axes;      // reductions
  bool keepdims = false;          // reductions
  std::vector<int64_t> start, stop, step;  // slice, one entry per axis
  std::vector<int64_t> lo, hi;             // pad, one entry per axis; conv, per spatial axis
  std::vector<int64_t> strides, dilations;  // conv, per spatial axis
  int64_t groups = 1;                       // conv
  bool operator==(const Attrs&) const = default;
};

// Result of type inference: a type, or an error explaining what was expected.
struct Inferred {
  TensorType type;
  std::string error;  // empty on success
};

struct OpInfo {
  Op op;
  std::string_view name;
  int arity;  // number of operands; -1: one or more (concat)
  OpClass cls;
  uint32_t attrs;  // AttrKey mask
  // Checks operand types and attributes, canonicalizes attributes (slice bounds
  // clamped, reshape's -1 resolved) and returns the result type.
  Inferred (*infer)(std::span<const TensorType> operands, Attrs& attrs);
  // Elementwise reference semantics on one element, in the real domain (float
  // dtypes, comparisons of floats) and in the integer domain (integer and bool
  // dtypes). Null where the domain is not allowed or the op is not elementwise.
  double (*eval_real)(const double* args);
  int64_t (*eval_int)(const int64_t* args);
};

const OpInfo& op_info(Op op);
inline std::string_view op_name(Op op) { return op_info(op).name; }
inline OpClass op_class(Op op) { return op_info(op).cls; }
std::optional<Op> parse_op(std::string_view name);

}  // namespace smelt::ir
