#include "import/onnx_test_case.h"

#include <algorithm>
#include <filesystem>

#include "import/import_error.h"
#include "import/tensor_proto.h"

namespace smelt::importer {
namespace fs = std::filesystem;
namespace {

// input_0.pb, input_1.pb, ... in numeric order, stopping at the first gap.
std::vector<ir::HostTensor> read_numbered(const fs::path& dir, const std::string& prefix) {
  std::vector<ir::HostTensor> tensors;
  for (int i = 0;; ++i) {
    const fs::path p = dir / (prefix + "_" + std::to_string(i) + ".pb");
    if (!fs::exists(p)) break;
    tensors.push_back(read_tensor_file(p.string()));
  }
  return tensors;
}

}  // namespace

OnnxTestCase load_test_case(const std::string& dir) {
  OnnxTestCase test;
  test.dir = dir;
  test.name = fs::path(dir).filename().string();
  if (test.name.empty()) test.name = fs::path(dir).parent_path().filename().string();
  if (!fs::is_directory(dir)) throw ImportError(dir + ": not a directory");
  const fs::path model = fs::path(dir) / "model.onnx";
  if (!fs::exists(model)) throw ImportError(dir + ": no model.onnx");
  test.model_path = model.string();
  std::vector<fs::path> set_dirs;
  for (const fs::directory_entry& e : fs::directory_iterator(dir))
    if (e.is_directory() && e.path().filename().string().rfind("test_data_set_", 0) == 0) set_dirs.push_back(e.path());
  std::sort(set_dirs.begin(), set_dirs.end());
  if (set_dirs.empty()) throw ImportError(dir + ": no test_data_set_* directories");
  for (const fs::path& set_dir : set_dirs) {
    OnnxDataSet data;
    data.dir = set_dir.string();
    data.inputs = read_numbered(set_dir, "input");
    data.outputs = read_numbered(set_dir, "output");
    if (data.outputs.empty()) throw ImportError(data.dir + ": no output_0.pb");
    test.data_sets.push_back(std::move(data));
  }
  return test;
}

}  // namespace smelt::importer
