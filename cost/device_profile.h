#pragma once
// A device profile: the measured numbers the cost model predicts with, one set
// per thread count the runtime runs kernels on. Written by `smelt calibrate`
// (cost/calibrate.h), read from JSON; docs/cost.md describes every field.
#include <map>
#include <string>
#include <vector>

namespace smelt::cost {

// How a load walks its buffer as the innermost loop variable advances.
enum class AccessKind {
  kContiguous,  // unit stride
  kStrided,     // a constant stride other than one (a permuted view)
  kGather,      // an index map with floor-div / mod of the innermost variable (reshape of a view)
  kBroadcast,   // does not move with the innermost variable
  kMasked,      // unit stride behind a valid mask (pad, concat)
  // An address loaded anew along the row (a gather whose index varies with the
  // innermost variable, kernel.h indirect variables): each element a random access.
  kIndirect,
};
inline constexpr int kNumAccessKinds = 6;
const char* access_kind_name(AccessKind kind);

// A measured curve: nanoseconds (per byte, per element) at a size x (a
// working set in bytes, a row length in elements), interpolated in log(x).
struct CurvePoint {
  double x = 0;
  double ns = 0;
};
using Curve = std::vector<CurvePoint>;

// A matmul shape measured through the tiled host matmul.
struct MatmulPoint {
  long batch = 1, m = 0, n = 0, k = 0;
  double gflops = 0;
};

// Everything measured at one thread count. Rates are for the whole pool
// (all `threads` busy), so a kernel split over fewer threads uses the entry
// for the threads it really occupies.
struct ThreadRates {
  unsigned threads = 1;
  double program_us = 0;   // fixed cost of running a program (the runtime's loop, the clock)
  double kernel_us = 0;    // fixed cost of one kernel run inline on the caller
  double dispatch_us = 0;  // extra fixed cost when the pool splits a kernel over its threads
  // Read cost by access kind, and write cost, over working-set sizes (sorted by bytes).
  Curve read[kNumAccessKinds];
  Curve write;
  // A strided read whose stride is a power of two of at least 512 bytes: every
  // access maps to the same few cache sets. ns per byte by the stride in bytes.
  Curve read_aliasing_stride;
  // What read_aliasing_stride (measured over transposes of 512 KB) is
  // multiplied by at a kernel's working set (bytes read and written): 1 at
  // 1 MB; empty: 1 everywhere.
  Curve read_aliasing_size_factor;
  // A masked load of a 2-byte type (f16 / bf16 behind a pad or concat mask):
  // the vectorizer scalarizes it; ns per element, in cache.
  double read_masked_narrow_ns = 0;
  // Nanoseconds per element of each elementwise op in the vectorized loops
  // ("default" for ops not measured).
  std::map<std::string, double> op_ns;
  double row_ns = 0;  // per row of a kernel's space (loop set-up, the vector loop's remainder)
  // Per reduced element of a reduction along the innermost axis, by the
  // length of the reduced rows (short rows do not vectorize).
  Curve reduce_inner;
  Curve reduce_max_inner;  // the same for max (NaN-propagating: vectorizes differently)
  double reduce_outer_ns = 0;  // per reduced element, reduction along an outer axis
  // Vector-math calls (exp, sin, ...) that feed each other in one loop run
  // slower than alone: entry d-1 multiplies every call's cost in a kernel whose
  // longest chain of calls is d (the last entry for longer chains). Entry 0 is 1.
  std::vector<double> call_chain_factor;
  std::vector<MatmulPoint> matmul;
  // cuda profiles only: bf16 matmuls on tensor cores (kernel::GpuShape::
  // kTensorCoreMatmul), the shapes measured like `matmul`'s. A profile measured
  // before them lacks it: such kernels are then costed by `matmul`.
  std::vector<MatmulPoint> tensor_core_matmul;
  // host profiles: the same products with B a constant (a model's weights),
  // which the tiled kernel packs once, not per call (kernel::
  // b_sides_are_constant), from one row (decode: streaming B) to 512. A
  // profile measured before them lacks it: such products are then costed by
  // `matmul` (0.14-0.77x their time on the Xeon profile, 2026-11-29).
  std::vector<MatmulPoint> matmul_constant_b;
  double prologue_ns = 0;  // per evaluation of a node the tiled matmul computes while packing
  // Per element of a convolution's windows the tiled contraction packs (K x
  // output positions per batch element and B side: the im2col work done
  // implicitly, a line at a time). Profiles measured before it load 0.
  double window_pack_ns = 0;
  // Host profiles: 3x3 convolutions (stride 1, padded) timed whole, their
  // windows packed a line at a time and multiplied, by their product's shape
  // (m output maps, n output positions, k input maps x 9), from 32 maps over
  // 56x56 to 512 over 7x7. A convolution is priced at these rates with no
  // window charge. A product's rate and a window cost measured on one shape
  // (32 maps over 28x28) priced ResNet-50's 3x3 convolutions over 56x56 at
  // 1.2-2.6x their time: the packing's share falls with more maps and longer
  // lines, and the matmul rates of such shapes stream B from memory (AMD
  // EPYC, 2026-12-01). Absent: `matmul`'s rates and window_pack_ns.
  std::vector<MatmulPoint> conv;
  // Per step of a contraction the tiled kernels do not take (a depthwise
  // convolution, reducing [1, 3, 3]: kernel/contraction_group.h), run as a
  // plain reduction loop: its loads (masked at the borders), product and sum,
  // by the reduction's length (steps per output: a 3x3's 9 unrolled ran at
  // 0.53 ns a step, a 5x5's 25 as a loop at 1.12, 2026-11-28). Profiles
  // measured before it have none and price such a kernel at matmul rates,
  // 3-7x under its time (EfficientNet-B0).
  Curve loop_contraction;
  // Host profiles: what a row's width does to that step (x: the width of the
  // space's rows; y: the time per step against rows of 28, the width
  // loop_contraction is measured at). A depthwise 3x3 over 7x7 maps ran 2.4x
  // its price at 28 (2026-11-29): rows narrower than a vector run scalar.
  // Profiles measured before it have none (a factor of 1).
  Curve loop_contraction_row_factor;
  // Host profiles: the same at stride 2 (x: the output row's width; y: the
  // time per step against stride-1 rows of 28): its taps read every other
  // element of a row, wide loads and shuffles. A stride-2 depthwise 3x3 over
  // 192 maps of 28x28 ran 2.5-3.5x its stride-1 price (MobileNetV2, AMD EPYC
  // Zen 4, 2026-12-02). Profiles measured before it have none (the stride-1
  // factor prices it).
  Curve loop_contraction_strided_row_factor;
  // Host profiles: the same for the elementwise ops of that loop's epilogue
  // that vary along the row (a SiLU after a depthwise 3x3, against sigmoid's
  // and mul's vector rates; x: the row's width). EfficientNet-B0's SiLU after
  // its depthwise convolutions over 1152 maps of 7x7 took 4.4 ns an element,
  // priced 0.9 (2026-11-29). Plain row loops have no such factor: their short
  // rows merge where every load reads them as one (kernel::
  // merge_contiguous_rows), and a factor by width alone priced rows of 32 (two
  // whole vectors) like rows of 28 and split two seeds' kernels for nothing.
  // Profiles measured before it have none (a factor of 1).
  Curve loop_epilogue_row_factor;
  // A contraction group (several gemms sharing A in one kernel) against the
  // same gemms as separate kernels: multiplies the group's matmul time when
  // its B sides are packed per call (group_factor) and when they are
  // constants, packed once (group_factor_constant_b; then the per-call packing,
  // the same work grouped or not, no longer hides the group's own gain).
  // Profiles measured before the second existed load it as group_factor.
  double group_factor = 1;
  double group_factor_constant_b = 1;
  // GPU profiles only (empty on the host): the share of the device's
  // throughput a kernel gets by the threads it keeps busy
  // (kernel::gpu_busy_threads), measured with block reductions of long rows over
  // 1, 4, 16, ... rows (cost/calibrate.cpp): a kernel of few threads is bound
  // by each thread's latency, not by the device's bandwidth. x: busy threads,
  // ns: the share, in (0, 1].
  Curve fill;
};

struct DeviceProfile {
  static constexpr int kFormat = 2;
  std::string name;    // free text
  std::string device;  // "host", "cuda", "hip"
  std::string cpu;     // the processor the numbers were measured on: the CPU model, or the GPU's name ("NVIDIA H200")
  std::string date;    // ISO date of the measurement
  // A kernel's time is max(memory, compute) + overlap * min(memory, compute).
  double overlap = 0;
  std::vector<ThreadRates> rates;  // sorted by thread count, at least one
  // The thread count programs run with (not stored: set by the compiler;
  // 0 = every core of this machine).
  unsigned run_threads = 0;

