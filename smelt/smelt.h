#pragma once
// smelt's public C++ API: build or load a graph (.sg, ONNX), make inputs, run
// it through the reference interpreter; compile and run it on a device
// (smelt/compile.h: smelt::compile, smelt::Program, whose runs may come from
// several threads at once and take turns) with its fusion report
// (smelt/fusion.h); errors are smelt::Error (error/error.h). The tools have
// headers of their own: smelt/extraction.h (serialized e-graphs),
// smelt/verify_rules.h (rule proofs), smelt/saturate.h, smelt/calibrate.h.
#include <cstdint>
#include <string>
#include <vector>

#include "error/error.h"
#include "ir/builder.h"
#include "ir/graph.h"
#include "ir/host_tensor.h"
#include "ir/tensor_compare.h"
#include "ir/text_format.h"
#include "smelt/compile.h"
#include "smelt/fusion.h"
#include "smelt/memory.h"
#include "smelt/onnx.h"
#include "smelt/options.h"

namespace smelt {

// The vocabulary of the API, from the IR: a graph built with the builder
// functions (ir/builder.h: input, matmul, slice_axis, ...; found by argument-
// dependent lookup, so `input(g, "x", DType::F32, {4})` needs no prefix), its
// tensors on the host, and the reference comparison every test uses.
using ir::DType;
using ir::Graph;
using ir::HostTensor;
using ir::compare_outputs;    // "" when every element is within its bound (ir/tensor_compare.h), else what differs
using ir::Reference;          // reference values with each element's error scale
using ir::Tolerance;
using ir::default_tolerance;  // the relative tolerance compiled outputs are checked with
using ir::parse_graph;        // .sg text -> Graph (docs/sg-format.md)
using ir::print_graph;        // Graph -> .sg text

// Loads a graph from a .sg file; a .onnx file is imported (smelt::import_onnx).
// Bad input throws a smelt::Error: kParse with FILE:LINE:COL for a .sg file,
// kImport / kUnsupported for a model.
ir::Graph load_graph(const std::string& path);

// One random tensor per graph input, reproducible from `seed`.
std::vector<ir::HostTensor> random_inputs(const ir::Graph& g, uint64_t seed);

// Evaluates the graph's outputs with the reference interpreter.
std::vector<ir::HostTensor> run_reference(const ir::Graph& g,
                                          const std::vector<ir::HostTensor>& inputs);

// The reference outputs with each element's error scale: what compare_outputs
// judges a compiled run by (about twice run_reference's time and memory).
ir::Reference reference(const ir::Graph& g, const std::vector<ir::HostTensor>& inputs);

}  // namespace smelt
