// smelt._smelt: the nanobind extension behind the Python package (python/smelt).
// Graphs are built with the smelt::ir::Builder functions, compiled with smelt::compile
// and run with Program::run_into on numpy memory: inputs are read in place when
// they are C-contiguous, outputs are written straight into new numpy arrays.
// Every C++ error reaches Python as one exception class, smelt.Error
// (translate_exception below is the one place that maps them).
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/filesystem.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <chrono>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "tools/check_json.h"
#include "tools/fusion_json.h"
#include "tools/fusion_report.h"
#include "smelt/smelt.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace smelt::python {
namespace {

// --- Errors --------------------------------------------------------------------------------

// Sets smelt.Error (python/smelt/_error.py) as the pending Python exception.
void raise_error(const char* kind, const std::string& message, const std::string& file = {}, int line = 0,
                 int col = 0) {
  nb::object error_class = nb::module_::import_("smelt._error").attr("Error");
  nb::object error = file.empty() ? error_class(message, kind)
                                  : error_class(message, kind, file, line, col);
  PyErr_SetObject(error_class.ptr(), error.ptr());
}

// The one translation of smelt's C++ exceptions to smelt.Error: every layer's
// error is a smelt::Error (error/error.h) with its kind and, for errors at a
// place in a file, the file, line and column. Invalid arguments and other
// runtime errors (a bad profile file) keep their message; anything else
// (std::bad_alloc, logic errors: bugs) is left to nanobind.
void translate_exception(const std::exception_ptr& thrown, void*) {
  try {
    std::rethrow_exception(thrown);
  } catch (const Error& e) {
    const std::string kind(error_kind_name(e.kind()));
    const SourceLocation& at = e.location();
    if (at.line > 0) {
      raise_error(kind.c_str(), e.message(), at.file, at.line, at.col);
    } else {
      raise_error(kind.c_str(), e.what());  // a file without a position stays in the message
    }
  } catch (const std::invalid_argument& e) {
    raise_error("invalid_argument", e.what());
  } catch (const std::runtime_error& e) {
    raise_error("error", e.what());
  }
}

// An input that does not fit the program: checked before running, as the
// C++ Program checks its own (a smelt::Error of kind kInput).
Error input_error(const std::string& message) { return Error(ErrorKind::kInput, message); }

// --- dtypes --------------------------------------------------------------------------------

// The DLPack / numpy element type of each smelt dtype. bf16 has no numpy type:
// its tensors travel as uint16 arrays holding the bfloat16 bits.
nb::dlpack::dtype array_dtype(ir::DType t) {
  using Code = nb::dlpack::dtype_code;
  auto make = [](Code code, int bits) {
    return nb::dlpack::dtype{static_cast<uint8_t>(code), static_cast<uint8_t>(bits), 1};
  };
  switch (t) {
    case ir::DType::F32: return make(Code::Float, 32);
    case ir::DType::F16: return make(Code::Float, 16);
    case ir::DType::BF16: return make(Code::UInt, 16);
    case ir::DType::I32: return make(Code::Int, 32);
    case ir::DType::I64: return make(Code::Int, 64);
    case ir::DType::Bool: return make(Code::Bool, 8);
  }
  throw std::logic_error("unknown dtype");
}

std::string numpy_name(ir::DType t) {
  switch (t) {
    case ir::DType::F32: return "float32";
    case ir::DType::F16: return "float16";
    case ir::DType::BF16: return "uint16 holding bfloat16 bits";
    case ir::DType::I32: return "int32";
    case ir::DType::I64: return "int64";
    case ir::DType::Bool: return "bool";
  }
  return "?";
}

std::string describe(nb::dlpack::dtype d) {
  using Code = nb::dlpack::dtype_code;
  std::string name;
  switch (static_cast<Code>(d.code)) {
    case Code::Int: name = "int"; break;
    case Code::UInt: name = "uint"; break;
    case Code::Float: name = "float"; break;
    case Code::Bfloat: name = "bfloat"; break;
    case Code::Complex: name = "complex"; break;
    case Code::Bool: return "bool";
    default: name = "dtype" + std::to_string(d.code) + "_"; break;
  }
  return name + std::to_string(d.bits);
}

bool accepts(ir::DType t, nb::dlpack::dtype d) {
  if (d.lanes != 1) return false;
  if (d == array_dtype(t)) return true;
  // bf16 also from arrays that know the type (torch via DLPack, ml_dtypes).
  return t == ir::DType::BF16 && d.code == static_cast<uint8_t>(nb::dlpack::dtype_code::Bfloat) && d.bits == 16;
}

// "f32", "float32", numpy.float32, numpy.dtype("float32") → ir::DType.
ir::DType to_dtype(nb::handle spec) {
  std::string name;
  if (nb::isinstance<nb::str>(spec)) {
    name = nb::cast<std::string>(spec);
  } else {
    name = nb::cast<std::string>(nb::module_::import_("numpy").attr("dtype")(spec).attr("name"));
  }
  static const std::unordered_map<std::string, ir::DType> numpy_names = {
      {"float32", ir::DType::F32}, {"float16", ir::DType::F16}, {"bfloat16", ir::DType::BF16},
      {"int32", ir::DType::I32},   {"int64", ir::DType::I64},   {"bool", ir::DType::Bool}};
  if (auto it = numpy_names.find(name); it != numpy_names.end()) return it->second;
  if (std::optional<ir::DType> t = ir::parse_dtype(name)) return *t;
  throw std::invalid_argument("unknown dtype " + name + " (smelt has f32, f16, bf16, i32, i64, bool)");
}

// --- Arrays in and out ----------------------------------------------------------------------

std::string shape_text(const nb::ndarray<nb::ro>& a) {
  std::string s = "[";
  for (size_t i = 0; i < a.ndim(); ++i) s += (i ? "," : "") + std::to_string(a.shape(i));
  return s + "]";
}

bool c_contiguous(const nb::ndarray<nb::ro>& a) {
  int64_t expected = 1;
  for (size_t i = a.ndim(); i-- > 0;) {
    if (a.shape(i) == 0) return true;
    if (a.shape(i) != 1 && a.stride(i) != expected) return false;
    expected *= static_cast<int64_t>(a.shape(i));
  }
  return true;
}

// One input's bytes, read in place; `array` keeps the memory alive.
struct ArrayBytes {
  nb::ndarray<nb::ro> array;
  std::span<const uint8_t> bytes;
};

// Checks `value` against the type the graph expects for input `what` and
// returns its bytes without a copy when it is a C-contiguous array on the
// host. A non-array (a list, a scalar) goes through numpy.asarray, a strided
// array through numpy.ascontiguousarray (one copy); the dtype is never
// converted: a mismatch is an error naming the input, expected and got.
ArrayBytes checked_array(nb::handle value, const ir::TensorType& want, const std::string& what) {
  nb::ndarray<nb::ro> array;
  if (!nb::try_cast(value, array)) {
    nb::object converted = nb::module_::import_("numpy").attr("asarray")(value);
    if (!nb::try_cast(converted, array))
      throw input_error(what + ": expected an array of " + ir::type_str(want) + ", got " +
                        nb::cast<std::string>(nb::type_name(value.type())));
  }
  const std::string expected = ir::type_str(want) + " (numpy " + numpy_name(want.dtype) + ")";
  bool shape_ok = array.ndim() == want.shape.size();
  for (size_t i = 0; shape_ok && i < array.ndim(); ++i)
    shape_ok = static_cast<int64_t>(array.shape(i)) == want.shape[i];
  if (!accepts(want.dtype, array.dtype()) || !shape_ok)
    throw input_error(what + ": expected " + expected + ", got " + describe(array.dtype()) +
                      shape_text(array));
  if (array.device_type() != nb::device::cpu::value)
    throw input_error(what + ": the array is not in host memory (move it to the CPU first)");
  if (!c_contiguous(array)) {
    nb::object contiguous = nb::module_::import_("numpy").attr("ascontiguousarray")(value);
    array = nb::cast<nb::ndarray<nb::ro>>(contiguous);
  }
  const auto* data = static_cast<const uint8_t*>(array.data());
  return {array, {data, runtime::storage_bytes(want)}};
}

// Memory for one output, owned by the numpy array it becomes.
struct OutputArray {
  uint8_t* data = nullptr;
  nb::capsule owner;
};

OutputArray allocate_output(const ir::TensorType& type) {
  // 64-byte aligned, as the kernels' vector stores like it.
  const size_t bytes = (runtime::storage_bytes(type) + 63) / 64 * 64;
  void* data = std::aligned_alloc(64, bytes == 0 ? 64 : bytes);
  if (!data) throw std::bad_alloc();
  return {static_cast<uint8_t*>(data), nb::capsule(data, [](void* p) noexcept { std::free(p); })};
}

nb::object as_numpy(const OutputArray& out, const ir::TensorType& type) {
  std::vector<size_t> shape(type.shape.begin(), type.shape.end());
  return nb::ndarray<nb::numpy>(out.data, shape.size(), shape.data(), out.owner, nullptr, array_dtype(type.dtype))
      .cast();
}

nb::object to_numpy(const ir::HostTensor& t) {
  OutputArray out = allocate_output(t.type);
  runtime::write_tensor(t, {out.data, runtime::storage_bytes(t.type)});
  return as_numpy(out, t.type);
}

// --- Graphs ---------------------------------------------------------------------------------

// A graph and where it came from (a file for smelt.load; "" when built in Python).
struct GraphBox {
  ir::Graph graph;
  std::string source;
};

std::vector<ir::TensorType> input_types(const ir::Graph& g) {
  std::vector<ir::TensorType> types;
  for (ir::ValueId v : g.inputs()) types.push_back(g.type(v));
  return types;
}

std::vector<std::string> graph_input_names(const ir::Graph& g) {
  std::vector<std::string> names;
  for (ir::ValueId v : g.inputs()) names.push_back(g.node(v).name);
  return names;
}

// An output's name is its value's name; unnamed (or repeated) ones are "output<i>".
std::vector<std::string> graph_output_names(const ir::Graph& g) {
  std::vector<std::string> names;
  for (size_t i = 0; i < g.outputs().size(); ++i) {
    std::string name = g.node(g.outputs()[i]).name;
    if (name.empty() || std::find(names.begin(), names.end(), name) != names.end()) name = "output" + std::to_string(i);
    names.push_back(name);
  }
  return names;
}

// Inputs given positionally (a sequence) or by name (a mapping), in graph order.
std::vector<nb::handle> inputs_in_order(const ir::Graph& g, nb::handle inputs) {
  const std::vector<std::string> names = graph_input_names(g);
  std::vector<nb::handle> ordered;
  if (nb::isinstance<nb::dict>(inputs)) {
    nb::dict given = nb::borrow<nb::dict>(inputs);
    for (const std::string& name : names) {
      if (!given.contains(name.c_str())) throw input_error("missing input '" + name + "'");
      ordered.push_back(given[name.c_str()]);
    }
    if (given.size() != names.size())
      for (auto [key, value] : given)
        if (std::find(names.begin(), names.end(), nb::cast<std::string>(nb::str(key))) == names.end())
          throw input_error("the graph has no input named '" + nb::cast<std::string>(nb::str(key)) + "'");
    return ordered;
  }
  for (nb::handle value : inputs) ordered.push_back(value);
  if (ordered.size() != names.size()) {
    std::string list;
    for (size_t i = 0; i < names.size(); ++i) list += (i ? ", " : "") + names[i];
    throw input_error("the graph takes " + std::to_string(names.size()) + " inputs (" + list + "), got " +
                      std::to_string(ordered.size()));
  }
  return ordered;
}

std::string input_label(const std::vector<std::string>& names, size_t i) {
  return "input '" + names[i] + "' (" + std::to_string(i) + ")";
}

std::vector<ir::HostTensor> host_tensors(const ir::Graph& g, nb::handle inputs) {
  const std::vector<nb::handle> ordered = inputs_in_order(g, inputs);
  const std::vector<ir::TensorType> types = input_types(g);
  const std::vector<std::string> names = graph_input_names(g);
  std::vector<ir::HostTensor> tensors;
  for (size_t i = 0; i < ordered.size(); ++i) {
    ArrayBytes a = checked_array(ordered[i], types[i], input_label(names, i));
    tensors.push_back(runtime::from_bytes(types[i], a.bytes));
  }
  return tensors;
}

nb::ndarray<nb::ro> as_ndarray(nb::handle value) {
  return nb::cast<nb::ndarray<nb::ro>>(nb::module_::import_("numpy").attr("asarray")(value));
}

// An array's smelt dtype: the first that accepts its numpy dtype (uint16 is bf16's bits).
ir::DType array_smelt_dtype(nb::handle value, nb::handle dtype) {
  if (!dtype.is_none()) return to_dtype(dtype);
  nb::ndarray<nb::ro> array;
  if (!nb::try_cast(value, array)) array = as_ndarray(value);
  for (ir::DType t : ir::kAllDTypes)
    if (accepts(t, array.dtype())) return t;
  throw input_error("compare: no smelt dtype holds " + describe(array.dtype()));
}

ir::TensorType array_type(nb::handle value, ir::DType dtype) {
  nb::ndarray<nb::ro> array;
  if (!nb::try_cast(value, array)) array = as_ndarray(value);
  ir::TensorType type{dtype, {}};
  for (size_t i = 0; i < array.ndim(); ++i) type.shape.push_back(static_cast<int64_t>(array.shape(i)));
  return type;
}

nb::dict compare_arrays(nb::handle got, nb::handle want, nb::handle scale, nb::handle dtype, nb::handle rtol,
                        double atol) {
  const ir::TensorType type = array_type(want, array_smelt_dtype(want, dtype));
  const ir::HostTensor want_t = runtime::from_bytes(type, checked_array(want, type, "want").bytes);
  const ir::HostTensor got_t = runtime::from_bytes(type, checked_array(got, type, "got").bytes);
  std::optional<ir::HostTensor> scale_t;
  if (!scale.is_none()) {
    const ir::TensorType scale_type{ir::DType::F32, type.shape};
    scale_t = runtime::from_bytes(scale_type, checked_array(scale, scale_type, "scale").bytes);
  }
  ir::Tolerance tolerance;
  if (!rtol.is_none()) tolerance.rtol = nb::cast<double>(rtol);
  tolerance.atol = atol;
  const ir::OutputDifference d = ir::compare_output(want_t, got_t, scale_t ? &*scale_t : nullptr, tolerance);
  // The one writer of `smelt run --check --json`'s per-output check (tools/check_json.h), read by Python's json.
  nb::dict out = nb::cast<nb::dict>(
      nb::module_::import_("json").attr("loads")(smelt::tools::output_check_json(type.shape, d)));
  out["message"] = d.ok ? std::string() : ir::describe_difference(want_t, got_t, d);
  return out;
}

// Every operand of one op must come from the same graph: apply() adds the op to
// the first operand's graph and takes the others' ids as ids of that graph.
void check_same_graph(const std::vector<ir::Tensor>& operands) {
  for (const ir::Tensor& t : operands)
    if (t.graph != operands.front().graph) throw ir::ShapeError("operands belong to different graphs");
}

ir::Tensor scalar_like(const ir::Tensor& like, double value) {
  return ir::full(*like.graph, like.shape(), value, like.dtype());
}

// A tensor or a Python number (a `full` of the other operand's shape and dtype).
ir::Tensor operand_like(nb::handle value, const ir::Tensor& like) {
  ir::Tensor t;
  if (nb::try_cast(value, t)) return t;
  return scalar_like(like, nb::cast<double>(value));
}

// --- Programs -------------------------------------------------------------------------------

class PyProgram {
 public:
  PyProgram(smelt::Program program, ir::Graph graph, std::string source)
      : program_(std::move(program)),
        graph_(std::move(graph)),
        source_(std::move(source)),
        input_types_(input_types(graph_)),
        input_names_(graph_input_names(graph_)),
        output_names_(graph_output_names(graph_)) {
    for (ir::ValueId v : graph_.outputs()) output_types_.push_back(graph_.type(v));
  }

