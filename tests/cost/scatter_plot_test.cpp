// The calibration scatter plot: the PNG read back has its size, dots where the
// layout puts them and the y = x line on the diagonal; bad points and bad
// paths throw and leave no file behind.
#include <gtest/gtest.h>
#include <png.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "cost/scatter_plot.h"

namespace smelt::cost {
namespace {

namespace fs = std::filesystem;

struct Image {
  int width = 0, height = 0;
  std::vector<uint8_t> rgb;
  const uint8_t* at(int x, int y) const { return &rgb[(static_cast<size_t>(y) * width + x) * 3]; }
  bool white(int x, int y) const {
    const uint8_t* p = at(x, y);
    return p[0] == 255 && p[1] == 255 && p[2] == 255;
  }
  // Some pixel within `r` of (x, y) satisfies `pred`.
  template <class Pred>
  bool near(double x, double y, int r, Pred pred) const {
    int cx = static_cast<int>(std::lround(x)), cy = static_cast<int>(std::lround(y));
    for (int yy = cy - r; yy <= cy + r; ++yy)
      for (int xx = cx - r; xx <= cx + r; ++xx)
        if (xx >= 0 && yy >= 0 && xx < width && yy < height && pred(at(xx, yy))) return true;
    return false;
  }
};

Image read_png(const fs::path& path) {
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&image, path.c_str()))
    throw std::runtime_error(path.string() + ": " + image.message);
  image.format = PNG_FORMAT_RGB;
  Image out;
  out.width = static_cast<int>(image.width);
  out.height = static_cast<int>(image.height);
  out.rgb.resize(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, out.rgb.data(), 0, nullptr)) {
    std::string why = image.message;
    png_image_free(&image);
    throw std::runtime_error(path.string() + ": " + why);
  }
  return out;
}

class ScatterPlotTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("smelt_scatter_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  size_t files_in_dir() const {
    return static_cast<size_t>(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()));
  }
  fs::path dir_;
};

// 50 points spread over 1..1e4 (x), each 1.5x to 1.7x off the diagonal, so
// none of them lies on the y = x line.
ScatterPlot fifty_points() {
  ScatterPlot plot;
  plot.title = "Predicted vs measured kernel time";
  plot.x_label = "predicted (us)";
  plot.y_label = "measured (us)";
  for (int i = 0; i < 50; ++i) {
    double x = std::pow(10.0, 0.2 + 3.6 * i / 49.0);
    double ratio = (i % 2 == 0) ? 1.6 : 1 / 1.6;
    plot.points.push_back({x, x * ratio});
  }
  return plot;
}

TEST_F(ScatterPlotTest, FiftyPointsLandWhereTheLayoutPutsThem) {
  ScatterPlot plot = fifty_points();
  const ScatterPoint known{300.0, 30.0};  // far below the diagonal: nothing else is drawn there but a grid line
  plot.points.push_back(known);
  const fs::path path = dir_ / "plot.png";
  write_scatter_png(path.string(), plot);
  ASSERT_TRUE(fs::exists(path));
  EXPECT_EQ(files_in_dir(), 1u);  // no temporary left beside it

  const Image img = read_png(path);
  ASSERT_EQ(img.width, 800);
  ASSERT_EQ(img.height, 800);
  EXPECT_TRUE(img.white(2, 2));  // white background

  const ScatterLayout l = scatter_layout(plot);
  EXPECT_EQ(l.log_lo, 0);  // smallest value is 1.58/1.6 ~ 0.99 ... > 10^-1
  EXPECT_GE(l.log_hi, 4);
  EXPECT_GT(l.left, 0);
  EXPECT_LT(l.right, img.width);
  EXPECT_EQ(l.right - l.left, l.bottom - l.top);  // square: y = x is the diagonal

  auto bluish = [](const uint8_t* p) { return p[2] > 100 && p[2] > p[0] + 60; };
  auto not_white = [](const uint8_t* p) { return !(p[0] == 255 && p[1] == 255 && p[2] == 255); };
  EXPECT_TRUE(img.near(l.pixel_x(known.x), l.pixel_y(known.y), 1, bluish));
  // Every point's centre carries the dot colour.
  for (const ScatterPoint& p : plot.points)
    EXPECT_TRUE(img.near(l.pixel_x(p.x), l.pixel_y(p.y), 1, bluish)) << p.x << ", " << p.y;
  // Nothing bluish far from any point: the empty region above the 2x line.
  EXPECT_FALSE(img.near(l.pixel_x(3.0), l.pixel_y(3000.0), 6, bluish));

  // y = x passes through the diagonal at values between the points' lines and off the grid.
  for (double v : {1.5, 4.0, 25.0, 160.0, 700.0, 3500.0}) {
    EXPECT_TRUE(img.near(l.pixel_x(v), l.pixel_y(v), 1, not_white)) << v;
    // ...and is not a blue dot there.
    EXPECT_FALSE(img.near(l.pixel_x(v), l.pixel_y(v), 0, bluish)) << v;
  }
}

