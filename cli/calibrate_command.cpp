#include "cli/calibrate_command.h"

#include <memory>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "cli/command.h"
#include "cli/commands.h"
#include "cli/format.h"
#include "error/output_file.h"
#include "tools/calibration.h"
#include "smelt/smelt.h"

namespace smelt::cli {
namespace {

namespace fs = std::filesystem;

// Writes whole or not at all (error/output_file.h), so a failure leaves no partial output.
void write_atomically(const fs::path& path, const std::string& text) {
  if (const std::string problem = write_output_file(path.string(), text); !problem.empty())
    throw std::runtime_error(problem);
}

std::string summary_line(const smelt::tools::ValidationSummary& s, const char* what) {
  return formatted("spearman=%.3f", s.spearman) + formatted(" median_abs_err=%.3f", s.median_abs_err) +
         formatted(" max_abs_err=%.3f", s.max_abs_err) + " " + what + "=" + std::to_string(s.count);
}

std::vector<unsigned> thread_counts(unsigned up_to) {
  if (up_to == 0) return {};
  std::vector<unsigned> t;
  for (unsigned n = 1; n < up_to; n *= 2) t.push_back(n);
  t.push_back(up_to);
  return t;
}

}  // namespace

int calibrate_command(const CalibrateCommandOptions& options) {
  // A GPU's profile is named by the GPU, known once the device is open.
  fs::path profile_path = options.output.empty() ? fs::path("profile.json") : fs::path(options.output);
  const bool named_by_gpu = options.output.empty() && options.device != "host";
  smelt::tools::CalibrateOptions o;
  o.device = options.device;
  o.arch = options.arch;
  o.quick = options.quick;
  o.threads = thread_counts(options.threads);
  o.graphs = options.validate;
  o.random_graphs = options.random;
  o.seed = options.seed;
  o.save_graphs = options.save_graphs;
  try {
    for (const std::string& file : options.validate) (void)smelt::load_graph(file);  // bad input before minutes of work
    // Likewise an output that cannot be written (a missing folder): found now, not after the measuring.
    const fs::path folder = profile_path.has_parent_path() ? profile_path.parent_path() : fs::path(".");
    std::error_code error;
    if (!fs::is_directory(folder, error))
      throw std::runtime_error(profile_path.string() + ": cannot write (no folder " + folder.string() + ")");
    if (::access(folder.c_str(), W_OK) != 0)
      throw std::runtime_error(profile_path.string() + ": cannot write (folder " + folder.string() + " is not writable)");
    if (!options.validate_only.empty()) o.existing = smelt::load_device_profile(options.validate_only, options.device);
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kBadInput;
  }
  // A progress bar on a terminal only, so pipes and files get just the results.
  if (::isatty(STDOUT_FILENO) && ::isatty(STDERR_FILENO))
    o.progress = [](size_t done, size_t total, const std::string& what) {
      const int width = 30;
      const int filled = total ? static_cast<int>(width * done / total) : width;
      std::cerr << "\r\033[K[" << std::string(static_cast<size_t>(filled), '#')
                << std::string(static_cast<size_t>(width - filled), '.') << "] " << done << "/" << total << " "
                << what << (done == total ? "\r\033[K" : "") << std::flush;
    };
  smelt::tools::CalibrationReport report = smelt::tools::calibrate(o);
  if (named_by_gpu) profile_path = cost::profile_file_name(options.device, report.calibration.profile.cpu);
  fs::path png_path = profile_path;
  png_path.replace_extension(".png");

  cost::ScatterPlot plot;
  plot.title = "smelt cost model on " + report.calibration.profile.cpu + ": " + std::to_string(report.kernels.count) +
               " held-out kernels";
  plot.x_label = "predicted us";
  plot.y_label = "measured us (median)";
  for (const smelt::tools::ValidationPoint& p : report.points)
    if (!p.program && p.predicted_us > 0 && p.measured_us > 0) plot.points.push_back({p.predicted_us, p.measured_us});
  try {
    if (options.validate_only.empty()) write_atomically(profile_path, smelt::tools::calibration_json(report));
    if (!plot.points.empty()) cost::write_scatter_png(png_path.string(), plot);
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kBadInput;
  }

  for (const std::string& failure : report.calibration.failed_steps)
    std::cerr << "error: calibrate: step " << failure << "\n";
  const int status = report.calibration.failed_steps.empty() ? kOk : kBadInput;
  if (options.json) {
    auto summary = [](const smelt::tools::ValidationSummary& s) {
      return nlohmann::ordered_json{{"count", s.count}, {"spearman", s.spearman}, {"median_abs_err", s.median_abs_err},
                                    {"max_abs_err", s.max_abs_err}, {"max_factor", s.max_factor}};
    };
    nlohmann::ordered_json j = {{"profile", options.validate_only.empty() ? profile_path.string() : options.validate_only},
                                {"plot", plot.points.empty() ? "" : png_path.string()},
                                {"cpu", report.calibration.profile.cpu},
                                {"overlap", report.calibration.profile.overlap},
                                {"kernels", summary(report.kernels)},
                                {"programs", summary(report.programs)}};
    std::cout << j.dump() << "\n";
    return status;
  }
  // The kernels furthest off, to look at with `smelt compile --report`.
  std::vector<const smelt::tools::ValidationPoint*> worst;
  for (const smelt::tools::ValidationPoint& p : report.points)
    if (!p.program && p.predicted_us > 0 && p.measured_us > 0) worst.push_back(&p);
  auto factor = [](const smelt::tools::ValidationPoint* p) {
    return std::max(p->predicted_us / p->measured_us, p->measured_us / p->predicted_us);
  };
  std::sort(worst.begin(), worst.end(), [&](auto* a, auto* b) { return factor(a) > factor(b); });
  if (worst.size() > 10) worst.resize(10);
  std::cout << "kernels furthest off (predicted, measured median us):\n";
  for (const smelt::tools::ValidationPoint* p : worst)
    std::cout << formatted("  %10.1f", p->predicted_us) << formatted(" %10.1f", p->measured_us)
              << formatted("  %5.2fx  ", p->measured_us / p->predicted_us) << p->threads << "t  " << p->what << "\n";
  // Per source: how far the programs are off.
  std::cout << "programs (predicted vs measured median, us):\n";
  for (const smelt::tools::ValidationPoint& p : report.points)
    if (p.program)
      std::cout << formatted("  %10.1f", p.predicted_us) << formatted(" %10.1f", p.measured_us)
                << formatted("  %5.2fx  ", p.measured_us / p.predicted_us) << p.threads << "t  " << p.what << "\n";
  if (options.validate_only.empty())
    std::cout << "profile: " << profile_path.string() << " (" << report.calibration.samples.size()
              << " measurements, overlap " << formatted("%.2f", report.calibration.profile.overlap) << ")\n";
  if (!plot.points.empty()) std::cout << "plot: " << png_path.string() << "\n";
  std::cout << "programs: " << summary_line(report.programs, "programs") << "\n";
  std::cout << summary_line(report.kernels, "kernels") << "\n";
  return status;
}

Registered register_calibrate(CLI::App& app, [[maybe_unused]] SharedOptions& shared) {
  auto calibrate = std::make_shared<CalibrateCommandOptions>();
  CLI::App* calibrate_cmd = app.add_subcommand(
      "calibrate",
      "Measure the cost model's device profile by running the kernels smelt emits; validate it on held-out "
      "kernels and programs; write PROFILE.json and a predicted-vs-measured scatter PNG beside it");
  calibrate_cmd->add_option("--device", calibrate->device,
                            "host, or a GPU (cuda, hip: measured on the device through the kernels smelt emits for it; "
                            "a missing driver or device: exit 1)")
      ->check(CLI::IsMember({"host", "cuda", "hip"}))
      ->default_val("host");
  calibrate_cmd->add_option("-o,--output", calibrate->output,
                            "The profile to write (the plot: same name, .png); default profile.json, for a GPU "
                            "<its name>.json (nvidia-h200.json), the name it ships under in cost/profiles/");
  calibrate_cmd->add_option("--arch", calibrate->arch, "cuda / hip: the architecture to emit for (default: the device's)");
  calibrate_cmd->add_flag("--quick", calibrate->quick, "Fewer sizes, shapes and validation graphs: minutes, not ten (2.6 min at --threads 1 on a 2-core AMD EPYC)");
  calibrate_cmd->add_option("--threads", calibrate->threads, "Calibrate 1, 2, 4, ... up to N threads (0: every core)")
      ->check(CLI::Range(0u, 1024u))
      ->default_val(0);
  calibrate_cmd->add_option("--validate", calibrate->validate, "More graphs (.sg / .onnx) to validate on")
      ->check(CLI::ExistingFile);
  calibrate_cmd->add_option("--random", calibrate->random, "Random graphs to validate on (0: 60, --quick: 16)")
      ->check(CLI::Range(0, 100000))
      ->default_val(0);
  calibrate_cmd->add_option("--seed", calibrate->seed, "Seed of the random validation graphs")->default_val(1);
  calibrate_cmd->add_option("--save-graphs", calibrate->save_graphs,
                            "Write the random validation graphs into this folder as .sg (to reproduce a point)")
      ->check(CLI::ExistingDirectory);
  calibrate_cmd->add_option("--validate-only", calibrate->validate_only,
                            "Validate this profile instead of measuring a new one (writes only the plot)");
  calibrate_cmd->add_flag("--json", calibrate->json, "Print the validation summary as one JSON object");

  return {calibrate_cmd, [calibrate] { return calibrate_command(*calibrate); }};
}

}  // namespace smelt::cli