  // The inputs checked and read in place, new output arrays: what run_into takes.
  struct BoundArrays {
    std::vector<ArrayBytes> inputs;
    std::vector<std::span<const uint8_t>> input_spans;
    std::vector<OutputArray> outputs;
    std::vector<std::span<uint8_t>> output_spans;
  };
  BoundArrays bind(const std::vector<nb::handle>& ordered) const {
    BoundArrays b;
    b.inputs.reserve(ordered.size());
    for (size_t i = 0; i < ordered.size(); ++i) {
      b.inputs.push_back(checked_array(ordered[i], input_types_[i], input_label(input_names_, i)));
      b.input_spans.push_back(b.inputs.back().bytes);
    }
    for (const ir::TensorType& t : output_types_) {
      b.outputs.push_back(allocate_output(t));
      b.output_spans.emplace_back(b.outputs.back().data, runtime::storage_bytes(t));
    }
    return b;
  }

  // Runs on the arrays' own memory; outputs in graph order.
  std::vector<nb::object> run_arrays(const std::vector<nb::handle>& ordered) {
    BoundArrays b = bind(ordered);
    {
      nb::gil_scoped_release release;
      program_.run_into(b.input_spans, b.output_spans);
    }
    std::vector<nb::object> arrays;
    for (size_t i = 0; i < b.outputs.size(); ++i) arrays.push_back(as_numpy(b.outputs[i], output_types_[i]));
    return arrays;
  }

