#include "import/op_versions.h"

#include <unordered_map>

namespace smelt::importer {

int min_opset_for(const std::string& op_type) {
  // Later versions that only added dtypes or turned an attribute into an input
  // (which the converters read in both forms) keep the earlier entry.
  static const std::unordered_map<std::string, int> table = {
      // elementwise
      {"Abs", 6},
      {"Neg", 6},
      {"Exp", 6},
      {"Log", 6},
      {"Sqrt", 6},
      {"Reciprocal", 6},
      {"Relu", 6},
      {"Sigmoid", 6},
      {"Tanh", 6},
      {"Sin", 7},
      {"Cos", 7},
      {"Tan", 7},
      {"Sinh", 9},
      {"Cosh", 9},
      {"Erf", 9},
      {"Softplus", 1},
      {"Softsign", 1},
      {"Not", 1},
      {"IsNaN", 9},
      {"Sign", 9},
      {"Add", 7},
      {"Sub", 7},
      {"Mul", 7},
      {"Div", 7},
      {"Pow", 7},
      {"Equal", 7},
      {"Less", 7},
      {"Greater", 7},
      {"LessOrEqual", 12},
      {"GreaterOrEqual", 12},
      {"And", 7},
      {"Or", 7},
      {"Xor", 7},
      {"Max", 8},
      {"Min", 8},
      {"Sum", 8},
      {"Mean", 8},
      {"Where", 9},
      {"Cast", 6},
      {"CastLike", 15},
      {"LeakyRelu", 6},
      {"PRelu", 7},
      {"Elu", 6},
      {"Celu", 12},
      {"Selu", 6},
      {"HardSigmoid", 6},
      {"HardSwish", 14},
      {"ThresholdedRelu", 10},
      {"Gelu", 20},
      {"Clip", 11},
      // constants, shapes, views
      {"Identity", 1},
      {"Constant", 1},
      {"ConstantOfShape", 9},
      {"Shape", 1},
      {"Size", 1},
      {"Range", 11},
      {"Reshape", 5},
      {"Flatten", 1},
      {"Squeeze", 1},
      {"Unsqueeze", 1},
      {"Transpose", 1},
      {"Expand", 8},
      {"Slice", 10},
      {"Pad", 11},
      {"Concat", 4},
      {"Gather", 1},
      {"Split", 2},
      {"Tile", 6},
      {"Dropout", 12},
      // reductions (axes as an attribute before 13/18, as an input after)
      {"ReduceSum", 1},
      {"ReduceMax", 1},
      {"ReduceMin", 1},
      {"ReduceMean", 1},
      {"ReduceSumSquare", 1},
      {"ReduceL1", 1},
      {"ReduceL2", 1},
      {"ReduceLogSum", 1},
      {"ReduceLogSumExp", 1},
      // positions
      {"ArgMax", 13},
      {"ArgMin", 13},
      {"Hardmax", 13},
      {"Trilu", 14},
      {"EyeLike", 9},
      {"IsInf", 10},
      {"Shrink", 9},
      {"GatherElements", 11},
      {"GatherND", 11},
      {"Scatter", 9},
      {"ScatterElements", 11},
      {"ScatterND", 11},
      // losses
      {"NegativeLogLikelihoodLoss", 13},
      {"SoftmaxCrossEntropyLoss", 13},
      // contractions and normalizations
      {"BatchNormalization", 9},
      {"DepthToSpace", 11},
      {"SpaceToDepth", 1},
      {"MatMul", 1},
      {"Gemm", 7},
      {"Softmax", 13},
      {"LogSoftmax", 13},
      {"LayerNormalization", 17},
      // windows (convert_window.cpp): later versions only added attributes
      // (storage_order, ceil_mode, dilations, count_include_pad) whose defaults
      // are the earlier behaviour; MaxPool's Indices output is refused.
      {"Conv", 1},
      {"MaxPool", 1},
      {"AveragePool", 1},
      {"GlobalAveragePool", 1},
      {"GlobalMaxPool", 1},
      // ConvTranspose before 11 documents the other split of an odd total
      // padding (auto_pad SAME_*, output_shape): the converter refuses such a
      // split there; the rest is unchanged.
      {"ConvTranspose", 1},
      // Resize 10 had no roi, sizes or coordinate_transformation_mode; 11, 13,
      // 18 and 19 are read in one converter (convert_resize.cpp).
      {"Resize", 11},
  };
  auto it = table.find(op_type);
  return it == table.end() ? 13 : it->second;
}

}  // namespace smelt::importer
