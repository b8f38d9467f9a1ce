#pragma once
// smelt::tools::calibrate: measure a device profile (cost/calibrate.h), then validate
// it on kernels it was not fitted on — fused and unfused kernels of random
// graphs, of the example graphs and of exported transformer blocks — and on
// whole programs: each predicted, then timed.
#include <string>
#include <vector>

#include "cost/calibrate.h"
#include "cost/scatter_plot.h"  // IWYU pragma: export (the predicted-vs-measured picture)

namespace smelt::tools {

struct CalibrateOptions {
  std::string device = "host";            // host | cuda | hip (a GPU: measured on the device, which must be present)
  std::string arch;                       // cuda / hip: "" = the device's own architecture
  bool quick = false;                     // 2.6 min at --threads 1 (AMD EPYC, 2026-11-30)
  std::vector<unsigned> threads;          // empty: cost::default_calibration_threads()
  std::vector<std::string> graphs;        // .sg / .onnx files for validation; empty: none beyond the random ones
  int random_graphs = 0;                  // 0: 60 (quick: 16)
  uint64_t seed = 1;
  std::string save_graphs;                // a folder: the random validation graphs written there as .sg
  cost::CalibrationProgress progress;
  // Validate this profile instead of measuring a new one (`--validate-only`).
  std::optional<cost::DeviceProfile> existing;
};

// One validated kernel or program: where it came from, predicted and measured.
struct ValidationPoint {
  std::string what;  // "random 12 fused kernel 0", "examples/luminal_fusion.sg unfused kernel 3", ...
  bool program = false;  // a whole program (else one kernel)
  unsigned threads = 1;
  double predicted_us = 0;
  double measured_us = 0;  // median
  double spread = 0;
};

struct ValidationSummary {
  size_t count = 0;
  double spearman = 0;
  double median_abs_err = 0;  // median of |predicted / measured - 1|
  double max_abs_err = 0;
  double max_factor = 0;       // max of max(p/m, m/p)
};

struct CalibrationReport {
  cost::Calibration calibration;
  std::vector<ValidationPoint> points;
  ValidationSummary kernels, programs;
};

// How calibration kernelizes its microkernel graphs: fusion::kernelize, with
// the outputs stored and producers merged (fused) or every value stored and
// nothing merged (unmerged).
cost::GraphKernelizer calibration_kernelizer();

// Throws std::invalid_argument for a device name that is not host, cuda or
// hip, runtime::DeviceUnavailable (an Error) where the GPU is missing.
CalibrationReport calibrate(const CalibrateOptions& options);

ValidationSummary summarize_validation(const std::vector<ValidationPoint>& points, bool programs);

// The profile JSON with the samples (spreads) and the validation summary
// beside the fitted numbers (parse_profile ignores them).
std::string calibration_json(const CalibrationReport& report);

}  // namespace smelt::tools
