// smelt::tools::render_svg: DOT through graphviz's `dot` to SVG, and the one-line
// errors when dot is missing or rejects the text.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>

#include "tools/picture.h"
#include "tests/support/scoped_env.h"

namespace {

namespace fs = std::filesystem;

// PATH set to an empty folder for the test's lifetime, then restored.
class PathWithoutDot {
 public:
  PathWithoutDot() : folder_(fs::temp_directory_path() / ("smelt_no_dot_" + std::to_string(::getpid()))) {
    fs::create_directories(folder_);
    path_.emplace("PATH", folder_.string());
  }
  PathWithoutDot(const PathWithoutDot&) = delete;
  PathWithoutDot& operator=(const PathWithoutDot&) = delete;
  ~PathWithoutDot() {
    path_.reset();
    fs::remove_all(folder_);
  }

 private:
  fs::path folder_;
  std::optional<smelt::smelt_testing::ScopedEnv> path_;
};

std::string message_of(const std::string& dot) {
  try {
    smelt::tools::render_svg(dot);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Picture, RendersDotToSvg) {
  ASSERT_TRUE(smelt::tools::graphviz_available()) << "graphviz is a dependency (scripts/bootstrap installs it)";
  const std::string svg = smelt::tools::render_svg("digraph g { a -> b [label=\"x<y\"] }");
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u) << svg.substr(0, 200);
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("x&lt;y"), std::string::npos);
}

// Larger than a pipe's buffer both ways: stdin is fed while stdout is drained.
TEST(Picture, RendersALargeGraphWithoutStalling) {
  ASSERT_TRUE(smelt::tools::graphviz_available()) << "graphviz is a dependency (scripts/bootstrap installs it)";
  std::string dot = "digraph g {\n";
  for (int i = 0; i < 3000; ++i) dot += "  n" + std::to_string(i) + " [label=\"" + std::string(40, 'x') + "\"]\n";
  dot += "}\n";
  ASSERT_GT(dot.size(), 65536u);
  const std::string svg = smelt::tools::render_svg(dot);
  EXPECT_NE(svg.find("n2999"), std::string::npos);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
}

TEST(Picture, DotsComplaintIsTheError) {
  ASSERT_TRUE(smelt::tools::graphviz_available()) << "graphviz is a dependency (scripts/bootstrap installs it)";
  const std::string message = message_of("digraph { a -> }");
  EXPECT_EQ(message.rfind("graphviz's dot failed (exit 1): ", 0), 0u) << message;
  EXPECT_NE(message.find("syntax error"), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

// A dot that exits without reading its input: the write fails with EPIPE (no
// SIGPIPE kills the process) and the error is dot's complaint.
TEST(Picture, ADotThatStopsReadingIsAnErrorNotASignal) {
  const fs::path folder = fs::temp_directory_path() / ("smelt_fake_dot_" + std::to_string(::getpid()));
  fs::create_directories(folder);
  std::ofstream(folder / "dot") << "#!/bin/sh\necho 'Error: out of ink' >&2\nexit 3\n";
  fs::permissions(folder / "dot", fs::perms::owner_all);
  std::string message;
  {
    const smelt::smelt_testing::ScopedEnv fake_dot("PATH", folder.string() + ":/usr/bin:/bin");
    message = message_of("digraph g {\n" + std::string(1 << 20, ' ') + "}\n");  // far more than a pipe holds
  }
  fs::remove_all(folder);
  EXPECT_EQ(message, "graphviz's dot failed (exit 3): Error: out of ink");
}

TEST(Picture, WithoutDotOnThePathSaysHowToGetIt) {
  const PathWithoutDot no_dot;
  EXPECT_FALSE(smelt::tools::graphviz_available());
  EXPECT_EQ(message_of("digraph g { a }"),
            "graphviz's `dot` is not installed (Debian: apt-get install graphviz); write --dot instead");
}

}  // namespace
