#pragma once
// Pictures of e-graphs and kernel programs: DOT text (egraph::export_dot,
// smelt::tools::kernel_program_dot) rendered to SVG by graphviz, for `smelt compile
// --svg` and `smelt saturate`.
#include <string>

namespace smelt::tools {

// Whether graphviz's `dot` can be run here (an executable `dot` on PATH).
bool graphviz_available();

// Renders DOT text to SVG with graphviz (`dot -Tsvg`, run as a child process with the text on stdin, no shell).
// Throws std::runtime_error with a clear one-line message when graphviz is missing
// ("graphviz's `dot` is not installed (Debian: apt-get install graphviz); write --dot instead") or dot fails (its stderr).
std::string render_svg(const std::string& dot);

}  // namespace smelt::tools
