// smelt::tools::calibrate: measure (smelt::cost::calibrate_host), then predict and time
// kernels and programs the fit never saw.
#include "tools/calibration.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>

#include "cost/predict.h"
#include "fusion/kernelize.h"
#include "ir/builder.h"
#include "ir/text_format.h"
#include "runtime/device.h"
#include "smelt/smelt.h"

namespace smelt::tools {
namespace {

// A random graph of realistic size (4K..2M elements per value), a few ops
// long, that fusion turns into interesting kernels: elementwise chains over
// views, broadcasts, reductions along either axis, small gemms.
// `row_scale` multiplies the rows (a GPU: 32, 32K..32M elements, so kernels
// fill it as a model's do rather than only timing launches).
ir::Graph random_sized_graph(std::mt19937_64& rng, int index, int64_t row_scale) {
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
  static const int64_t kRows[] = {16, 64, 128, 256, 512, 1024};
  static const int64_t kCols[] = {64, 100, 128, 256, 768, 1024};
  const int64_t rows = kRows[pick(6)] * row_scale, cols = kCols[pick(6)];
  ir::Graph g("random_" + std::to_string(index));
  ir::Tensor x = ir::input(g, "x", ir::DType::F32, {rows, cols});
  ir::Tensor v = x;
  static const ir::Op kUnary[] = {ir::Op::Exp, ir::Op::Sigmoid, ir::Op::Tanh, ir::Op::Relu, ir::Op::Neg,
                                  ir::Op::Sqrt, ir::Op::Gelu, ir::Op::Sin, ir::Op::Abs, ir::Op::Erf};
  static const ir::Op kBinary[] = {ir::Op::Add, ir::Op::Mul, ir::Op::Sub, ir::Op::Max, ir::Op::Div};
  const int steps = 2 + pick(6);
  int fresh = 0;
  for (int s = 0; s < steps; ++s) {
    const ir::Shape shape = v.shape();
    switch (pick(10)) {
      case 0:
      case 1:
      case 2: v = ir::apply(kUnary[pick(10)], {v}); break;
      case 3:
      case 4: {
        ir::Tensor other = pick(2) ? x : ir::input(g, "w" + std::to_string(fresh++), ir::DType::F32, shape);
        if (other.shape() != shape) other = ir::input(g, "w" + std::to_string(fresh++), ir::DType::F32, shape);
        v = ir::apply(kBinary[pick(5)], {v, other});
        break;
      }
      case 5: {  // a per-row or per-column operand, broadcast
        const bool per_row = pick(2);
        ir::Tensor b = ir::input(g, "b" + std::to_string(fresh++), ir::DType::F32,
                                 per_row ? ir::Shape{shape[0], 1} : ir::Shape{1, shape[1]});
        v = ir::add(v, ir::broadcast(b, shape));
        break;
      }
      case 6:  // a transposed view
        v = ir::apply(kUnary[pick(10)], {ir::permute(v, {1, 0})});
        break;
      case 7: {  // a slice or a pad
        if (pick(2) && shape[1] >= 4) v = ir::slice_axis(v, 1, shape[1] / 4, shape[1]);
        else v = ir::pad(v, {0, 8}, {0, 8}, 0);
        v = ir::apply(kUnary[pick(10)], {v});
        break;
      }
      case 8: {  // a reduction along either axis, kept as a column or row
        const int64_t axis = pick(2);
        v = ir::broadcast(ir::reduce_sum(v, {axis}, true), shape);
        v = ir::mul(v, ir::apply(kUnary[pick(10)], {x.shape() == shape ? x : v}));
        break;
      }
      case 9: {  // a gemm with a weight
        static const int64_t kOut[] = {64, 128, 256, 512};
        ir::Tensor w = ir::input(g, "m" + std::to_string(fresh++), ir::DType::F32, {shape[1], kOut[pick(4)]});
        v = ir::matmul(v, w);
        break;
      }
    }
    if (v.shape() != x.shape() && pick(3) == 0) break;
  }
  g.add_output(v);
  return g;
}

struct Collector {
  const CalibrateOptions& options;
  const cost::DeviceProfile& profile;
  std::vector<ValidationPoint>& points;
  double budget_s;
  std::shared_ptr<runtime::Device> gpu;  // null: the host, at each thread count

  cost::Timing time(const kernel::KernelProgram& p, unsigned threads) const {
    return gpu ? cost::time_programs({&p}, gpu, budget_s)[0] : cost::time_host_program(p, threads, budget_s);
  }