  // The entry for `threads` threads: the largest measured count <= threads.
  const ThreadRates& at(unsigned threads) const;
  // run_threads resolved (0 → std::thread::hardware_concurrency()).
  unsigned threads() const;
  // A copy that costs programs run on `threads` threads.
  DeviceProfile for_threads(unsigned threads) const;
};

double op_ns(const ThreadRates& r, const std::string& op);
// The curve at x: interpolated in log(x), clamped at the ends; the values
// linearly, or in log (a power law between the points: the GPU's fill, whose
// share grows in proportion to the threads below saturation).
enum class Scale { kLinear, kLog };
double interpolate(const Curve& curve, double x, Scale values = Scale::kLinear);
// GFLOP/s of a matmul for a shape: interpolated between the measured shapes
// `points` (ThreadRates::matmul or tensor_core_matmul) nearest in log(batch, m, n, k).
double matmul_gflops(const std::vector<MatmulPoint>& points, long batch, long m, long n, long k);

// A product on T threads runs at most T times its rate on the profile's fewest
// threads (the same shape): calibration takes the pool's dispatch cost off a
// measured time to get the rate, and where the product's work is about that
// cost (32 x 64 x 64 on 2 threads: 3.2 us measured, 2.6 us dispatch) the rest
// is noise read as a rate: 519 GFLOP/s against 118 on one thread, which priced
// six such products merged into one kernel at 10.7 us where they measure 14.6
// (2026-11-29). Bounds `matmul` and `matmul_constant_b` of every entry above
// the first where the first has the shape; parse_profile and calibrate apply it.
void bound_parallel_matmul_rates(DeviceProfile& profile);

// Throws std::runtime_error naming the file and the field that is missing,
// of the wrong type, negative, not finite, or for another device.
DeviceProfile load_profile(const std::string& path, const std::string& expected_device = "");
DeviceProfile parse_profile(const std::string& json_text, const std::string& source = "<profile>",
                            const std::string& expected_device = "");
std::string profile_to_json(const DeviceProfile& profile);

// The reference host profile (cost/profiles/host.json, measured by `smelt
// calibrate` on the project's first machine kind, embedded at build time): what
// fuse() costs with when given no profile, so the library's and the tests'
// decisions do not depend on the machine they run on. smelt::compile costs a
// host program with shipped_profile_for("host", this CPU) instead.
const DeviceProfile& default_host_profile();

// The profiles that ship, each with the file it came from, embedded at build
// time: host.json first, then every other cost/profiles/*.json — another CPU's
// (host-<cpu>.json, `smelt calibrate` on it) or a GPU's (<gpu>.json, `smelt
// calibrate --device cuda|hip` on it).
struct ShippedProfile {
  std::string file;  // "cost/profiles/nvidia-h200.json"
  DeviceProfile profile;
};
const std::vector<ShippedProfile>& shipped_profiles();

// The file name a processor's profile ships under: its name in lower case,
// runs of other characters as one '-', after "host-" for a CPU:
// ("cuda", "NVIDIA H100 80GB HBM3") -> "nvidia-h100-80gb-hbm3.json",
// ("host", "Intel(R) Xeon(R) Processor (family 6, model 207)") ->
// "host-intel-r-xeon-r-processor-family-6-model-207.json".
std::string profile_file_name(const std::string& device, const std::string& processor);

// The profile that costs kernels for `processor` (a CPU's model name or a
// GPU's name) of kind `device` (host | cuda | hip): the one measured on that
// processor when it ships; else the shipped profile of the same kind whose
// processor's name shares the longest prefix with it, and `note` says so in
// one line (never another kind's numbers: a host profile was 2-3x off on a
// CPU it was not measured on, 2026-11-28). Throws std::runtime_error when no
// profile of that kind ships.
struct ChosenProfile {
  DeviceProfile profile;
  std::string note;  // empty when the profile was measured on this processor
};
ChosenProfile shipped_profile_for(const std::string& device, const std::string& processor);

}  // namespace smelt::cost
