#pragma once
// An ONNX backend test directory: model.onnx plus test_data_set_*/input_*.pb and
// output_*.pb (the layout of the ONNX project's own backend tests).
#include <string>
#include <vector>

#include "ir/host_tensor.h"

namespace smelt::importer {

struct OnnxDataSet {
  std::string dir;
  std::vector<ir::HostTensor> inputs, outputs;  // by position: the model's real inputs, its outputs
};

struct OnnxTestCase {
  std::string dir, name, model_path;
  std::vector<OnnxDataSet> data_sets;  // in directory-name order
};

// Finds the model and the data sets of `dir` (an ImportError when there are none)
// and reads every tensor: UnsupportedError for a dtype smelt lacks.
OnnxTestCase load_test_case(const std::string& dir);

}  // namespace smelt::importer