TEST_F(ScatterPlotTest, OnlyTheIdentityLineIsDrawnWhenAsked) {
  ScatterPlot plot;
  plot.ratio_lines = {1.0};
  plot.points = {{1.0, 100.0}, {1000.0, 10.0}};  // range 10^0 .. 10^3
  const fs::path path = dir_ / "identity.png";
  write_scatter_png(path.string(), plot);
  const Image img = read_png(path);
  const ScatterLayout l = scatter_layout(plot);
  EXPECT_EQ(l.log_lo, 0);
  EXPECT_EQ(l.log_hi, 3);
  auto not_white = [](const uint8_t* p) { return !(p[0] == 255 && p[1] == 255 && p[2] == 255); };
  for (double v : {2.0, 5.0, 30.0, 70.0, 300.0, 600.0}) {
    EXPECT_TRUE(img.near(l.pixel_x(v), l.pixel_y(v), 1, not_white)) << v;
    // No 2x / 0.5x guide lines: white 10 pixels above and below the diagonal.
    EXPECT_TRUE(img.white(static_cast<int>(std::lround(l.pixel_x(v))), static_cast<int>(std::lround(l.pixel_y(v))) - 10))
        << v;
    EXPECT_TRUE(img.white(static_cast<int>(std::lround(l.pixel_x(v))), static_cast<int>(std::lround(l.pixel_y(v))) + 10))
        << v;
  }
  // Both corners of the diagonal are on the plot frame.
  EXPECT_DOUBLE_EQ(l.pixel_x(1.0), l.left);
  EXPECT_DOUBLE_EQ(l.pixel_y(1.0), l.bottom);
  EXPECT_DOUBLE_EQ(l.pixel_x(1000.0), l.right);
  EXPECT_DOUBLE_EQ(l.pixel_y(1000.0), l.top);
}

TEST_F(ScatterPlotTest, ZeroOrNanPointThrowsNamingTheIndexAndLeavesNoFile) {
  const double bad_values[] = {0.0, std::numeric_limits<double>::quiet_NaN(), -1.0,
                               std::numeric_limits<double>::infinity()};
  for (double bad : bad_values) {
    for (bool bad_x : {true, false}) {
      ScatterPlot plot = fifty_points();
      (bad_x ? plot.points[17].x : plot.points[17].y) = bad;
      const fs::path path = dir_ / "bad.png";
      try {
        write_scatter_png(path.string(), plot);
        ADD_FAILURE() << "accepted " << bad;
      } catch (const std::runtime_error& e) {
        const std::string what = e.what();
        EXPECT_EQ(what.rfind(path.string(), 0), 0u) << what;
        EXPECT_NE(what.find("point 17"), std::string::npos) << what;
        EXPECT_NE(what.find(bad_x ? "x =" : "y ="), std::string::npos) << what;
      }
      EXPECT_FALSE(fs::exists(path));
      EXPECT_EQ(files_in_dir(), 0u);
    }
  }
}

TEST_F(ScatterPlotTest, BadPointDoesNotClobberAnExistingFile) {
  const fs::path path = dir_ / "keep.png";
  { std::ofstream(path) << "old"; }
  ScatterPlot plot = fifty_points();
  plot.points[3].y = 0;
  EXPECT_THROW(write_scatter_png(path.string(), plot), std::runtime_error);
  std::ifstream in(path);
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, "old");
  EXPECT_EQ(files_in_dir(), 1u);
}

TEST_F(ScatterPlotTest, UnwritablePathThrowsNamingIt) {
  // A regular file as the parent "directory": unwritable even for root.
  const fs::path blocker = dir_ / "not_a_dir";
  { std::ofstream(blocker) << "x"; }
  for (const fs::path& path : {blocker / "plot.png", dir_ / "missing" / "plot.png"}) {
    try {
      write_scatter_png(path.string(), fifty_points());
      ADD_FAILURE() << "wrote " << path;
    } catch (const std::runtime_error& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind(path.string(), 0), 0u) << what;
      EXPECT_NE(what.find("cannot write"), std::string::npos) << what;
    }
    EXPECT_FALSE(fs::exists(path));
  }
  EXPECT_EQ(files_in_dir(), 1u);  // only the blocker
}

TEST_F(ScatterPlotTest, OverwritesAnExistingPlotAndAcceptsNoPoints) {
  const fs::path path = dir_ / "plot.png";
  { std::ofstream(path) << "old"; }
  ScatterPlot empty;
  empty.title = "no kernels";
  write_scatter_png(path.string(), empty);
  const Image img = read_png(path);
  EXPECT_EQ(img.width, 800);
  EXPECT_EQ(files_in_dir(), 1u);
}

}  // namespace
}  // namespace smelt::cost
