#pragma once
// A small PNG scatter-plot writer for `smelt calibrate`: predicted vs measured
// kernel time on log-log axes, with y = r·x guide lines. Self-contained apart
// from libpng (text uses a built-in 5x7 bitmap font).
#include <string>
#include <vector>

namespace smelt::cost {

struct ScatterPoint {
  double x = 0, y = 0;  // both > 0 (log axes)
};

struct ScatterPlot {
  std::string title, x_label, y_label;  // ASCII
  std::vector<ScatterPoint> points;
  std::vector<double> ratio_lines{1.0, 0.8, 1.25, 0.5, 2.0};  // y = r*x guide lines (1.0 solid, others dashed)
};

// Writes an 800x800 RGB PNG (white background) with log10 axes spanning the
// data (decade ticks labelled 0.01, 0.1, 1, 10, 100, 1e3 ...), the guide lines,
// one dot per point, the title, a one-line key to the guide lines under it,
// and the axis labels (y label reads bottom to top). The file is written beside
// `path` under a temporary name and renamed at the end, so a failure leaves no
// file. Throws std::runtime_error starting with `path` if a point is not finite
// and > 0 (naming its index) or if the file cannot be written.
void write_scatter_png(const std::string& path, const ScatterPlot& plot);

// Where write_scatter_png puts things (for callers that annotate or test the
// image). Both axes share one log10 range [log_lo, log_hi] of whole decades
// covering every x and y, so y = x is the plot area's diagonal. Points that are
// not finite and > 0 are ignored here.
struct ScatterLayout {
  int width = 800, height = 800;
  // The plot area, in pixels, inclusive; y grows downwards.
  int left = 0, top = 0, right = 0, bottom = 0;
  double log_lo = 0, log_hi = 1;
  double pixel_x(double x) const;  // data x (> 0) -> pixel column (not rounded)
  double pixel_y(double y) const;  // data y (> 0) -> pixel row (not rounded)
};
ScatterLayout scatter_layout(const ScatterPlot& plot);

}  // namespace smelt::cost
