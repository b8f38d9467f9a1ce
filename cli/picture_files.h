#pragma once
// --dot OUT.dot / --svg OUT.svg: a picture written whole or not at all.
#include <string>

namespace smelt::cli {

struct PictureFiles {
  std::string dot;  // "" = none
  std::string svg;  // "" = none; rendered by graphviz (smelt/picture.h)
  bool any() const { return !dot.empty() || !svg.empty(); }
};

// Problems found before the work that makes the picture: graphviz missing for
// --svg, a folder that does not exist or is not writable. "" when none, else
// the one-line error (without "error: ").
std::string picture_files_problem(const PictureFiles& files);

// Writes the DOT text and/or its SVG rendering. Each file appears whole (a
// temporary beside it, renamed over it) or not at all, and an SVG that graphviz
// cannot render writes neither. Returns "" or the one-line error (without "error: ").
std::string write_picture_files(const PictureFiles& files, const std::string& dot);

}  // namespace smelt::cli
