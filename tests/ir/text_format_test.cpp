// The .sg text format: canonical printing, round trips over every op, error
// positions and messages for malformed input, and robustness to arbitrary bytes.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "ir/builder.h"
#include "ir/text_format.h"

namespace smelt::ir {
namespace {

std::string round_trip(const Graph& g) { return print_graph(parse_graph(print_graph(g))); }

// The luminal seed, built op by op (argument evaluation order is unspecified).
Graph luminal_fusion() {
  Graph g("luminal_fusion");
  Tensor a = input(g, "a", DType::F32, {10});
  Tensor b = input(g, "b", DType::F32, {10});
  Tensor d = input(g, "d", DType::F32, {10});
  Tensor c = constant(g, 2.123);
  Tensor ce = broadcast(c, {10});
  Tensor e = exp2(a);
  Tensor s = sin(b);
  Tensor r = relu(e - s);
  Tensor q = ce / d;
  g.add_output(r + q);
  return g;
}

TEST(TextFormat, PrintsCanonicalText) {
  EXPECT_EQ(print_graph(luminal_fusion()),
            "graph luminal_fusion\n"
            "\n"
            "a = input() : f32[10]\n"
            "b = input() : f32[10]\n"
            "d = input() : f32[10]\n"
            "t0 = constant(value=2.123) : f32[]\n"
            "t1 = broadcast(t0, shape=[10]) : f32[10]\n"
            "t2 = exp2(a) : f32[10]\n"
            "t3 = sin(b) : f32[10]\n"
            "t4 = sub(t2, t3) : f32[10]\n"
            "t5 = relu(t4) : f32[10]\n"
            "t6 = div(t1, d) : f32[10]\n"
            "t7 = add(t5, t6) : f32[10]\n"
            "output t7\n");
}

// A graph that uses every op of the table, several with non-default attributes.
Graph every_op() {
  Graph g("every_op");
  Tensor x = input(g, "x", DType::F32, {2, 3});
  Tensor y = input(g, "y", DType::F32, {2, 3});
  Tensor n = input(g, "n", DType::I32, {2, 3});
  Tensor h = input(g, "h", DType::BF16, {4, 2, 3});
  Tensor literal = constant(g, {1, 2, 3, 4, 5, 6}, DType::F32, {2, 3});
  Tensor scalar = constant(g, 0.5);
  Tensor flags = constant(g, {1, 0}, DType::Bool, {2});
  Tensor filled = full(g, {2, 3}, -1.5);
  Tensor ramp = iota(g, {2, 3}, 1, DType::I64);
  std::vector<Tensor> outs = {literal, flags, filled, ramp};
  for (Tensor t : {exp(x), exp2(x), log(x), log2(x), sin(x), cos(x), tanh(x), sqrt(x), rsqrt(x),
                   recip(x), sigmoid(x), gelu(x), erf(x), neg(n), abs(n), relu(n), cast(n, DType::F16),
                   neg(h)})
    outs.push_back(t);
  for (Tensor t : {x + y, x - y, x * y, x / y, max(x, y), min(x, y), pow(x, y), lt(x, y), le(x, y),
                   eq(n, n)})
    outs.push_back(t);
  outs.push_back(where(lt(x, y), x, literal));
  outs.push_back(reshape(x, {3, 2}));
  Attrs infer_extent;
  infer_extent.shape = {-1, 2};
  outs.push_back(apply(Op::Reshape, {x}, infer_extent));
  outs.push_back(permute(h, {2, 0, 1}));
  outs.push_back(slice_axis(x, 1, 0, 2));
  outs.push_back(slice(x, {1, 100}, {-5, 0}, {-1, -2}));  // clamped, negative steps
  outs.push_back(pad(x, {1, 0}, {0, 2}));
  outs.push_back(pad(n, {0, 0}, {1, 1}, 7));
  outs.push_back(broadcast(scalar, {2, 3}));
  outs.push_back(concat({x, y, literal}, 0));
  outs.push_back(concat({x}, 1));
  outs.push_back(reduce_sum(x, {1}));
  outs.push_back(reduce_max(h, {2, 0}, true));
  outs.push_back(matmul(x, permute(y, {1, 0})));
  outs.push_back(matmul(h, permute(reshape(cast(x, DType::BF16), {1, 2, 3}), {0, 2, 1})));
  outs.push_back(conv(reshape(x, {1, 2, 3}), reshape(y, {2, 1, 3}), {{2}, {1}, {1}, {0}, 2}));
  outs.push_back(gather(x, cast(ramp, DType::I32), 1));
  for (Op op : {Op::Scatter, Op::ScatterAdd, Op::ScatterMul, Op::ScatterMax, Op::ScatterMin})
    outs.push_back(scatter(x, ramp, y, 1, op));
  for (Tensor t : outs) g.add_output(t);
  return g;
}

TEST(TextFormat, EveryOpRoundTrips) {
  Graph g = every_op();
  std::set<Op> used;
  for (const Node& node : g.nodes()) used.insert(node.op);
  EXPECT_EQ(used.size(), static_cast<size_t>(kNumOps)) << "every_op() must cover the op table";

  std::string text = print_graph(g);
  Graph parsed = parse_graph(text);
  EXPECT_EQ(print_graph(parsed), text);
  ASSERT_EQ(parsed.size(), g.size());
  EXPECT_EQ(parsed.name(), g.name());
  EXPECT_EQ(parsed.outputs(), g.outputs());
  for (size_t i = 0; i < g.size(); ++i) {
    const Node& want = g.nodes()[i];
    const Node& got = parsed.nodes()[i];
    EXPECT_EQ(got.op, want.op) << text;
    EXPECT_EQ(got.operands, want.operands) << op_name(want.op);
    EXPECT_TRUE(got.attrs == want.attrs) << op_name(want.op);
    EXPECT_EQ(got.type, want.type) << op_name(want.op);
  }
}

TEST(TextFormat, PrintsAttributesInFixedOrderWithDefaults) {
  Graph g = parse_graph(
      "x = input() : f32[4,6]\n"
      "s = slice(x, stop=[3,100], start=[1,0])\n"
      "p = pad(x, hi=[0,1], lo=[1,0])\n"
      "r = reduce_sum(x, axes=[1])\n"
      "m = reshape(x, shape=[-1,3])\n"
      "k = reduce_max(x, keepdims=true, axes=[1,0])\n"
      "output s, p, r, m, k\n");
  EXPECT_EQ(print_graph(g),
            "x = input() : f32[4,6]\n"
            "s = slice(x, start=[1,0], stop=[3,6], step=[1,1]) : f32[2,6]\n"
            "p = pad(x, lo=[1,0], hi=[0,1], value=0) : f32[5,7]\n"
            "r = reduce_sum(x, axes=[1], keepdims=false) : f32[4]\n"
            "m = reshape(x, shape=[8,3]) : f32[8,3]\n"
            "k = reduce_max(x, axes=[0,1], keepdims=true) : f32[1,1]\n"
            "output s, p, r, m, k\n");
}

TEST(TextFormat, PrintsNumbersInShortestRoundTripForm) {
  std::string text =
      "c = constant(value=[nan,inf,-inf,0,-0,2,2.5,1e-05,100000,1e+300,0.1]) : f32[11]\n"
      "b = constant(value=[true,false,1]) : bool[3]\n"
      "f = full(value=2.0) : i32[2]\n"
      "e = full(value=1.5e3) : f16[]\n"
      "output c, b, f, e\n";
  EXPECT_EQ(print_graph(parse_graph(text)),
            "c = constant(value=[nan,inf,-inf,0,-0,2,2.5,1e-05,100000,1e+300,0.1]) : f32[11]\n"
            "b = constant(value=[true,false,true]) : bool[3]\n"
            "f = full(value=2) : i32[2]\n"
            "e = full(value=1500) : f16[]\n"
            "output c, b, f, e\n");
  // Doubles that need all 17 digits survive.
  Graph g;
  Tensor c = constant(g, 0.1 + 0.2);
  g.add_output(c);
  Graph parsed = parse_graph(print_graph(g));
  EXPECT_EQ(parsed.node(0).attrs.values, std::vector<double>{0.1 + 0.2});
}

TEST(TextFormat, ConstantLiteralFormsAreCanonicalized) {
  Graph g = parse_graph(
      "a = constant(value=[3]) : i32[]\n"
      "b = constant(value=4) : i64[1]\n"
      "e = constant(value=[]) : f32[0,2]\n"
      "output a, b, e\n");
  EXPECT_EQ(print_graph(g),
            "a = constant(value=3) : i32[]\n"
            "b = constant(value=[4]) : i64[1]\n"
            "e = constant(value=[]) : f32[0,2]\n"
            "output a, b, e\n");
}

TEST(TextFormat, ParsesCommentsBlankLinesAndSeveralOutputLines) {
  Graph g = parse_graph(
      "# leading comment\n"
      "\n"
      "graph demo   # trailing comment\n"
      "   \t\n"
      "x = input() : f32[2]   # an input\r\n"
      "# between\n"
      "y = exp(x) : f32[2]\n"
      "output y\n"
      "z = neg(y)\n"
      "output x, z   # again\n"
      "output y");  // no final newline
  EXPECT_EQ(g.name(), "demo");
  ASSERT_EQ(g.size(), 3u);
  EXPECT_EQ(g.outputs(), (std::vector<ValueId>{1, 0, 2, 1}));
  EXPECT_EQ(print_graph(g),
            "graph demo\n"
            "\n"
            "x = input() : f32[2]\n"
            "y = exp(x) : f32[2]\n"
            "z = neg(y) : f32[2]\n"
            "output y, x, z, y\n");
}

TEST(TextFormat, OpNamesMayNameValues) {
  Graph g = parse_graph("exp = input() : f32[2]\nadd = add(exp, exp)\noutput add\n");
  EXPECT_EQ(g.find("add"), 1);
}

TEST(TextFormat, FreshNamesAvoidExistingOnesAndReplaceUnprintableNames) {
  Graph g("my graph!");
  Tensor a = input(g, "t0", DType::F32, {2});
  Tensor b = input(g, "t2", DType::F32, {2});
  Tensor c = input(g, "f32", DType::F32, {2});      // a dtype: not a valid value name
  Tensor d = input(g, "two words", DType::F32, {2});
  Tensor s = a + b;
  Tensor t = s * c;
  g.add_output(t - d);
  std::string text = print_graph(g);
  EXPECT_EQ(text,
            "graph my_graph_\n"
            "\n"
            "t0 = input() : f32[2]\n"
            "t2 = input() : f32[2]\n"
            "t1 = input() : f32[2]\n"
            "t3 = input() : f32[2]\n"
            "t4 = add(t0, t2) : f32[2]\n"
            "t5 = mul(t4, t1) : f32[2]\n"
            "t6 = sub(t5, t3) : f32[2]\n"
            "output t6\n");
  EXPECT_EQ(round_trip(g), text);
}

TEST(TextFormat, RoundTripsTheSeedGraph) {
  Graph g = luminal_fusion();
  EXPECT_EQ(round_trip(g), print_graph(g));
}

TEST(TextFormat, ParseGraphFileReadsAndNamesTheFile) {
  std::string path = ::testing::TempDir() + "/smelt_text_format_test.sg";
  {
    std::ofstream out(path);
    out << "x = input() : f32[2]\ny = exp(q)\noutput y\n";
  }
  try {
    parse_graph_file(path);
    FAIL() << "expected a SgTextError";
  } catch (const SgTextError& e) {
    EXPECT_EQ(std::string(e.what()), path + ":2:9: undefined value 'q'");
    EXPECT_EQ(e.file(), path);
  }
  {
    std::ofstream out(path);
    out << "x = input() : f32[2]\noutput x\n";
  }
  EXPECT_EQ(parse_graph_file(path).size(), 1u);
  std::remove(path.c_str());
}

TEST(TextFormat, UnreadableFileIsAParseErrorAtItsStart) {
  try {
    parse_graph_file("/nonexistent/smelt/graph.sg");
    FAIL() << "expected a SgTextError";
  } catch (const SgTextError& e) {
    EXPECT_EQ(e.line(), 1);
    EXPECT_EQ(e.col(), 1);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/smelt/graph.sg:1:1: cannot read file"),
              std::string::npos);
  }
}

TEST(TextFormat, IntegerLiteralsUpTo2To53AreExact) {
  Graph g = parse_graph(
      "c = constant(value=9007199254740992) : i64[]\n"
      "d = constant(value=-9007199254740991) : i64[]\n"
      "output c, d\n");
  EXPECT_EQ(g.node(g.outputs()[0]).attrs.values, std::vector<double>{9007199254740992.0});
  EXPECT_EQ(g.node(g.outputs()[1]).attrs.values, std::vector<double>{-9007199254740991.0});
}

TEST(TextFormat, DirectoryOrDeviceIsRefusedBeforeReading) {
  const std::pair<std::string, std::string> cases[] = {{::testing::TempDir(), "is a directory, not a file"},
                                                       {"/dev/zero", "is not a regular file"}};
  for (const auto& [path, message] : cases) {
    try {
      parse_graph_file(path);
      FAIL() << "expected a SgTextError for " << path;
    } catch (const SgTextError& e) {
      EXPECT_EQ(e.line(), 1);
      EXPECT_EQ(e.col(), 1);
      EXPECT_NE(e.message().find(message), std::string::npos) << e.what();
    }
  }
}

// ---- malformed input --------------------------------------------------------------

struct Malformed {
  std::string text;
  int line, col;
  std::string message;  // a part of the message
};

// Every case starts from this prelude (line 1) unless it says otherwise.
const std::string kPrelude = "x = input() : f32[2,3]\n";

const std::vector<Malformed> kMalformed = {
    {"", 1, 1, "empty graph"},
    {"# only a comment\n\n", 3, 1, "empty graph"},
    {kPrelude, 2, 1, "no 'output' line"},
    {kPrelude + "output y\n", 2, 8, "undefined value 'y'"},
    {kPrelude + "y = exp(z)\noutput y\n", 2, 9, "undefined value 'z'"},
    {kPrelude + "x = exp(x)\noutput x\n", 2, 1, "'x' is already defined (line 1)"},
    {"true = input() : f32[2]\noutput true\n", 1, 1, "'true' is a keyword and cannot name a value"},
    {"output = input() : f32[2]\n", 1, 1, "'output' is a keyword"},
    {"f32 = input() : f32[2]\n", 1, 1, "'f32' is a dtype and cannot name a value"},
    {kPrelude + "y = foo(x)\noutput y\n", 2, 5, "unknown op 'foo'"},
    {kPrelude + "y = exp(x\noutput y\n", 2, 10, "expected ',' or ')', found end of line"},
    {kPrelude + "y = exp(x", 2, 10, "expected ',' or ')', found end of file"},
    {"x input() : f32[2]\n", 1, 3, "expected '=' after the value name, found 'input'"},
    {"x = input() : f32[2] junk\noutput x\n", 1, 22, "unexpected 'junk' after the end of the statement"},
    {"x = input() : f32[99999999999999999999]\n", 1, 19, "integer literal '99999999999999999999' out of range"},
    {"x = input() : f32[2.5]\n", 1, 19, "expected an integer, found the float '2.5'"},
    {"x = input() : f33[2]\n", 1, 15, "unknown dtype 'f33'"},
    {"x = input() : f32[2,-3]\n", 1, 21, "negative extent '-3'"},
    {"x = input()\noutput x\n", 1, 12, "input needs its result type, ': DTYPE[EXTENTS]', found end of line"},
    {"x = input() f32[2]\n", 1, 13, "input needs its result type"},
    {kPrelude + "y = exp(x) : f32[3]\noutput y\n", 2, 14,
     "type annotation f32[3] does not match the inferred type f32[2,3]"},
    {kPrelude + "y = permute(x, prem=[1,0])\noutput y\n", 2, 16, "unknown attribute 'prem'"},
    {kPrelude + "y = exp(x, axis=1)\noutput y\n", 2, 12, "exp does not take attribute 'axis' (it takes none)"},
    {kPrelude + "y = permute(x, perm=[1,0], perm=[0,1])\noutput y\n", 2, 28, "attribute 'perm' given twice"},
    {kPrelude + "y = reshape(x)\noutput y\n", 2, 5, "reshape: missing attribute 'shape'"},
    {kPrelude + "y = permute(x, perm=1)\noutput y\n", 2, 21, "expected '[' (a list of integers), found '1'"},
    {kPrelude + "y = reduce_sum(x, axes=[0], keepdims=1)\noutput y\n", 2, 38, "expected true or false, found '1'"},
    {"x = input() : f32[2]\ny = input() : f32[3]\nz = add(x, y)\noutput z\n", 3, 5,
     "add(f32[2], f32[3]): elementwise operands must have equal shapes"},
    {"x = input() : f32[2] $\n", 1, 22, "unexpected character '$'"},
    {std::string("x = in\0put() : f32[2]\n", 22), 1, 7, "unexpected byte 0x00"},
    {"x = \xff\xfe\n", 1, 5, "unexpected byte 0xff"},
    {kPrelude + "y = add(exp(x), x)\noutput y\n", 2, 12, "nested calls are not allowed"},
    {kPrelude + "y = add(x, 2)\noutput y\n", 2, 12, "literals need their own 'constant' line"},
    {kPrelude + "y = concat(x, axis=0, x)\noutput y\n", 2, 23, "operands must come before the attributes"},
    {kPrelude + "graph g\noutput x\n", 2, 1, "the 'graph NAME' header must be the first line"},
    {"graph\n", 1, 6, "expected a graph name after 'graph', found end of line"},
    {kPrelude + "output x,\n", 2, 10, "expected a value name after 'output', found end of line"},
    {kPrelude + "output\n", 2, 7, "expected a value name after 'output'"},
    {kPrelude + "output true\n", 2, 8, "'true' is a keyword"},
    {"c = constant(value=1.) : f32[]\n", 1, 20, "expected digits after '.'"},
    {"c = constant(value=.5) : f32[]\n", 1, 20, "a number must start with a digit"},
    {"c = constant(value=1e) : f32[]\n", 1, 20, "expected digits in the exponent"},
    {"c = constant(value=1e999) : f32[]\n", 1, 20, "'1e999' is out of the range of a double"},
    {"c = constant(value=-x) : f32[]\n", 1, 20, "a '-' must be followed by digits or 'inf'"},
    {"x = iota(axis=9007199254740993) : i32[2]\n", 1, 15, "out of range (|v| <= 2^53)"},
    // A double would round these to 2^53 (and `c - 2^53` would be 0, not 1).
    {"c = constant(value=9007199254740993) : i64[]\n", 1, 20, "'9007199254740993' out of range (|v| <= 2^53)"},
    {"c = constant(value=[1, -9007199254740993]) : i64[2]\n", 1, 24, "out of range (|v| <= 2^53)"},
    {"c = full(value=9223372036854775807) : i64[2]\n", 1, 16, "out of range (|v| <= 2^53)"},
    // As a float, 2^53 + 1 also reads as 2^53: an integer dtype's value is written in digits.
    {"c = constant(value=[0, 9007199254740993.0]) : i64[2]\n", 1, 24, "the float literal '9007199254740993.0' is rounded"},
    {"x = input() : i64[2]\ny = pad(x, lo=[1], hi=[0], value=9.007199254740993e15)\n", 2, 34,
     "i64 values are written as integers (|v| <= 2^53)"},
    {"x = input() : i64[2]\ny = pad(x, lo=[1], hi=[0], value=18446744073709551616)\n", 2, 34,
     "integer literal '18446744073709551616' out of range"},
    {"c = constant() : f32[]\n", 1, 5, "constant: missing attribute 'value'"},
    {"c = constant(value=[1,2]) : f32[3]\n", 1, 5, "a literal of 2 values for shape [3]"},
    {kPrelude + "y = cast(x, to=f64)\noutput y\n", 2, 16, "unknown dtype 'f64'"},
    {"f = full(value=[1]) : f32[2]\n", 1, 16, "expected a number, found '['"},
    {"5 = input() : f32[2]\n", 1, 1, "expected a definition 'NAME = OP(...)' or 'output NAME, ...', found '5'"},
    {"x = input() : f32[4294967296,4294967296]\n", 1, 15, "has too many elements"},
    {kPrelude + "y = exp x\noutput y\n", 2, 9, "expected '(' after the op name, found 'x'"},
    {kPrelude + "y = add(x)\noutput y\n", 2, 5, "add: takes 2 operand(s), got 1"},
    {"x = input() : f32[12abc]\n", 1, 19, "malformed number"},
    {"x = input() : f32[2\n", 1, 20, "expected ',' or ']', found end of line"},
    {"y = \n", 1, 5, "expected an op name, found end of line"},
    {kPrelude + "y = add(x,)\noutput y\n", 2, 11, "expected an operand name, found ')'"},
    {kPrelude + "y = reshape(x, shape=[2,[3]])\noutput y\n", 2, 25, "expected an integer, found '['"},
};

TEST(TextFormat, MalformedInputsReportLineColumnAndMessage) {
  ASSERT_GE(kMalformed.size(), 25u);
  for (const Malformed& m : kMalformed) {
    SCOPED_TRACE("input:\n" + m.text);
    try {
      parse_graph(m.text);
      ADD_FAILURE() << "parsed without error";
    } catch (const SgTextError& e) {
      EXPECT_EQ(e.file(), "<input>");
      EXPECT_EQ(e.line(), m.line) << e.what();
      EXPECT_EQ(e.col(), m.col) << e.what();
      EXPECT_NE(e.message().find(m.message), std::string::npos) << e.what();
      std::string prefix =
          "<input>:" + std::to_string(m.line) + ":" + std::to_string(m.col) + ": ";
      EXPECT_EQ(std::string(e.what()).rfind(prefix, 0), 0u) << e.what();
    }
  }
}

TEST(TextFormat, WhatIsFileLineColumnMessage) {
  try {
    parse_graph("x = input() : f32[2]\n\n  y = exp(q)\noutput y\n", "model.sg");
    FAIL() << "expected a SgTextError";
  } catch (const SgTextError& e) {
    EXPECT_EQ(std::string(e.what()), "model.sg:3:11: undefined value 'q'");
  }
}

TEST(TextFormat, ShapeErrorsPointAtTheOp) {
  try {
    parse_graph(
        "a = input() : f32[4,3]\n"
        "b = input() : f32[5,3]\n"
        "# comment line\n"
        "  c = broadcast(a, shape=[2,5,3])\n"
        "output c\n");
    FAIL() << "expected a SgTextError";
  } catch (const SgTextError& e) {
    EXPECT_EQ(e.line(), 4);
    EXPECT_EQ(e.col(), 7);
    EXPECT_NE(e.message().find("broadcast(f32[4,3])"), std::string::npos) << e.what();
    EXPECT_NE(e.message().find("cannot broadcast to [2,5,3]"), std::string::npos) << e.what();
  }
  try {
    parse_graph("a = input() : f32[4,3]\nm = matmul(a, a)\noutput m\n");
    FAIL() << "expected a SgTextError";
  } catch (const SgTextError& e) {
    EXPECT_EQ(e.line(), 2);
    EXPECT_EQ(e.col(), 5);
    EXPECT_NE(e.message().find("contracted extents differ"), std::string::npos) << e.what();
  }
}

// ---- robustness -------------------------------------------------------------------

// Parses `text`; it must give a graph (which then round-trips) or a SgTextError.
void expect_graph_or_parse_error(const std::string& text) {
  try {
    Graph g = parse_graph(text);
    std::string printed = print_graph(g);
    EXPECT_EQ(round_trip(g), printed) << "input:\n" << text;
  } catch (const SgTextError&) {
  } catch (const std::exception& e) {
    ADD_FAILURE() << "unexpected exception " << e.what() << " for input:\n" << text;
  }
}

TEST(TextFormat, RandomBytesGiveAGraphOrAParseError) {
  std::mt19937 rng(20240611);
  // Mostly the format's own characters, so that some inputs get past the lexer.
  const std::string alphabet = "xyz =(),[]:#\n-.0123456789eafinpt_";
  for (int i = 0; i < 300; ++i) {
    std::string text(rng() % 80, '\0');
    for (char& c : text)
      c = rng() % 4 == 0 ? static_cast<char>(rng() % 256) : alphabet[rng() % alphabet.size()];
    expect_graph_or_parse_error(text);
  }
}

TEST(TextFormat, MutatedValidFilesGiveAGraphOrAParseError) {
  const std::string valid = print_graph(every_op());
  const std::string fragments[] = {"(", ")", ",", "=", "[", "]", ":", "\n", "#", "-", "1", "-1",
                                   "x", "inf", "nan", "true", "f32", "axis=0", "9999999999999999999999"};
  std::mt19937 rng(7);
  for (int i = 0; i < 400; ++i) {
    std::string text = valid;
    for (int edits = 1 + static_cast<int>(rng() % 4); edits > 0; --edits) {
      size_t at = rng() % (text.size() + 1);
      switch (rng() % 4) {
        case 0: text.erase(at, rng() % 8); break;
        case 1: text.insert(at, fragments[rng() % std::size(fragments)]); break;
        case 2: if (at < text.size()) text[at] = static_cast<char>(rng() % 256); break;
        default: {  // duplicate a slice, e.g. a whole line
          size_t from = rng() % text.size();
          text.insert(at, text.substr(from, rng() % 40));
        }
      }
    }
    expect_graph_or_parse_error(text);
  }
}

}  // namespace
}  // namespace smelt::ir