  std::vector<nb::handle> positional(nb::args args) const {
    std::vector<nb::handle> ordered(args.begin(), args.end());
    if (ordered.size() != input_types_.size()) {
      std::string list;
      for (size_t i = 0; i < input_names_.size(); ++i) list += (i ? ", " : "") + input_names_[i];
      throw input_error("the program takes " + std::to_string(input_types_.size()) + " inputs (" + list +
                        "), got " + std::to_string(ordered.size()));
    }
    return ordered;
  }

  nb::object call(nb::args args) {
    std::vector<nb::object> outs = run_arrays(positional(args));
    if (outs.size() == 1) return outs.front();
    nb::list list;
    for (nb::object& o : outs) list.append(o);
    return nb::tuple(list);
  }

  nb::dict run(nb::handle inputs) {
    std::vector<nb::object> outs = run_arrays(inputs_in_order(graph_, inputs));
    nb::dict named;
    for (size_t i = 0; i < outs.size(); ++i) named[output_names_[i].c_str()] = outs[i];
    return named;
  }

  std::vector<double> benchmark(int reps, int warmup, nb::handle inputs) {
    if (reps < 1) throw std::invalid_argument("benchmark: reps must be at least 1");
    std::vector<ir::HostTensor> tensors =
        inputs.is_none() ? smelt::random_inputs(graph_, 0) : host_tensors(graph_, inputs);
    nb::gil_scoped_release release;
    return program_.benchmark(tensors, reps, warmup);
  }

