// smelt::tools::extract_serialized: the public face of extract/ for serialized e-graphs.
#include <chrono>

#include "egraph/parse_error.h"
#include "extract/extractor.h"
#include "tools/extract_serialized.h"

namespace smelt::tools {

std::vector<std::string> extractor_names() { return extract::extractor_names(); }

ExtractionReport extract_serialized(const std::string& path, const std::string& extractor, double time_limit_s) {
  const std::unique_ptr<extract::Extractor> chosen = extract::make_extractor(extractor);
  if (!chosen) throw std::invalid_argument("unknown extractor \"" + extractor + "\"");
  try {
    const extract::Problem problem = extract::read_problem_file(path);
    const auto start = std::chrono::steady_clock::now();
    const extract::ExtractResult result = chosen->extract(problem, extract::ExtractOptions{time_limit_s});
    const auto stop = std::chrono::steady_clock::now();
    const std::vector<std::string> problems = extract::validate(problem, result.extraction);
    if (!problems.empty())  // an extractor bug, not bad input
      throw std::logic_error(extractor + " extracted an invalid term: " + problems.front());
    ExtractionReport report;
    report.file = path;
    report.extractor = extractor;
    report.tree = extract::tree_cost(problem, result.extraction);
    report.dag = extract::dag_cost(problem, result.extraction);
    report.micros = std::chrono::duration_cast<std::chrono::microseconds>(stop - start).count();
    report.lower_bound = result.lower_bound;
    report.optimal = result.optimal;
    report.note = result.note;
    return report;
  } catch (const egraph::ParseError& e) {
    throw ExtractInputError(e.what());
  } catch (const extract::ProblemError& e) {
    throw ExtractInputError(path + ": " + e.what());
  }
}

}  // namespace smelt::tools
