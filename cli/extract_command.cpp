#include "cli/extract_command.h"

#include <memory>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/commands.h"
#include "tools/extract_serialized.h"

namespace smelt::cli {

int extract_command(const ExtractCommandOptions& options) {
  smelt::tools::ExtractionReport report;
  try {
    report = smelt::tools::extract_serialized(options.file, options.extractor, options.time_limit_s);
  } catch (const smelt::tools::ExtractInputError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kBadInput;
  }
  nlohmann::ordered_json line = {{"file", report.file},
                         {"extractor", report.extractor},
                         {"tree", report.tree},
                         {"dag", report.dag},
                         {"micros", report.micros},
                         {"lower_bound", nullptr}};
  if (report.lower_bound) line["lower_bound"] = *report.lower_bound;
  std::cout << line.dump() << "\n";
  if (!report.note.empty()) std::cerr << "note: " << report.note << "\n";
  return kOk;
}

Registered register_extract(CLI::App& app, [[maybe_unused]] SharedOptions& shared) {
  auto extract = std::make_shared<ExtractCommandOptions>();
  CLI::App* extract_cmd = app.add_subcommand(
      "extract", "Extract from a serialized e-graph (egraph-serialize JSON); print one JSON line of costs");
  extract_cmd->add_option("file", extract->file, "The e-graph (.json)")->required();
  extract_cmd->add_option("--extractor", extract->extractor, "Which extractor")
      ->required()
      ->check(CLI::IsMember(smelt::tools::extractor_names()));
  extract_cmd->add_option("--time-limit", extract->time_limit_s, "Seconds the searching extractors may take")
      ->check(CLI::PositiveNumber)
      ->default_val(60);

  return {extract_cmd, [extract] { return extract_command(*extract); }};
}

}  // namespace smelt::cli