  // The C++ side of python/bench/call_overhead.py: seconds of each of `reps`
  // calls of Program::run_into on the same arrays, timed in C++ alone.
  std::vector<double> run_into_seconds(nb::handle given, int reps) {
    BoundArrays b = bind(inputs_in_order(graph_, given));
    std::vector<double> seconds;
    nb::gil_scoped_release release;
    for (int r = 0; r < reps; ++r) {
      const auto start = std::chrono::steady_clock::now();
      program_.run_into(b.input_spans, b.output_spans);
      seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    return seconds;
  }

  nb::object emit(const std::string& kind_name, std::optional<std::string> target_name, const std::string& arch) {
    const std::optional<smelt::EmitKind> kind = smelt::parse_emit_kind(kind_name);
    if (!kind) throw std::invalid_argument("unknown emit kind " + kind_name + " (kernels, llvm, asm, ptx, hsaco)");
    lower::Target target = program_.target();
    if (target_name) {
      const std::optional<lower::Target> parsed = smelt::parse_target(*target_name);
      if (!parsed) throw std::invalid_argument("unknown target " + *target_name + " (host, cuda, hip)");
      target = *parsed;
    } else if (*kind == smelt::EmitKind::kPtx) {
      target = lower::Target::kCuda;  // the kind names its target
    } else if (*kind == smelt::EmitKind::kHsaco) {
      target = lower::Target::kHip;
    }
    std::vector<uint8_t> artifact;
    {
      nb::gil_scoped_release release;
      artifact = smelt::emit(program_.kernels(), {target, arch}, *kind);
    }
    if (*kind == smelt::EmitKind::kHsaco)
      return nb::bytes(reinterpret_cast<const char*>(artifact.data()), artifact.size());
    return nb::str(reinterpret_cast<const char*>(artifact.data()), artifact.size());
  }

  nb::dict fusion_summary() const {
    // The one JSON writer of `smelt compile --json` (tools/fusion_json.h), read by Python's json.
    const std::string text = smelt::tools::fusion_json(program_.fusion(), {source_, graph_.name(), 0});
    return nb::cast<nb::dict>(nb::module_::import_("json").attr("loads")(text));
  }

  std::vector<std::string> kernel_names() const {
    std::vector<std::string> names;
    for (const kernel::Kernel& k : program_.kernels().kernels) names.push_back(k.name);
    return names;
  }

  std::string report() const {
    return smelt::tools::fusion_report(program_.fusion(), source_.empty() ? "<python>" : source_);
  }
  std::string repr() const {
    return "<smelt.Program " + (graph_.name().empty() ? std::string("(unnamed)") : graph_.name()) + ": " +
           std::to_string(program_.kernels().kernels.size()) + " kernel(s) on " + program_.device() + ">";
  }

  const ir::Graph& graph() const { return graph_; }
  const std::vector<std::string>& input_names() const { return input_names_; }
  const std::vector<std::string>& output_names() const { return output_names_; }
  smelt::Program& program() { return program_; }

 private:
  smelt::Program program_;
  ir::Graph graph_;
  std::string source_;
  std::vector<ir::TensorType> input_types_, output_types_;
  std::vector<std::string> input_names_, output_names_;
};

PyProgram compile_graph(const GraphBox& box, const std::string& target_name, unsigned threads,
                        std::optional<std::filesystem::path> profile, bool fusion, bool rewrites, bool exact,
                        const std::string& arch, size_t measure, const std::optional<smelt::Limits>& limits,
                        bool unsafe_fp) {
  const std::optional<lower::Target> target = smelt::parse_target(target_name);
  if (!target) throw std::invalid_argument("unknown target " + target_name + " (host, cuda, hip)");
  if (box.graph.outputs().empty()) throw ir::ShapeError("the graph has no outputs (Graph.output adds them)");
  CompileOptions options;
  options.target = *target;
  options.arch = arch;
  options.limits = limits.value_or(Limits{});
  options.fusion = fusion;
  options.rewrites = rewrites;
  options.exact = exact;
  options.unsafe_fp = unsafe_fp;
  options.threads = threads;
  options.measure = measure;
  // A copy: another Python thread may go on building the graph while this one compiles without the GIL.
  ir::Graph graph = box.graph;
  nb::gil_scoped_release release;
  if (profile) options.profile = smelt::load_device_profile(profile->string(), target_name);
  smelt::Program program = smelt::compile(graph, options);
  return PyProgram(std::move(program), std::move(graph), box.source);
}

// Tensors of the graph `self`, each keeping the graph alive (a list cannot be
// keep_alive's nurse: it takes no weak references).
nb::list tensor_list(nb::handle self, const std::vector<ir::ValueId>& values) {
  ir::Graph& graph = nb::cast<GraphBox&>(self).graph;
  nb::list list;
  for (ir::ValueId v : values) {
    nb::object tensor = nb::cast(ir::Tensor{&graph, v});
    nb::keep_alive_obj(tensor, self);
    list.append(tensor);
  }
  return list;
}

std::string type_of(const ir::Tensor& t) { return ir::type_str(t.type()); }

nb::tuple shape_tuple(const ir::Shape& shape) {
  nb::list l;
  for (int64_t d : shape) l.append(d);
  return nb::tuple(l);
}

}  // namespace

// The module's classes and functions (NB_MODULE below only calls this).
void define_module(nb::module_& m) {
  m.doc() = "smelt's C++ core (nanobind); use the package `smelt`, which re-exports it.";
  nb::register_exception_translator(translate_exception);

  nb::class_<ir::Tensor>(m, "Tensor",
                         "One value of a Graph: an input, a constant or an op's result. Python operators "
                         "+ - * / (with tensors or numbers: a number becomes a `full` of the tensor's shape "
                         "and dtype), unary -, and @ (matmul) add ops to the tensor's graph.")
      .def_prop_ro("shape", [](const ir::Tensor& t) { return shape_tuple(t.shape()); }, "The shape, a tuple of ints.")
      .def_prop_ro("dtype", [](const ir::Tensor& t) { return std::string(ir::dtype_name(t.dtype())); },
                   "The element type: 'f32', 'f16', 'bf16', 'i32', 'i64' or 'bool'.")
      .def_prop_ro("name", [](const ir::Tensor& t) { return t.graph->node(t.id).name; },
                   "The value's name in the graph ('' where it has none).")
      .def_prop_ro("op", [](const ir::Tensor& t) { return std::string(ir::op_name(t.graph->node(t.id).op)); },
                   "The op that makes the value ('input', 'add', ...).")
      .def("__repr__",
           [](const ir::Tensor& t) {
             const std::string& name = t.graph->node(t.id).name;
             return "<smelt.Tensor " + (name.empty() ? "%" + std::to_string(t.id) : name) + " = " +
                    std::string(ir::op_name(t.graph->node(t.id).op)) + " : " + type_of(t) + ">";
           })
      .def("__add__", [](const ir::Tensor& a, nb::handle b) { return ir::add(a, operand_like(b, a)); },
           nb::keep_alive<0, 1>(), nb::is_operator())
      .def("__radd__", [](const ir::Tensor& a, nb::handle b) { return ir::add(operand_like(b, a), a); },
           nb::keep_alive<0, 1>(), nb::is_operator())
      .def("__sub__", [](const ir::Tensor& a, nb::handle b) { return ir::sub(a, operand_like(b, a)); },
           nb::keep_alive<0, 1>(), nb::is_operator())
      .def("__rsub__", [](const ir::Tensor& a, nb::handle b) { return ir::sub(operand_like(b, a), a); },
           nb::keep_alive<0, 1>(), nb::is_operator())
      .def("__mul__", [](const ir::Tensor& a, nb::handle b) { return ir::mul(a, operand_like(b, a)); },
           nb::keep_alive<0, 1>(), nb::is_operator())
      .def("__rmul__", [](const ir::Tensor& a, nb::handle b) { return ir::mul(operand_like(b, a), a); },
           nb::keep_alive<0, 1>(), nb::is_operator())
      .def("__truediv__", [](const ir::Tensor& a, nb::handle b) { return ir::div(a, operand_like(b, a)); },
           nb::keep_alive<0, 1>(), nb::is_operator())
      .def("__rtruediv__", [](const ir::Tensor& a, nb::handle b) { return ir::div(operand_like(b, a), a); },
           nb::keep_alive<0, 1>(), nb::is_operator())
      .def("__neg__", [](const ir::Tensor& a) { return ir::neg(a); }, nb::keep_alive<0, 1>())
      .def("__matmul__",
           [](const ir::Tensor& a, const ir::Tensor& b) {
             check_same_graph({a, b});
             return ir::matmul(a, b);
           },
           nb::keep_alive<0, 1>(), nb::is_operator());

  nb::class_<GraphBox>(m, "Graph",
                       "A tensor graph, built op by op as with C++'s ir::Builder (every op is shape-checked "
                       "as it is added; a mismatch raises smelt.Error of kind 'shape'), or loaded with "
                       "smelt.load / smelt.parse. str(graph) is its .sg text.")
      .def("__init__", [](GraphBox* self, std::string name) { new (self) GraphBox{ir::Graph(std::move(name)), {}}; },
           "name"_a = "", "A new, empty graph.")
      .def_prop_rw("name", [](const GraphBox& b) { return b.graph.name(); },
                   [](GraphBox& b, std::string name) { b.graph.set_name(std::move(name)); })
      .def_prop_ro("source", [](const GraphBox& b) { return b.source; },
                   "The file the graph was loaded from ('' for a graph built or parsed in Python).")
      .def("input",
           [](GraphBox& b, std::string name, nb::handle dtype, ir::Shape shape) {
             return ir::input(b.graph, std::move(name), to_dtype(dtype), std::move(shape));
           },
           "name"_a, "dtype"_a, "shape"_a, nb::keep_alive<0, 1>(),
           "Adds a graph input. dtype: 'f32', 'f16', 'bf16', 'i32', 'i64', 'bool' or a numpy dtype.")
      .def("constant",
           [](GraphBox& b, nb::handle values, nb::handle dtype, std::optional<ir::Shape> shape) {
             const ir::DType t = to_dtype(dtype);
             if (!shape && (nb::isinstance<nb::float_>(values) || nb::isinstance<nb::int_>(values) ||
                            nb::isinstance<nb::bool_>(values)))
               return ir::constant(b.graph, nb::cast<double>(values), t);
             nb::object array = nb::module_::import_("numpy").attr("asarray")(values, "dtype"_a = "float64");
             ir::Shape s = shape ? *shape : nb::cast<ir::Shape>(array.attr("shape"));
             std::vector<double> flat = nb::cast<std::vector<double>>(array.attr("ravel")().attr("tolist")());
             return ir::constant(b.graph, std::move(flat), t, std::move(s));
           },
           "values"_a, "dtype"_a = "f32", "shape"_a = nb::none(), nb::keep_alive<0, 1>(),
           "A literal: a number (a scalar, rank 0) or a nested sequence / numpy array (row-major; "
           "`shape` defaults to the array's).")
      .def("full",
           [](GraphBox& b, ir::Shape shape, double value, nb::handle dtype) {
             return ir::full(b.graph, std::move(shape), value, to_dtype(dtype));
           },
           "shape"_a, "value"_a, "dtype"_a = "f32", nb::keep_alive<0, 1>(), "A tensor of one value.")
      .def("iota",
           [](GraphBox& b, ir::Shape shape, int64_t axis, nb::handle dtype) {
             return ir::iota(b.graph, std::move(shape), axis, to_dtype(dtype));
           },
           "shape"_a, "axis"_a, "dtype"_a = "i32", nb::keep_alive<0, 1>(),
           "A tensor whose elements are their index along `axis`.")
      .def("output",
           [](GraphBox& b, nb::args tensors) {
             for (nb::handle h : tensors) {
               const ir::Tensor t = nb::cast<ir::Tensor>(h);
               if (t.graph != &b.graph) throw ir::ShapeError("output: the tensor belongs to another graph");
               b.graph.add_output(t);
             }
           },
           "Marks tensors as graph outputs, in order.")
      .def_prop_ro(
          "inputs", [](nb::handle self) { return tensor_list(self, nb::cast<GraphBox&>(self).graph.inputs()); },
          "The input tensors, in order.")
      .def_prop_ro(
          "outputs", [](nb::handle self) { return tensor_list(self, nb::cast<GraphBox&>(self).graph.outputs()); },
                   "The output tensors, in order.")
      .def_prop_ro("input_names", [](const GraphBox& b) { return graph_input_names(b.graph); })
      .def_prop_ro("output_names", [](const GraphBox& b) { return graph_output_names(b.graph); },
                   "Output names: the value's name, or 'output<i>' where it has none.")
      .def("__len__", [](const GraphBox& b) { return b.graph.size(); }, "The number of values (ops) in the graph.")
      .def("__str__", [](const GraphBox& b) { return ir::print_graph(b.graph); })
      .def("__repr__", [](const GraphBox& b) {
        return "<smelt.Graph " + (b.graph.name().empty() ? std::string("(unnamed)") : b.graph.name()) + ": " +
               std::to_string(b.graph.inputs().size()) + " inputs, " + std::to_string(b.graph.size()) + " values, " +
               std::to_string(b.graph.outputs().size()) + " outputs>";
      });

  // --- Ops: the ir::Builder functions, one Python function each.
  using Unary = ir::Tensor (*)(ir::Tensor);
  const std::pair<const char*, Unary> unary_ops[] = {
      {"neg", ir::neg},     {"exp", ir::exp},         {"exp2", ir::exp2},       {"log", ir::log},
      {"log2", ir::log2},   {"sin", ir::sin},         {"cos", ir::cos},         {"tanh", ir::tanh},
      {"sqrt", ir::sqrt},   {"rsqrt", ir::rsqrt},     {"recip", ir::recip},     {"abs", ir::abs},
      {"relu", ir::relu},   {"sigmoid", ir::sigmoid}, {"gelu", ir::gelu},       {"erf", ir::erf}};
  for (const auto& [name, fn] : unary_ops)
    m.def(name, fn, "x"_a, nb::keep_alive<0, 1>(),
          (std::string("Elementwise ") + name + " (docs/ops.md); adds the op to x's graph.").c_str());
  using Binary = ir::Tensor (*)(ir::Tensor, ir::Tensor);
  const std::pair<const char*, Binary> binary_ops[] = {
      {"add", ir::add}, {"sub", ir::sub}, {"mul", ir::mul}, {"div", ir::div}, {"max", ir::max},
      {"min", ir::min}, {"pow", ir::pow}, {"lt", ir::lt},   {"le", ir::le},   {"eq", ir::eq}};
  for (const auto& [name, fn] : binary_ops)
    m.def(name,
          [fn](const ir::Tensor& a, nb::handle b) { return fn(a, operand_like(b, a)); }, "a"_a, "b"_a,
          nb::keep_alive<0, 1>(),
          (std::string("Elementwise ") + name +
           " of two tensors of one shape (docs/ops.md); b may be a number (a `full` like a).")
              .c_str());
  m.def("where",
        [](const ir::Tensor& c, const ir::Tensor& a, const ir::Tensor& b) {
          check_same_graph({c, a, b});
          return ir::where(c, a, b);
        },
        "cond"_a, "a"_a, "b"_a, nb::keep_alive<0, 1>(), "Elementwise cond ? a : b (cond is bool).");
  m.def("cast", [](const ir::Tensor& x, nb::handle dtype) { return ir::cast(x, to_dtype(dtype)); }, "x"_a, "dtype"_a,
        nb::keep_alive<0, 1>(), "Converts x's elements to `dtype`.");
  m.def("reshape", &ir::reshape, "x"_a, "shape"_a, nb::keep_alive<0, 1>(),
        "Same elements, row-major, in a new shape (one -1 is inferred).");
  m.def("permute", &ir::permute, "x"_a, "perm"_a, nb::keep_alive<0, 1>(),
        "Axes reordered: result axis i is x's perm[i].");
  m.def("slice_axis", &ir::slice_axis, "x"_a, "axis"_a, "start"_a, "stop"_a, "step"_a = 1, nb::keep_alive<0, 1>(),
        "x[start:stop:step] along one axis; the other axes whole.");
  m.def("slice", &ir::slice, "x"_a, "start"_a, "stop"_a, "step"_a, nb::keep_alive<0, 1>(),
        "x[start:stop:step] with one entry per axis.");
  m.def("pad", &ir::pad, "x"_a, "lo"_a, "hi"_a, "value"_a = 0.0, nb::keep_alive<0, 1>(),
        "x padded with `value`: lo / hi elements before / after on each axis.");
  m.def("broadcast", &ir::broadcast, "x"_a, "shape"_a, nb::keep_alive<0, 1>(),
        "x repeated along size-1 or new leading axes to `shape` (numpy rules).");
  m.def("concat",
        [](const std::vector<ir::Tensor>& xs, int64_t axis) {
          if (xs.empty()) throw ir::ShapeError("concat needs at least one tensor");
          check_same_graph(xs);
          return ir::concat(xs, axis);
        },
        "xs"_a, "axis"_a, "Tensors joined along `axis`.");
  m.def("reduce_sum", &ir::reduce_sum, "x"_a, "axes"_a, "keepdims"_a = false, nb::keep_alive<0, 1>(),
        "Sum over `axes`.");
  m.def("reduce_max", &ir::reduce_max, "x"_a, "axes"_a, "keepdims"_a = false, nb::keep_alive<0, 1>(),
        "Maximum over `axes`.");
  m.def("matmul",
        [](const ir::Tensor& a, const ir::Tensor& b) {
          check_same_graph({a, b});
          return ir::matmul(a, b);
        },
        "a"_a, "b"_a, nb::keep_alive<0, 1>(),
        "Matrix product over the last two axes; leading (batch) axes broadcast numpy-style.");
  m.def("conv",
        [](const ir::Tensor& x, const ir::Tensor& w, std::vector<int64_t> strides, std::vector<int64_t> dilations,
           std::vector<int64_t> lo, std::vector<int64_t> hi, int64_t groups) {
          check_same_graph({x, w});
          return ir::conv(x, w, ir::ConvParams{std::move(strides), std::move(dilations), std::move(lo), std::move(hi),
                                               groups});
        },
        "x"_a, "w"_a, "strides"_a = std::vector<int64_t>{}, "dilations"_a = std::vector<int64_t>{},
        "lo"_a = std::vector<int64_t>{}, "hi"_a = std::vector<int64_t>{}, "groups"_a = 1, nb::keep_alive<0, 1>(),
        "Convolution of x [N, C, spatial...] (1 to 3 spatial axes) with w [M, C / groups, kernel...]: one stride, "
        "dilation and zero padding before (lo) / after (hi) per spatial axis (empty: 1, 1, 0, 0).");

  // --- Loading, reference, compiling.
  m.def("load",
        [](const std::filesystem::path& path) {
          ir::Graph g;
          {
            nb::gil_scoped_release release;
            g = smelt::load_graph(path.string());
          }
          return GraphBox{std::move(g), path.string()};
        },
        "path"_a,
        "Loads a graph from a .sg file or an ONNX model (.onnx). Raises smelt.Error: kind 'parse' with "
        ".file/.line/.col for a bad .sg file; 'import' or 'unsupported' for an ONNX model smelt cannot read.");
  m.def("parse",
        [](const std::string& text, const std::string& filename) {
          return GraphBox{ir::parse_graph(text, filename), {}};
        },
        "text"_a, "filename"_a = "<string>", "Parses .sg text (errors name `filename`:line:col).");
  m.def("random_inputs",
        [](const GraphBox& b, uint64_t seed) {
          std::vector<nb::object> arrays;
          for (const ir::HostTensor& t : smelt::random_inputs(b.graph, seed)) arrays.push_back(to_numpy(t));
          return arrays;
        },
        "graph"_a, "seed"_a = 0,
        "One random array per graph input (floats in [-1, 1), integers in [-8, 8]), reproducible from `seed`.");
  m.def("reference",
        [](const GraphBox& b, nb::handle inputs) {
          std::vector<ir::HostTensor> tensors = host_tensors(b.graph, inputs);
          std::vector<ir::HostTensor> outs;
          {
            nb::gil_scoped_release release;
            outs = smelt::run_reference(b.graph, tensors);
          }
          std::vector<nb::object> arrays;
          for (const ir::HostTensor& t : outs) arrays.push_back(to_numpy(t));
          return arrays;
        },
        "graph"_a, "inputs"_a,
        "Runs the graph with smelt's reference interpreter (the oracle every compiled path is checked "
        "against). inputs: a sequence in graph order or a dict by input name. Returns the outputs, a list "
        "of numpy arrays in graph order.");
  m.def("reference_with_error_scales",
        [](const GraphBox& b, nb::handle inputs) {
          std::vector<ir::HostTensor> tensors = host_tensors(b.graph, inputs);
          ir::Reference ref;
          {
            nb::gil_scoped_release release;
            ref = smelt::reference(b.graph, tensors);
          }
          std::vector<nb::object> values, scales;
          for (const ir::HostTensor& t : ref.values) values.push_back(to_numpy(t));
          for (const ir::HostTensor& t : ref.error_scales) scales.push_back(to_numpy(t));
          return nb::make_tuple(values, scales);
        },
        "graph"_a, "inputs"_a,
        "The reference outputs and each element's error scale (float32 arrays of the outputs' shapes): how far "
        "an honest compiled run may be from it, in units of the dtype's relative tolerance (docs/testing.md). "
        "Returns (outputs, scales); pass an output's scale to smelt.compare.");
  m.def("compare",
        [](nb::handle got, nb::handle want, nb::handle scale, nb::handle dtype, nb::handle rtol, double atol) {
          return compare_arrays(got, want, scale, dtype, rtol, atol);
        },
        "got"_a, "want"_a, "scale"_a = nb::none(), "dtype"_a = nb::none(), "rtol"_a = nb::none(), "atol"_a = 0.0,
        "smelt's one comparison rule (ir/tensor_compare.h), element by element: |want - got| <= atol + rtol * "
        "max(|want|, scale), rtol the dtype's (smelt.default_tolerance) unless given; non-finite elements must "
        "match exactly; an infinite scale leaves the element unchecked. `scale`: the output's error scale from "
        "smelt.reference_with_error_scales (None: each element's own |want|). `dtype`: needed for bf16 (its "
        "arrays are uint16 bits). Returns a dict: ok, max_abs_error, rtol, atol, worst_element "
        "(its index, or None), worst_error, worst_bound, worst_scale, failed_elements, unchecked_elements (as "
        "`smelt run --check --json` writes them), and message.");
  m.def("default_tolerance", [](nb::handle dtype) { return ir::default_tolerance(to_dtype(dtype)); }, "dtype"_a,
        "The relative tolerance smelt checks compiled outputs with, per element (smelt.compare): 1e-4 for f32, "
        "1e-2 for f16, 2e-2 for bf16, 0 for integers and bool.");

  nb::class_<smelt::Limits>(m, "Limits", "How long the optimizer may search (defaults: smelt's).")
      .def(nb::init<>())
      .def_rw("iterations", &smelt::Limits::iterations, "Saturation iterations.")
      .def_rw("nodes", &smelt::Limits::nodes, "E-nodes in the e-graph.")
      .def_rw("saturation_s", &smelt::Limits::saturation_s, "Seconds of saturation.")
      .def_rw("extraction_evaluations", &smelt::Limits::extraction_evaluations,
              "Programs the extraction may cost, all parts together (its work budget; 0: no limit).")
      .def_rw("extraction_s", &smelt::Limits::extraction_s,
              "Seconds the extraction may search: a safety net behind extraction_evaluations.")
      .def_rw("index_proofs_s", &smelt::Limits::index_proofs_s, "Seconds of Z3 proofs of simplified index maps.");

  nb::class_<PyProgram>(m, "Program",
                        "A compiled graph loaded on its device. Call it with arrays in graph input order "
                        "(prog(a, b)) or run it with a dict (prog.run({'a': a, 'b': b})). Inputs must have the "
                        "graph's dtypes and shapes exactly (checked before running; smelt.Error of kind 'input' "
                        "otherwise) and are read in place when C-contiguous. Runs of one program take turns; "
                        "the GIL is released while it runs.")
      .def("__call__", &PyProgram::call,
           "Runs the program on positional arrays; returns the output array, or a tuple of them where the "
           "graph has several outputs.")
      .def("run", &PyProgram::run, "inputs"_a,
           "Runs the program on a dict of arrays by input name (or a sequence in graph order); returns a "
           "dict of output arrays by output name.")
      .def("benchmark", &PyProgram::benchmark, "reps"_a = 10, "warmup"_a = 1, "inputs"_a = nb::none(),
           "Seconds of each of `reps` runs of the kernels after `warmup` untimed runs (inputs copied in once, "
           "not timed). inputs: as run() takes them; None: random inputs (seed 0).")
      .def("_run_into_seconds", &PyProgram::run_into_seconds, "inputs"_a, "reps"_a,
           "For python/bench: seconds of each of `reps` calls of C++ Program::run_into on these arrays, "
           "timed in C++.")
      .def("emit", &PyProgram::emit, "kind"_a = "kernels", "target"_a = nb::none(), "arch"_a = "",
           "The program's code, as `smelt compile --emit` writes it: 'kernels' (readable kernel program), "
           "'llvm' (optimized LLVM IR), 'asm', 'ptx' (for target cuda), 'hsaco' (AMDGPU code object, bytes; "
           "for target hip). target: 'host', 'cuda' or 'hip'; None: the program's own, or the one the kind "
           "is for.")
      .def("report", &PyProgram::report,
           "What `smelt compile --report` prints: the saturation, the extraction, the rules that fired, "
           "kernels and predicted times before and after fusion, the index-map proofs and the kernels.")
      .def_prop_ro("kernels", &PyProgram::kernel_names, "The names of the kernels that run, in order.")
      .def_prop_ro("fusion", &PyProgram::fusion_summary,
                   "The optimizer's facts as `smelt compile --json` gives them (kernels and predicted "
                   "microseconds before / after, rules fired, e-graph size, stop reason, seconds).")
      .def_prop_ro("predicted_us", [](PyProgram& p) { return p.program().fusion().predicted_us_after; },
                   "The cost model's time for one run, in microseconds.")
      .def_prop_ro("device", [](PyProgram& p) { return p.program().device(); }, "The device it runs on, in words.")
      .def_prop_ro("target",
                   [](PyProgram& p) { return target_name(p.program().target()); },
                   "'host', 'cuda' or 'hip'.")
      .def_prop_ro("input_names", &PyProgram::input_names)
      .def_prop_ro("output_names", &PyProgram::output_names)
      .def_prop_ro("graph", [](const PyProgram& p) { return GraphBox{p.graph(), {}}; },
                   "A copy of the graph the program computes.")
      .def("__repr__", &PyProgram::repr);

  m.def("compile", &compile_graph, "graph"_a, "target"_a = "host", "threads"_a = 0, "profile"_a = nb::none(),
        "fusion"_a = true, "rewrites"_a = true, "exact"_a = false, "arch"_a = "", "measure"_a = 0,
        "limits"_a = nb::none(), "unsafe_fp"_a = false,
        "Fuses `graph` (equality saturation with smelt's proved rules, then the kernels the cost model "
        "predicts fastest), lowers it with LLVM for `target` ('host', 'cuda', 'hip') and loads it.\n\n"
        "threads: host threads the program runs on, the caller's included (0: every core).\n"
        "profile: a device profile JSON (`smelt calibrate`) to cost kernels with; None: the built-in one "
        "for the target (the host's; a GPU's measured on it, by its name, or the nearest shipped).\n"
        "fusion: False runs one kernel per op. rewrites: False fuses the graph as given, without "
        "saturation. exact: exhaustive extraction on small e-graphs. arch: GPU architecture (sm_80, "
        "gfx90a, ...; '' = the device's). measure: time the `measure` best candidates on the host and keep "
        "the fastest. limits: smelt.Limits bounding the search; None: smelt's defaults. unsafe_fp: also the "
        "rules exact only in real arithmetic (reassociation, batch-norm scales folded into convolution "
        "weights): outputs may differ in the last bits, as with fast-math.\n\n"
        "The GIL is released while compiling. Raises smelt.Error (kind 'device_unavailable' where the "
        "target cannot run here, 'lower', 'shape', ...).");
}

}  // namespace smelt::python

NB_MODULE(_smelt, m) { smelt::python::define_module(m); }
