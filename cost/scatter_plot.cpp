#include "cost/scatter_plot.h"

#include <png.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "error/output_file.h"

namespace smelt::cost {
namespace {

// The classic 5x7 ASCII font, characters 0x20..0x7E. Five columns per glyph,
// left to right; bit 0 of a column is its top row.
constexpr unsigned char kFont5x7[95][5] = {
    {0x00, 0x00, 0x00, 0x00, 0x00},  // ' '
    {0x00, 0x00, 0x5F, 0x00, 0x00},  // !
    {0x00, 0x07, 0x00, 0x07, 0x00},  // "
    {0x14, 0x7F, 0x14, 0x7F, 0x14},  // #
    {0x24, 0x2A, 0x7F, 0x2A, 0x12},  // $
    {0x23, 0x13, 0x08, 0x64, 0x62},  // %
    {0x36, 0x49, 0x55, 0x22, 0x50},  // &
    {0x00, 0x05, 0x03, 0x00, 0x00},  // '
    {0x00, 0x1C, 0x22, 0x41, 0x00},  // (
    {0x00, 0x41, 0x22, 0x1C, 0x00},  // )
    {0x08, 0x2A, 0x1C, 0x2A, 0x08},  // *
    {0x08, 0x08, 0x3E, 0x08, 0x08},  // +
    {0x00, 0x50, 0x30, 0x00, 0x00},  // ,
    {0x08, 0x08, 0x08, 0x08, 0x08},  // -
    {0x00, 0x60, 0x60, 0x00, 0x00},  // .
    {0x20, 0x10, 0x08, 0x04, 0x02},  // /
    {0x3E, 0x51, 0x49, 0x45, 0x3E},  // 0
    {0x00, 0x42, 0x7F, 0x40, 0x00},  // 1
    {0x42, 0x61, 0x51, 0x49, 0x46},  // 2
    {0x21, 0x41, 0x45, 0x4B, 0x31},  // 3
    {0x18, 0x14, 0x12, 0x7F, 0x10},  // 4
    {0x27, 0x45, 0x45, 0x45, 0x39},  // 5
    {0x3C, 0x4A, 0x49, 0x49, 0x30},  // 6
    {0x01, 0x71, 0x09, 0x05, 0x03},  // 7
    {0x36, 0x49, 0x49, 0x49, 0x36},  // 8
    {0x06, 0x49, 0x49, 0x29, 0x1E},  // 9
    {0x00, 0x36, 0x36, 0x00, 0x00},  // :
    {0x00, 0x56, 0x36, 0x00, 0x00},  // ;
    {0x08, 0x14, 0x22, 0x41, 0x00},  // <
    {0x14, 0x14, 0x14, 0x14, 0x14},  // =
    {0x00, 0x41, 0x22, 0x14, 0x08},  // >
    {0x02, 0x01, 0x51, 0x09, 0x06},  // ?
    {0x32, 0x49, 0x79, 0x41, 0x3E},  // @
    {0x7E, 0x11, 0x11, 0x11, 0x7E},  // A
    {0x7F, 0x49, 0x49, 0x49, 0x36},  // B
    {0x3E, 0x41, 0x41, 0x41, 0x22},  // C
    {0x7F, 0x41, 0x41, 0x22, 0x1C},  // D
    {0x7F, 0x49, 0x49, 0x49, 0x41},  // E
    {0x7F, 0x09, 0x09, 0x09, 0x01},  // F
    {0x3E, 0x41, 0x49, 0x49, 0x7A},  // G
    {0x7F, 0x08, 0x08, 0x08, 0x7F},  // H
    {0x00, 0x41, 0x7F, 0x41, 0x00},  // I
    {0x20, 0x40, 0x41, 0x3F, 0x01},  // J
    {0x7F, 0x08, 0x14, 0x22, 0x41},  // K
    {0x7F, 0x40, 0x40, 0x40, 0x40},  // L
    {0x7F, 0x02, 0x0C, 0x02, 0x7F},  // M
    {0x7F, 0x04, 0x08, 0x10, 0x7F},  // N
    {0x3E, 0x41, 0x41, 0x41, 0x3E},  // O
    {0x7F, 0x09, 0x09, 0x09, 0x06},  // P
    {0x3E, 0x41, 0x51, 0x21, 0x5E},  // Q
    {0x7F, 0x09, 0x19, 0x29, 0x46},  // R
    {0x46, 0x49, 0x49, 0x49, 0x31},  // S
    {0x01, 0x01, 0x7F, 0x01, 0x01},  // T
    {0x3F, 0x40, 0x40, 0x40, 0x3F},  // U
    {0x1F, 0x20, 0x40, 0x20, 0x1F},  // V
    {0x3F, 0x40, 0x38, 0x40, 0x3F},  // W
    {0x63, 0x14, 0x08, 0x14, 0x63},  // X
    {0x07, 0x08, 0x70, 0x08, 0x07},  // Y
    {0x61, 0x51, 0x49, 0x45, 0x43},  // Z
    {0x00, 0x7F, 0x41, 0x41, 0x00},  // [
    {0x02, 0x04, 0x08, 0x10, 0x20},  // backslash
    {0x00, 0x41, 0x41, 0x7F, 0x00},  // ]
    {0x04, 0x02, 0x01, 0x02, 0x04},  // ^
    {0x40, 0x40, 0x40, 0x40, 0x40},  // _
    {0x00, 0x01, 0x02, 0x04, 0x00},  // `
    {0x20, 0x54, 0x54, 0x54, 0x78},  // a
    {0x7F, 0x48, 0x44, 0x44, 0x38},  // b
    {0x38, 0x44, 0x44, 0x44, 0x20},  // c
    {0x38, 0x44, 0x44, 0x48, 0x7F},  // d
    {0x38, 0x54, 0x54, 0x54, 0x18},  // e
    {0x08, 0x7E, 0x09, 0x01, 0x02},  // f
    {0x0C, 0x52, 0x52, 0x52, 0x3E},  // g
    {0x7F, 0x08, 0x04, 0x04, 0x78},  // h
    {0x00, 0x44, 0x7D, 0x40, 0x00},  // i
    {0x20, 0x40, 0x44, 0x3D, 0x00},  // j
    {0x7F, 0x10, 0x28, 0x44, 0x00},  // k
    {0x00, 0x41, 0x7F, 0x40, 0x00},  // l
    {0x7C, 0x04, 0x18, 0x04, 0x78},  // m
    {0x7C, 0x08, 0x04, 0x04, 0x78},  // n
    {0x38, 0x44, 0x44, 0x44, 0x38},  // o
    {0x7C, 0x14, 0x14, 0x14, 0x08},  // p
    {0x08, 0x14, 0x14, 0x18, 0x7C},  // q
    {0x7C, 0x08, 0x04, 0x04, 0x08},  // r
    {0x48, 0x54, 0x54, 0x54, 0x20},  // s
    {0x04, 0x3F, 0x44, 0x40, 0x20},  // t
    {0x3C, 0x40, 0x40, 0x20, 0x7C},  // u
    {0x1C, 0x20, 0x40, 0x20, 0x1C},  // v
    {0x3C, 0x40, 0x30, 0x40, 0x3C},  // w
    {0x44, 0x28, 0x10, 0x28, 0x44},  // x
    {0x0C, 0x50, 0x50, 0x50, 0x3C},  // y
    {0x44, 0x64, 0x54, 0x4C, 0x44},  // z
    {0x00, 0x08, 0x36, 0x41, 0x00},  // {
    {0x00, 0x00, 0x7F, 0x00, 0x00},  // |
    {0x00, 0x41, 0x36, 0x08, 0x00},  // }
    {0x08, 0x04, 0x08, 0x10, 0x08},  // ~
};
constexpr int kGlyphW = 5, kGlyphH = 7, kAdvance = 6;  // unscaled, advance includes a 1-column gap

struct Rgb {
  uint8_t r, g, b;
};
constexpr Rgb kBlack{0, 0, 0};
constexpr Rgb kGrid{225, 225, 225};
constexpr Rgb kTickText{40, 40, 40};
constexpr Rgb kIdentity{60, 60, 60};
constexpr Rgb kGuide{150, 150, 150};
constexpr Rgb kDot{31, 90, 200};
constexpr Rgb kDotEdge{10, 40, 120};

class Canvas {
 public:
  Canvas(int w, int h) : w_(w), h_(h), px_(static_cast<size_t>(w) * h * 3, 255) {}
  int width() const { return w_; }
  int height() const { return h_; }
  const uint8_t* data() const { return px_.data(); }

