// smelt::tools::kernel_program_dot: every buffer and kernel of a program drawn, loads and
// stores as edges, names escaped, and the text accepted by graphviz.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "ir/builder.h"
#include "fusion/kernelize.h"
#include "tools/kernel_dot.h"

namespace smelt::ir {
using namespace kernel;
using namespace fusion;
namespace {

using smelt::tools::kernel_program_dot;

// y = matmul(relu(x), w) and s = reduce_sum(exp(x) * x + 1) over axis 1.
KernelProgram small_program() {
  Graph g("small");
  const Tensor x = input(g, "x", DType::F32, {4, 8});
  const Tensor w = input(g, "w", DType::F32, {8, 3});
  g.add_output(matmul(relu(x), w));
  g.add_output(reduce_sum(exp(x) * x + broadcast(constant(g, 1.0), {4, 8}), {1}));
  return kernelize_program(g, materialize_outputs(g));
}

// The statement that draws `id` ("  b0 [...]" or "  k0 [...]").
std::string statement(const std::string& dot, const std::string& id) {
  const size_t at = dot.find("  " + id + " [");
  return at == std::string::npos ? "" : dot.substr(at, dot.find('\n', at) - at);
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(KernelDot, DrawsEveryBufferAndKernel) {
  const KernelProgram program = small_program();
  ASSERT_GE(program.kernels.size(), 2u);
  const std::string dot = kernel_program_dot(program);
  EXPECT_EQ(dot.rfind("digraph kernels {", 0), 0u);
  for (size_t i = 0; i < program.buffers.size(); ++i) {
    const Buffer& b = program.buffers[i];
    const std::string line = statement(dot, "b" + std::to_string(i));
    EXPECT_NE(line.find("shape=ellipse"), std::string::npos) << line;
    EXPECT_NE(line.find("label=\"" + b.name + "\\n" + type_str(b.type) + "\\n"), std::string::npos) << line;
  }
  for (size_t i = 0; i < program.kernels.size(); ++i) {
    const std::string line = statement(dot, "k" + std::to_string(i));
    EXPECT_NE(line.find("shape=box"), std::string::npos) << line;
    EXPECT_NE(line.find("kernel " + program.kernels[i].name + "\\l"), std::string::npos) << line;
    EXPECT_NE(line.find("over " + shape_str(program.kernels[i].space)), std::string::npos) << line;
  }
  // Inputs, outputs and temporaries in their colors; what the kernels compute summarized.
  EXPECT_NE(statement(dot, "b0").find("fillcolor=\"lightblue\" label=\"x\\nf32[4,8]\\ninput\""), std::string::npos)
      << dot;
  EXPECT_NE(dot.find("fillcolor=\"gold\""), std::string::npos) << dot;
  EXPECT_NE(dot.find("reduces: matmul"), std::string::npos) << dot;
  EXPECT_NE(dot.find("reduces: reduce_sum"), std::string::npos) << dot;
  EXPECT_NE(dot.find("relu"), std::string::npos) << dot;
  EXPECT_NE(dot.find("exp"), std::string::npos) << dot;
}

TEST(KernelDot, EdgesAreLoadsIntoKernelsAndStoresOutOfThem) {
  const KernelProgram program = small_program();
  std::set<std::string> expected;
  for (size_t k = 0; k < program.kernels.size(); ++k) {
    for (const KernelExpr& e : program.kernels[k].exprs)
      if (e.kind == KernelExpr::Kind::kLoad) expected.insert("b" + std::to_string(e.buffer) + " -> k" + std::to_string(k));
    for (const KernelOutput& o : program.kernels[k].outputs)
      expected.insert("k" + std::to_string(k) + " -> b" + std::to_string(o.buffer));
  }
  std::set<std::string> drawn;
  std::istringstream lines(kernel_program_dot(program));
  for (std::string line; std::getline(lines, line);)
    if (line.find(" -> ") != std::string::npos) drawn.insert(line.substr(2, line.find(" [") - 2));  // without a label
  EXPECT_EQ(drawn, expected);
}

// in -> copy -> out, with names that DOT must escape.
KernelProgram copy_program(const std::string& in_name, const std::string& kernel_name) {
  KernelProgram program;
  program.buffers.push_back({in_name, {DType::F32, {3}}, BufferKind::kInput, 0, {}});
  program.buffers.push_back({"out", {DType::F32, {3}}, BufferKind::kOutput, 0, {}});
  program.buffers.push_back({"two", {DType::F32, {}}, BufferKind::kConstant, -1, {2.5}});
  Kernel k;
  k.name = kernel_name;
  k.space = {3};
  k.exprs.push_back(make_load(0, {k.indices.var(0)}, DType::F32));
  k.exprs.push_back(make_load(0, {k.indices.var(0)}, DType::F32));
  k.outputs.push_back({1, 1});
  program.kernels.push_back(std::move(k));
  validate(program);
  return program;
}

TEST(KernelDot, EscapesNamesAndCountsRepeatedLoads) {
  const std::string dot = kernel_program_dot(copy_program("a\"b\\c<d>", "k\nnew\x01line"));
  EXPECT_NE(dot.find(R"(label="a\"b\\c<d>\nf32[3]\ninput")"), std::string::npos) << dot;
  EXPECT_NE(dot.find(R"(label="kernel k\nnew?line\lover [3]\lcopies\l")"), std::string::npos) << dot;
  EXPECT_NE(dot.find("label=\"two\\nf32[]\\nconstant 2.5\""), std::string::npos) << dot;
  EXPECT_NE(dot.find("  b0 -> k0 [label=\"×2\"]\n"), std::string::npos) << dot;
  EXPECT_NE(dot.find("  k0 -> b1\n"), std::string::npos) << dot;
}

TEST(KernelDot, TruncatesLongOpLists) {
  Graph g("chain");
  Tensor t = input(g, "x", DType::F32, {8});
  for (Tensor (*op)(Tensor) : {neg, exp, exp2, log, log2, sin, cos, tanh, sqrt, rsqrt, recip, abs})
    t = op(t);
  g.add_output(t);
  const std::string dot = kernel_program_dot(kernelize_program(g, materialize_outputs(g)));
  EXPECT_NE(dot.find("+4 more"), std::string::npos) << dot;
  EXPECT_EQ(dot.find("recip"), std::string::npos) << dot;
}

// Graphviz itself reads the text, without a warning.
TEST(KernelDot, IsAcceptedByGraphviz) {
  // graphviz is a dependency (scripts/bootstrap installs it): its absence is a failure.
  ASSERT_EQ(std::system("command -v dot >/dev/null 2>&1"), 0) << "graphviz is a dependency (scripts/bootstrap installs it)";
  const std::vector<KernelProgram> programs = {small_program(), copy_program("a\"b\\c<d>", "k\nnew")};
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("smelt_kernel_dot_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  for (const KernelProgram& program : programs) {
    std::ofstream(dir / "p.dot") << kernel_program_dot(program);
    const std::string command = "dot -Tsvg '" + (dir / "p.dot").string() + "' -o '" + (dir / "p.svg").string() +
                                "' 2>'" + (dir / "err").string() + "'";
    EXPECT_EQ(std::system(command.c_str()), 0) << read_file(dir / "err");
    EXPECT_EQ(read_file(dir / "err"), "");
    EXPECT_NE(read_file(dir / "p.svg").find("<svg"), std::string::npos);
  }
  EXPECT_NE(read_file(dir / "p.svg").find("a&quot;b\\c&lt;d&gt;"), std::string::npos) << read_file(dir / "p.svg");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace smelt::ir