  // Every kernel of `program` alone, and the whole program, at every thread count.
  void program(const std::string& what, const kernel::KernelProgram& p, const std::vector<unsigned>& threads,
               bool kernels_too) {
    for (unsigned t : threads) {
      const cost::DeviceProfile at = profile.for_threads(t);
      if (kernels_too)
        for (size_t k = 0; k < p.kernels.size(); ++k) {
          const kernel::KernelProgram one = cost::single_kernel_program(p, k);
          const cost::Timing timing = time(one, t);
          points.push_back({what + " kernel " + p.kernels[k].name, false, t, cost::predict_program_us(one, at),
                            timing.median_us, timing.spread});
        }
      const cost::Timing timing = time(p, t);
      points.push_back({what, true, t, cost::predict_program_us(p, at), timing.median_us, timing.spread});
    }
  }
};

double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  auto ranks = [](const std::vector<double>& v) {
    std::vector<size_t> order(v.size());
    for (size_t i = 0; i < v.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return v[x] < v[y]; });
    std::vector<double> r(v.size());
    for (size_t i = 0; i < order.size();) {
      size_t j = i;
      while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
      for (size_t k = i; k <= j; ++k) r[order[k]] = (static_cast<double>(i + j)) / 2;
      i = j + 1;
    }
    return r;
  };
  const std::vector<double> ra = ranks(a), rb = ranks(b);
  const double n = static_cast<double>(a.size());
  double ma = 0, mb = 0;
  for (size_t i = 0; i < a.size(); ++i) ma += ra[i] / n, mb += rb[i] / n;
  double cov = 0, va = 0, vb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    cov += (ra[i] - ma) * (rb[i] - mb);
    va += (ra[i] - ma) * (ra[i] - ma);
    vb += (rb[i] - mb) * (rb[i] - mb);
  }
  return va > 0 && vb > 0 ? cov / std::sqrt(va * vb) : 0;
}

}  // namespace

ValidationSummary summarize_validation(const std::vector<ValidationPoint>& points, bool programs) {
  ValidationSummary s;
  std::vector<double> predicted, measured, errors;
  for (const ValidationPoint& p : points) {
    if (p.program != programs || !(p.measured_us > 0) || !(p.predicted_us > 0)) continue;
    predicted.push_back(p.predicted_us);
    measured.push_back(p.measured_us);
    errors.push_back(std::fabs(p.predicted_us / p.measured_us - 1));
    s.max_factor = std::max(s.max_factor, std::max(p.predicted_us / p.measured_us, p.measured_us / p.predicted_us));
  }
  s.count = errors.size();
  if (errors.empty()) return s;
  s.spearman = spearman(predicted, measured);
  std::vector<double> sorted = errors;
  std::sort(sorted.begin(), sorted.end());
  s.median_abs_err = sorted.size() % 2 ? sorted[sorted.size() / 2]
                                       : (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]) / 2;
  s.max_abs_err = sorted.back();
  return s;
}

cost::GraphKernelizer calibration_kernelizer() {
  return {
      .fused = [](const ir::Graph& g) { return fusion::kernelize(g, fusion::materialize_outputs(g)).program; },
      .unmerged =
          [](const ir::Graph& g) {
            return fusion::kernelize(g, fusion::materialize_everything(g), fusion::KernelizeOptions::unmerged())
                .program;
          },
  };
}