  void set(int x, int y, Rgb c) {
    if (x < 0 || y < 0 || x >= w_ || y >= h_) return;
    uint8_t* p = &px_[(static_cast<size_t>(y) * w_ + x) * 3];
    p[0] = c.r;
    p[1] = c.g;
    p[2] = c.b;
  }
  void fill_rect(int x0, int y0, int x1, int y1, Rgb c) {  // inclusive
    for (int y = y0; y <= y1; ++y)
      for (int x = x0; x <= x1; ++x) set(x, y, c);
  }
  void hline(int x0, int x1, int y, Rgb c) { fill_rect(std::min(x0, x1), y, std::max(x0, x1), y, c); }
  void vline(int x, int y0, int y1, Rgb c) { fill_rect(x, std::min(y0, y1), x, std::max(y0, y1), c); }

  // Bresenham; `dash` > 0 draws `dash` pixels on, `gap` off; `thick` stamps a
  // thick x thick square per step.
  void line(int x0, int y0, int x1, int y1, Rgb c, int thick = 1, int dash = 0, int gap = 0) {
    int dx = std::abs(x1 - x0), dy = -std::abs(y1 - y0);
    int sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
    int err = dx + dy;
    for (int step = 0;; ++step) {
      if (dash <= 0 || step % (dash + gap) < dash) fill_rect(x0, y0, x0 + thick - 1, y0 + thick - 1, c);
      if (x0 == x1 && y0 == y1) break;
      int e2 = 2 * err;
      if (e2 >= dy) {
        err += dy;
        x0 += sx;
      }
      if (e2 <= dx) {
        err += dx;
        y0 += sy;
      }
    }
  }

