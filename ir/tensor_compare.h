#pragma once
// The one rule every computed tensor is judged by (the CLI's --check, `smelt
// test`, the C++ tests and pytest): element by element,
//
//   |want - got| <= atol + rtol * s,    s = max(|want|, error scale)
//
// rtol from the dtype (default_tolerance), atol 0 unless a caller asks. The
// error scale of an element comes from the reference interpreter
// (interpret_with_error_scales, ir/interpreter.h): the magnitudes that
// produced it — for a sum or a contraction the sum of the absolute values of
// its terms — so an element where a long sum cancels is judged by the size of
// its terms, and a small element computed from small terms by its own size (a
// 1 % error in it fails however large the rest of the tensor is). Without error
// scales (values read from a file with no graph, or two compiled runs compared)
// s is |want|. Non-finite elements must match exactly (NaN matches NaN); an
// element whose scale is infinite (its value may jump under rounding: a
// comparison of nearly equal values) passes and is counted as unchecked.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ir/host_tensor.h"

namespace smelt::ir {

// Relative tolerance by dtype: 1e-4 for f32, 1e-2 for f16, 2e-2 for bf16 (5
// units of its last place: an element rounded to bf16 once by the reference
// and through f32 by a fused kernel differs by up to one), 0 (exact) for
// integers and bool.
double default_tolerance(DType t);

// What computed outputs are compared with: the reference values and, where a
// reference interpreter produced them, each element's error scale.
struct Reference {
  std::vector<HostTensor> values;
  std::vector<HostTensor> error_scales;  // empty, or one f32 tensor per value, of its shape

  Reference() = default;
  // Values alone: each element's scale is its own magnitude.
  Reference(std::vector<HostTensor> v) : values(std::move(v)) {}  // NOLINT: implicit on purpose
  Reference(std::vector<HostTensor> v, std::vector<HostTensor> scales)
      : values(std::move(v)), error_scales(std::move(scales)) {}
};

struct Tolerance {
  double rtol = -1;  // < 0: the dtype's default_tolerance
  double atol = 0;
};

// How one computed output stands against its reference.
struct OutputDifference {
  bool ok = true;        // types equal and every element within its bound
  double rtol = 0;       // the relative tolerance used
  double atol = 0;
  int64_t failed = 0;     // elements outside their bound
  int64_t unchecked = 0;  // elements with an infinite error scale
  // The element furthest outside (or, when all pass, closest to) its bound:
  // error / bound largest. -1 when every element is equal or unchecked.
  int64_t worst = -1;
  double worst_error = 0;  // |got - want| there (inf for a non-finite mismatch)
  double worst_bound = 0;  // atol + rtol * s there
  double worst_scale = 0;  // s there
  double worst_ratio = 0;  // worst_error / worst_bound (inf where the bound is 0)
  double max_abs = 0;      // the largest |got - want| anywhere
};
// `error_scale`: null, or an f32 tensor of want's shape (another count of
// elements throws std::invalid_argument).
OutputDifference compare_output(const HostTensor& want, const HostTensor& got, const HostTensor* error_scale = nullptr,
                                const Tolerance& tolerance = {});

// Element `flat` of `shape` as a row-major multi-index, and as text: "[0,3,1]".
std::vector<int64_t> multi_index(const Shape& shape, int64_t flat);
std::string element_index(const Shape& shape, int64_t flat);

// One line on a difference that failed: "element [2,5]: got 0.51, expected
// 0.5, error 0.01 > bound 5e-05 (rtol 0.0001 x scale 0.5); 3 of 4096 elements
// outside".
std::string describe_difference(const HostTensor& want, const HostTensor& got, const OutputDifference& d);

// Empty when every output matches; otherwise the first output that does not:
// which output, its worst element, the two values and the bound.
std::string compare_outputs(const Reference& want, const std::vector<HostTensor>& got, const Tolerance& tolerance = {});

}  // namespace smelt::ir
