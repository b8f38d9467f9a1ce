#include "cli/verify_command.h"

#include <memory>
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/command.h"
#include "cli/commands.h"
#include "cli/format.h"
#include "tools/verify_rules.h"

namespace smelt::cli {
namespace {

std::string seconds_text(double s) { return formatted("%.2f s", s); }

std::string indented(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line)) out += prefix + line + "\n";
  return out;
}

void print_text(const std::vector<verify::RuleResult>& results) {
  size_t width = 0;
  for (const verify::RuleResult& r : results) width = std::max(width, r.name.size());
  for (const verify::RuleResult& r : results) {
    std::string line = r.name + std::string(width + 2 - r.name.size(), ' ');
    std::string verdict(verify::verdict_name(r.verdict));
    line += verdict + std::string(9 - verdict.size(), ' ');
    line += (r.mode.empty() ? std::string("-") : r.mode) + std::string(12 - std::max<size_t>(r.mode.size(), 1), ' ');
    line += seconds_text(r.seconds);
    std::string detail = r.enumerated.empty() ? r.structure : r.enumerated + "; " + r.structure;
    if (!detail.empty()) line += "  (" + detail + ")";
    std::cout << line << "\n";
    if (r.verdict != verify::Verdict::kProved) {
      std::cout << "    " << r.file << ":" << r.line << ": " << r.message << "\n";
      std::cout << indented(r.counterexample, "  ");
    }
  }
}

nlohmann::ordered_json result_json(const verify::RuleResult& r) {
  return {{"name", r.name},       {"file", r.file},
          {"line", r.line},       {"unsafe_fp", r.unsafe_fp},
          {"verdict", std::string(verify::verdict_name(r.verdict))},
          {"mode", r.mode},       {"enumerated", r.enumerated},
          {"structure", r.structure}, {"cases", r.cases},
          {"seconds", r.seconds}, {"message", r.message},
          {"counterexample", r.counterexample}};
}

}  // namespace

int verify_rules_command(const VerifyRulesOptions& options) {
  verify::ProverOptions prover;
  prover.query_timeout_ms = options.timeout_ms;
  std::vector<verify::RuleResult> results;
  try {
    // A progress line on a terminal only, so pipes and files get just the results.
    verify::ProgressFn progress;
    if (::isatty(STDERR_FILENO))
      progress = [](size_t done, size_t total) {
        std::cerr << "\rproving rules: " << done << "/" << total << (done == total ? "\r\033[K" : "") << std::flush;
      };
    results = smelt::tools::verify_rules(options.files, prover, options.jobs, progress);
  } catch (const Error& e) {
    if (::isatty(STDERR_FILENO)) std::cerr << "\r\033[K";  // clear the progress line
    return report_error(e);
  }
  size_t proved = 0, failed = 0, unknown = 0;
  double seconds = 0;
  for (const verify::RuleResult& r : results) {
    proved += r.verdict == verify::Verdict::kProved;
    failed += r.verdict == verify::Verdict::kFailed;
    unknown += r.verdict == verify::Verdict::kUnknown;
    seconds += r.seconds;
  }
  if (options.json) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const verify::RuleResult& r : results) list.push_back(result_json(r));
    nlohmann::ordered_json out = {{"rules", list}, {"proved", proved}, {"failed", failed}, {"unknown", unknown}};
    std::cout << out.dump() << "\n";
  } else {
    print_text(results);
    std::cout << results.size() << " rules: " << proved << " proved, " << failed << " FAILED, " << unknown
              << " UNKNOWN (" << seconds_text(seconds) << " of proving)\n";
  }
  return proved == results.size() ? kOk : kBadInput;
}

Registered register_verify_rules(CLI::App& app, [[maybe_unused]] SharedOptions& shared) {
  auto verify_rules = std::make_shared<VerifyRulesOptions>();
  CLI::App* verify_cmd = app.add_subcommand(
      "verify-rules", "Prove rewrite rules sound with Z3; one line per rule, a counterexample for each failure");
  verify_cmd->add_option("--rules", verify_rules->files, "Rule files (.rules); default: every shipped rule file")
      ->expected(1, -1);
  verify_cmd->add_flag("--json", verify_rules->json, "Print one JSON object instead of text");
  verify_cmd->add_option("--jobs", verify_rules->jobs, "Rules proved at a time (0: one per hardware thread)")
      ->default_val(0);
  verify_cmd->add_option("--timeout", verify_rules->timeout_ms, "Milliseconds per Z3 query (a timeout is UNKNOWN)")
      ->check(CLI::PositiveNumber)
      ->default_val(10000);

  return {verify_cmd, [verify_rules] { return verify_rules_command(*verify_rules); }};
}

}  // namespace smelt::cli