  void disc(double cx, double cy, double radius, Rgb fill, Rgb edge) {
    int x0 = static_cast<int>(std::floor(cx - radius - 1)), x1 = static_cast<int>(std::ceil(cx + radius + 1));
    int y0 = static_cast<int>(std::floor(cy - radius - 1)), y1 = static_cast<int>(std::ceil(cy + radius + 1));
    for (int y = y0; y <= y1; ++y)
      for (int x = x0; x <= x1; ++x) {
        double d = std::hypot(x - cx, y - cy);
        if (d <= radius - 0.8)
          set(x, y, fill);
        else if (d <= radius + 0.2)
          set(x, y, edge);
      }
  }

  // Text with its top-left corner at (x, y); `vertical` runs it bottom to top
  // (rotated 90 degrees counter-clockwise) starting at the bottom-left (x, y).
  void text(int x, int y, const std::string& s, int scale, Rgb c, bool vertical = false) {
    for (size_t i = 0; i < s.size(); ++i) {
      unsigned char ch = static_cast<unsigned char>(s[i]);
      if (ch < 0x20 || ch > 0x7E) ch = '?';
      const unsigned char* glyph = kFont5x7[ch - 0x20];
      int pen = static_cast<int>(i) * kAdvance * scale;
      for (int col = 0; col < kGlyphW; ++col)
        for (int row = 0; row < kGlyphH; ++row) {
          if (!(glyph[col] >> row & 1)) continue;
          int gx = pen + col * scale, gy = row * scale;  // glyph-space offsets
          if (vertical)
            fill_rect(x + gy, y - gx - scale + 1, x + gy + scale - 1, y - gx, c);
          else
            fill_rect(x + gx, y + gy, x + gx + scale - 1, y + gy + scale - 1, c);
        }
    }
  }

