#include "cli/extract_command.h"

#include <iostream>
#include <nlohmann/json.hpp>

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

}  // namespace smelt::cli
