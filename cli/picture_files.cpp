#include "cli/picture_files.h"

#include <unistd.h>

#include <filesystem>
#include <stdexcept>

#include "error/output_file.h"
#include "tools/picture.h"

namespace smelt::cli {
namespace {

namespace fs = std::filesystem;

std::string folder_problem(const std::string& path) {
  const fs::path file = path;
  const fs::path folder = file.has_parent_path() ? file.parent_path() : fs::path(".");
  std::error_code error;
  if (!fs::is_directory(folder, error)) return "cannot write " + path + " (no folder " + folder.string() + ")";
  if (::access(folder.c_str(), W_OK) != 0)
    return "cannot write " + path + " (folder " + folder.string() + " is not writable)";
  if (fs::is_directory(file, error)) return "cannot write " + path + " (a folder)";
  return "";
}

}  // namespace

std::string picture_files_problem(const PictureFiles& files) {
  for (const std::string* path : {&files.dot, &files.svg})
    if (!path->empty())
      if (std::string problem = folder_problem(*path); !problem.empty()) return problem;
  if (!files.svg.empty() && !smelt::tools::graphviz_available())
    return "graphviz's `dot` is not installed (Debian: apt-get install graphviz); write --dot instead";
  return "";
}

std::string write_picture_files(const PictureFiles& files, const std::string& dot) {
  std::string svg;
  if (!files.svg.empty()) {
    try {
      svg = smelt::tools::render_svg(dot);  // before any file: a failure writes neither
    } catch (const std::runtime_error& e) {
      return e.what();
    }
  }
  if (!files.dot.empty())
    if (std::string problem = write_output_file(files.dot, dot); !problem.empty()) return problem;
  if (!files.svg.empty())
    if (std::string problem = write_output_file(files.svg, svg); !problem.empty()) return problem;
  return "";
}

}  // namespace smelt::cli