 private:
  int w_, h_;
  std::vector<uint8_t> px_;
};

int text_width(const std::string& s, int scale) {
  return s.empty() ? 0 : (static_cast<int>(s.size()) * kAdvance - 1) * scale;
}

bool valid_value(double v) { return std::isfinite(v) && v > 0; }

// 1, 10, 100, 1e3 ...; 0.1, 0.01, 1e-3 ...
std::string decade_label(int e) {
  switch (e) {
    case -2: return "0.01";
    case -1: return "0.1";
    case 0: return "1";
    case 1: return "10";
    case 2: return "100";
    default: return "1e" + std::to_string(e);
  }
}

std::string ratio_label(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%gx", r);
  return buf;
}

}  // namespace

double ScatterLayout::pixel_x(double x) const {
  return left + (std::log10(x) - log_lo) / (log_hi - log_lo) * (right - left);
}

double ScatterLayout::pixel_y(double y) const {
  return bottom - (std::log10(y) - log_lo) / (log_hi - log_lo) * (bottom - top);
}

ScatterLayout scatter_layout(const ScatterPlot& plot) {
  ScatterLayout l;
  l.width = 800;
  l.height = 800;
  l.left = 110;
  l.right = 769;
  l.top = 60;
  l.bottom = 719;
  double lo = INFINITY, hi = -INFINITY;
  for (const ScatterPoint& p : plot.points)
    for (double v : {p.x, p.y})
      if (valid_value(v)) {
        lo = std::min(lo, std::log10(v));
        hi = std::max(hi, std::log10(v));
      }
  if (!(lo <= hi)) lo = hi = 0;  // no points
  l.log_lo = std::floor(lo);
  l.log_hi = std::ceil(hi);
  if (l.log_hi <= l.log_lo) l.log_hi = l.log_lo + 1;
  return l;
}

void write_scatter_png(const std::string& path, const ScatterPlot& plot) {
  for (size_t i = 0; i < plot.points.size(); ++i) {
    const ScatterPoint& p = plot.points[i];
    for (auto [name, v] : {std::pair{"x", p.x}, std::pair{"y", p.y}})
      if (!valid_value(v)) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%g", v);
        throw std::runtime_error(path + ": point " + std::to_string(i) + " has " + name + " = " + buf +
                                 "; points on log axes must be finite and > 0");
      }
  }

  const ScatterLayout l = scatter_layout(plot);
  Canvas c(l.width, l.height);
  const int lo = static_cast<int>(l.log_lo), hi = static_cast<int>(l.log_hi);
  const int decades = hi - lo;
  auto px = [&](double log_v) { return l.left + (log_v - l.log_lo) / (l.log_hi - l.log_lo) * (l.right - l.left); };
  auto py = [&](double log_v) { return l.bottom - (log_v - l.log_lo) / (l.log_hi - l.log_lo) * (l.bottom - l.top); };
  auto ipx = [&](double log_v) { return static_cast<int>(std::lround(px(log_v))); };
  auto ipy = [&](double log_v) { return static_cast<int>(std::lround(py(log_v))); };

  // Decade grid lines inside the plot area.
  for (int e = lo + 1; e < hi; ++e) {
    c.vline(ipx(e), l.top + 1, l.bottom - 1, kGrid);
    c.hline(l.left + 1, l.right - 1, ipy(e), kGrid);
  }

  // Guide lines y = r·x: in log space y = x + log10(r), clipped to the square.
  for (double r : plot.ratio_lines) {
    if (!valid_value(r)) continue;
    double off = std::log10(r);
    double x0 = std::max(l.log_lo, l.log_lo - off), x1 = std::min(l.log_hi, l.log_hi - off);
    if (!(x0 < x1)) continue;  // misses the plot area
    bool identity = r == 1.0;
    c.line(ipx(x0), ipy(x0 + off), ipx(x1), ipy(x1 + off), identity ? kIdentity : kGuide, identity ? 2 : 1,
           identity ? 0 : 7, identity ? 0 : 5);
  }

