#include "tools/fusion_report.h"

#include <cstdio>
#include <sstream>

#include "smelt/smelt.h"

namespace smelt::tools {
namespace {

std::string formatted(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}
std::string microseconds(double us) { return formatted("%.2f us", us); }
std::string seconds(double s) { return formatted("%.3f s", s); }
std::string kernels(size_t n) { return std::to_string(n) + (n == 1 ? " kernel" : " kernels"); }

}  // namespace

std::string fusion_report(const FusionResult& r, const std::string& source) {
  std::ostringstream out;
  out << source << ": graph " << (r.graph.name().empty() ? "(unnamed)" : r.graph.name()) << "\n";
  if (r.extractor != "none") {
    out << "e-graph: " << r.egraph_nodes << " nodes, " << r.egraph_classes << " classes (" << r.stop_reason
        << " after " << r.iterations << " iterations, " << seconds(r.saturation_s) << ")\n"
        << "extraction: " << r.extractor << " from \"" << r.start << "\", " << r.evaluations
        << " programs costed, "
        << (r.search_finished ? std::string("finished") : "stopped at the " + r.extraction_stop) << ", "
        << seconds(r.extraction_s) << "\n";
    if (r.parts.size() > 1) {
      out << "parts (the program split where few values cross; identical parts searched once):\n";
      for (size_t i = 0; i < r.parts.size(); ++i) {
        const fusion::PartReport& p = r.parts[i];
        out << "  part " << i << ": values " << p.first_value << ".." << p.last_value << ", " << p.ops << " ops, "
            << p.classes << " classes: " << p.decided;
        if (p.decided == "looked up") out << " (part " << p.same_as << ")";
        else out << ", " << p.evaluations << " programs costed";
        out << ", " << microseconds(p.predicted_us) << " predicted, " << seconds(p.seconds) << "\n";
      }
    }
    out << "rules that changed the e-graph:";
    if (r.rules_fired.empty()) out << " none";
    for (size_t i = 0; i < r.rules_fired.size(); ++i)
      out << (i ? ", " : " ") << r.rules_fired[i].first << " (" << r.rules_fired[i].second << ")";
    out << "\n";
  }
  out << "before (one kernel per op): " << kernels(r.kernels_before) << ", " << microseconds(r.predicted_us_before)
      << " predicted\n"
      << "after (fused):              " << kernels(r.kernels_after) << ", " << microseconds(r.predicted_us_after)
      << " predicted";
  if (r.predicted_us_after > 0) out << formatted(" (%.2fx)", r.predicted_us_before / r.predicted_us_after);
  out << "\n\n";
  for (size_t i = 0; i < r.after.kernels.size(); ++i) {
    const cost::KernelCost& c = r.after_kernel_costs[i];
    out << "kernel " << r.after.kernels[i].name << ": " << microseconds(c.total_us) << " (fixed "
        << microseconds(c.fixed_us) << ", memory " << microseconds(c.memory_us) << ", compute "
        << microseconds(c.compute_us) << ")\n";
  }
  out << "\nindex maps and masks (simplified, each proved equal to the composed form by Z3"
      << (r.index_validation.stopped_at_time_limit ? "; the proofs stopped at their time limit" : "") << "):\n"
      << r.index_validation.str() << "\n"
      << kernel::print_program(r.after);
  return out.str();
}

}  // namespace smelt::tools
