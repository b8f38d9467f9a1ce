#include "cli/extract_command.h"

#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "smelt/extraction.h"

namespace smelt::cli {

int extract_command(const ExtractOptions& options) {
  smelt::ExtractionReport report;
  try {
    report = smelt::extract_serialized(options.file, options.extractor, options.time_limit_s);
  } catch (const smelt::ExtractInputError& e) {
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

}  // namespace smelt::cli