CalibrationReport calibrate(const CalibrateOptions& options) {
  const std::optional<Target> target = parse_target(options.device);
  if (!target) throw std::invalid_argument("calibrate: --device " + options.device + ": not host, cuda or hip");
  // A GPU: opened first, so a missing driver or device is said before any work
  // (runtime::DeviceUnavailable, exit 1); measured on the whole device.
  std::shared_ptr<runtime::Device> gpu;
  if (*target != Target::kHost) gpu = runtime::open_device(*target, {.threads = 0, .arch = options.arch});
  if (gpu && options.existing && options.existing->device != options.device)
    throw std::invalid_argument("calibrate: the profile to validate is for " + options.existing->device + ", not " +
                                options.device);
  CalibrationReport report;
  const std::vector<unsigned> threads =
      gpu ? std::vector<unsigned>{1} : options.threads.empty() ? cost::default_calibration_threads() : options.threads;
  const int randoms = options.random_graphs > 0 ? options.random_graphs : options.quick ? 16 : 60;
  // Validation steps are counted after the measurement's own.
  const size_t validation_steps = static_cast<size_t>(randoms) + options.graphs.size();
  size_t measurement_steps = 0;
  cost::CalibrationOptions measure{options.quick, threads, {}, calibration_kernelizer()};
  if (options.progress)
    measure.progress = [&](size_t done, size_t total, const std::string& what) {
      measurement_steps = total;
      options.progress(done, total + validation_steps, what);
    };
  if (options.existing) {
    report.calibration.profile = *options.existing;
  } else if (gpu) {
    report.calibration = cost::calibrate_gpu(measure, gpu, gpu->processor());
  } else {
    report.calibration = cost::calibrate_host(measure);
  }
  const size_t offset = options.existing ? 0 : measurement_steps;
  const size_t total = offset + validation_steps;

  Collector collect{options, report.calibration.profile, report.points, options.quick ? 0.05 : 0.15, gpu};
  std::mt19937_64 rng(options.seed);
  FuseOptions fuse_options;
  fuse_options.profile = report.calibration.profile;
  fuse_options.limits.extraction_s = 0.5;
  fuse_options.simplify_indices = false;  // the kernels run the same either way; proofs take time
  for (int i = 0; i < randoms; ++i) {
    if (options.progress) options.progress(offset + static_cast<size_t>(i), total, "validation: random graph " + std::to_string(i));
    const ir::Graph g = random_sized_graph(rng, i, gpu ? 32 : 1);
    if (!options.save_graphs.empty()) {
      std::ofstream out(std::filesystem::path(options.save_graphs) / (g.name() + ".sg"));
      out << ir::print_graph(g);
    }
    // Fused for each thread count: the program the compiler would run there.
    for (unsigned t : threads) {
      FuseOptions o = fuse_options;
      o.threads = t;
      const FusionResult fused = fuse(g, o);
      collect.program("random " + std::to_string(i) + " fused", fused.after, {t}, true);
      if (i % 3 == 0) collect.program("random " + std::to_string(i) + " unfused", fused.before, {t}, true);
    }
  }
  for (size_t i = 0; i < options.graphs.size(); ++i) {
    const std::string& file = options.graphs[i];
    if (options.progress) options.progress(offset + static_cast<size_t>(randoms) + i, total, "validation: " + file);
    const ir::Graph g = load_graph(file);
    FuseOptions o = fuse_options;
    o.limits.extraction_s = 2;
    o.simplify_indices = true;
    for (unsigned t : threads) {
      o.threads = t;
      const FusionResult fused = fuse(g, o);
      collect.program(file + " fused", fused.after, {t}, true);
      collect.program(file + " unfused", fused.before, {t}, false);
    }
  }
  if (options.progress) options.progress(total, total, "done");
  report.kernels = summarize_validation(report.points, false);
  report.programs = summarize_validation(report.points, true);
  return report;
}

std::string calibration_json(const CalibrationReport& report) {
  nlohmann::json j = nlohmann::json::parse(cost::profile_to_json(report.calibration.profile));
  nlohmann::json samples = nlohmann::json::array();
  for (const cost::CalibrationSample& s : report.calibration.samples)
    samples.push_back({{"what", s.what},
                       {"threads", s.threads},
                       {"value", s.value},
                       {"unit", s.unit},
                       {"median_us", s.timing.median_us},
                       {"min_us", s.timing.min_us},
                       {"spread", s.timing.spread},
                       {"reps", s.timing.reps},
                       {"stable", s.timing.stable}});
  j["samples"] = samples;
  auto summary = [](const ValidationSummary& s) {
    return nlohmann::json{{"count", s.count},
                          {"spearman", s.spearman},
                          {"median_abs_err", s.median_abs_err},
                          {"max_abs_err", s.max_abs_err},
                          {"max_factor", s.max_factor}};
  };
  nlohmann::json points = nlohmann::json::array();
  for (const ValidationPoint& p : report.points)
    points.push_back({{"what", p.what},
                      {"program", p.program},
                      {"threads", p.threads},
                      {"predicted_us", p.predicted_us},
                      {"measured_us", p.measured_us},
                      {"spread", p.spread}});
  j["validation"] = {{"kernels", summary(report.kernels)}, {"programs", summary(report.programs)}, {"points", points}};
  return j.dump(1) + "\n";
}

}  // namespace smelt::tools