  // Frame, ticks and tick labels.
  c.hline(l.left, l.right, l.top, kBlack);
  c.hline(l.left, l.right, l.bottom, kBlack);
  c.vline(l.left, l.top, l.bottom, kBlack);
  c.vline(l.right, l.top, l.bottom, kBlack);
  const int label_every = std::max(1, (decades + 9) / 10);  // at most ~10 labels per axis
  const bool minor = decades <= 8;
  for (int e = lo; e <= hi; ++e) {
    int x = ipx(e), y = ipy(e);
    c.vline(x, l.bottom, l.bottom + 7, kBlack);
    c.vline(x, l.top, l.top + 4, kBlack);
    c.hline(l.left - 7, l.left, y, kBlack);
    c.hline(l.right - 4, l.right, y, kBlack);
    if ((e - lo) % label_every == 0) {
      std::string s = decade_label(e);
      c.text(x - text_width(s, 2) / 2, l.bottom + 12, s, 2, kTickText);
      c.text(l.left - 12 - text_width(s, 2), y - kGlyphH, s, 2, kTickText);
    }
    if (minor && e < hi)
      for (int m = 2; m <= 9; ++m) {
        double v = e + std::log10(m);
        int mx = ipx(v), my = ipy(v);
        c.vline(mx, l.bottom, l.bottom + 4, kBlack);
        c.vline(mx, l.top, l.top + 2, kBlack);
        c.hline(l.left - 4, l.left, my, kBlack);
        c.hline(l.right - 2, l.right, my, kBlack);
      }
  }

  // Points on top of everything else in the plot area.
  for (const ScatterPoint& p : plot.points) c.disc(l.pixel_x(p.x), l.pixel_y(p.y), 3.5, kDot, kDotEdge);

  // Title, a one-line key to the guide lines, and axis labels.
  c.text((l.width - text_width(plot.title, 2)) / 2, 14, plot.title, 2, kBlack);
  std::string solid, dashed;
  for (double r : plot.ratio_lines) {
    if (!valid_value(r)) continue;
    if (r == 1.0)
      solid = "solid: y = x";
    else
      dashed += (dashed.empty() ? "dashed: y = " : ", ") + ratio_label(r);
  }
  const std::string key = solid + (!solid.empty() && !dashed.empty() ? "    " : "") + dashed;
  c.text((l.width - text_width(key, 1)) / 2, 40, key, 1, kTickText);
  c.text(l.left + (l.right - l.left - text_width(plot.x_label, 2)) / 2, l.bottom + 48, plot.x_label, 2, kBlack);
  c.text(14, l.top + (l.bottom - l.top + text_width(plot.y_label, 2)) / 2, plot.y_label, 2, kBlack, true);

  // Encoded in memory (libpng's simplified API: a first call sizes it), then
  // written whole (error/output_file.h).
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(c.width());
  image.height = static_cast<png_uint_32>(c.height());
  image.format = PNG_FORMAT_RGB;
  png_alloc_size_t png_bytes = 0;
  std::string png;
  bool ok = png_image_write_to_memory(&image, nullptr, &png_bytes, 0, c.data(), 0, nullptr) != 0;
  if (ok) {
    png.resize(png_bytes);
    ok = png_image_write_to_memory(&image, png.data(), &png_bytes, 0, c.data(), 0, nullptr) != 0;
    png.resize(png_bytes);
  }
  const std::string why = ok ? "" : std::string(image.message);
  png_image_free(&image);
  if (!ok) throw std::runtime_error(path + ": cannot write: " + why);
  if (const std::string problem = write_output_file(path, png); !problem.empty()) throw std::runtime_error(problem);
}

}  // namespace smelt::cost
