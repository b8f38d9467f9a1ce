// Runs every extractor on every extraction-gym file and prints a table against
// the reference results (see docs/extract.md, "Benchmark").
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "egraph/json.h"
#include "extract/extractor.h"

namespace fs = std::filesystem;
using namespace smelt::extract;

namespace {

struct Reference {
  double tree = 0, dag = 0;
  long long micros = 0;
};
// file ("tensat/bert.json") -> reference extractor -> result
using References = std::map<std::string, std::map<std::string, Reference>>;

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

References read_references(const fs::path& dir) {
  References refs;
  if (!fs::exists(dir)) return refs;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".jsonl") continue;
    std::istringstream lines(read_text(entry.path()));
    std::string line;
    while (std::getline(lines, line)) {
      if (line.find('{') == std::string::npos) continue;
      const smelt::egraph::JsonValue row = smelt::egraph::parse_json(line, entry.path().string());
      std::string name = row.find("name")->string;
      if (name.rfind("data/", 0) == 0) name = name.substr(5);
      refs[name][row.find("extractor")->string] = {row.find("tree")->number, row.find("dag")->number,
                                                   static_cast<long long>(row.find("micros")->number)};
    }
  }
  return refs;
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) if (!item.empty()) out.push_back(item);
  return out;
}

bool less_than(double a, double b) { return a < b - 1e-9 * std::max(1.0, std::abs(b)); }

struct Run {
  double tree = 0, dag = 0;
  long long micros = 0;
  std::optional<double> lower_bound;
  bool optimal = false;
  std::string note;
};

}  // namespace

int main(int argc, char** argv) {
  fs::path data = SMELT_EXTRACTION_GYM_DIR;
  std::vector<std::string> extractors = extractor_names();
  std::string only;
  double time_limit = 60;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) { std::fprintf(stderr, "%s needs a value\n", arg.c_str()); std::exit(2); }
      return argv[++i];
    };
    if (arg == "--data") data = value();
    else if (arg == "--extractors") extractors = split(value());
    else if (arg == "--files") only = value();
    else if (arg == "--time-limit") time_limit = std::stod(value());
    else {
      std::fprintf(stderr,
                   "usage: extract_bench [--data DIR] [--extractors a,b] [--files SUBSTRING] [--time-limit S]\n");
      return 2;
    }
  }
  for (const std::string& name : extractors)
    if (!make_extractor(name)) { std::fprintf(stderr, "unknown extractor %s\n", name.c_str()); return 2; }
  const References refs = read_references(data / "reference-results");
  std::vector<std::string> files;
  for (const char* group : {"egg", "tensat"})
    if (fs::exists(data / group))
      for (const auto& entry : fs::directory_iterator(data / group))
        if (entry.path().extension() == ".json") files.push_back(std::string(group) + "/" + entry.path().filename().string());
  std::sort(files.begin(), files.end());
  if (!only.empty()) std::erase_if(files, [&](const std::string& f) { return f.find(only) == std::string::npos; });
  if (files.empty()) { std::fprintf(stderr, "no files under %s\n", data.c_str()); return 1; }

  std::printf("%-32s %10s", "file", "best-ref");
  for (const std::string& name : extractors) std::printf(" | %-12s %10s %9s", name.c_str(), "dag", "micros");
  std::printf(" | %10s %9s\n", "lower-bnd", "gap");
  std::map<std::string, long long> total_micros;
  long long ref_bottom_up_micros = 0;
  int worse = 0, strictly_better_tensat = 0, proven = 0, exact_runs = 0;
  std::vector<std::string> unproven;
  for (const std::string& file : files) {
    const Problem problem = read_problem_file((data / file).string());
    double best_ref = INFINITY;
    if (auto it = refs.find(file); it != refs.end()) {
      for (const auto& [name, ref] : it->second) best_ref = std::min(best_ref, ref.dag);
      if (auto bu = it->second.find("bottom-up"); bu != it->second.end()) ref_bottom_up_micros += bu->second.micros;
    }
    std::printf("%-32s %10.6g", file.c_str(), best_ref);
    std::optional<double> lower;
    double best_dag = INFINITY;
    for (const std::string& name : extractors) {
      const auto extractor = make_extractor(name);
      const auto start = std::chrono::steady_clock::now();
      const ExtractResult result = extractor->extract(problem, ExtractOptions{time_limit});
      const long long micros =
          std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count();
      const std::vector<std::string> problems = validate(problem, result.extraction);
      const double dag = problems.empty() ? dag_cost(problem, result.extraction) : INFINITY;
      total_micros[name] += micros;
      best_dag = std::min(best_dag, dag);
      std::printf(" | %-12s %10.6g %9lld", problems.empty() ? "" : "INVALID", dag, micros);
      if (result.lower_bound) {
        ++exact_runs;
        lower = std::max(lower.value_or(-INFINITY), *result.lower_bound);
        if (result.optimal) ++proven;
        else unproven.push_back(file + " (" + name + ")");
      }
    }
    if (lower) std::printf(" | %10.6g %9.3g\n", *lower, best_dag - *lower);
    else std::printf(" | %10s %9s\n", "-", "-");
    if (less_than(best_ref, best_dag)) ++worse;
    if (file.rfind("tensat/", 0) == 0 && less_than(best_dag, best_ref)) ++strictly_better_tensat;
    std::fflush(stdout);
  }
  std::printf("\ntotal extraction micros:");
  for (const auto& [name, micros] : total_micros) std::printf(" %s=%lld", name.c_str(), micros);
  std::printf("\nreference bottom-up total micros: %lld\n", ref_bottom_up_micros);
  std::printf("files where our best DAG cost > best reference: %d\n", worse);
  std::printf("tensat files strictly below best reference: %d\n", strictly_better_tensat);
  std::printf("exact runs proven optimal: %d of %d\n", proven, exact_runs);
  for (const std::string& u : unproven) std::printf("  not proven: %s\n", u.c_str());
  return worse == 0 ? 0 : 1;
}
