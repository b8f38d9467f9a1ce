// Cost model v1: the shipped profile (format 2), profile parsing and its
// errors, the profile's lookups (thread counts, curves, matmul shapes), load
// classification of lowered kernels, and the properties of predictions the
// extractor relies on.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cost/device_profile.h"
#include "cost/measure.h"
#include "cost/predict.h"
#include "ir/builder.h"
#include "kernel/contraction_group.h"
#include "kernel/host_plan.h"
#include "kernel/kernel_builder.h"
#include "fusion/kernelize.h"

namespace smelt::cost {
namespace {

using kernel::BufferKind;
using ir::DType;
using ir::Op;
using nlohmann::json;

// ---------------------------------------------------------------------------
// The shipped profile

TEST(DeviceProfile, TheShippedHostProfileHasRatesForOneAndMoreThreads) {
  const DeviceProfile& p = default_host_profile();
  EXPECT_EQ(p.device, "host");
  EXPECT_FALSE(p.name.empty());
  EXPECT_FALSE(p.cpu.empty());
  EXPECT_FALSE(p.date.empty());
  EXPECT_GE(p.overlap, 0);
  EXPECT_LE(p.overlap, 1);
  ASSERT_GE(p.rates.size(), 2u);
  EXPECT_EQ(p.rates.front().threads, 1u);
  EXPECT_GT(p.rates.back().threads, 1u);
  for (const ThreadRates& r : p.rates) {
    SCOPED_TRACE(r.threads);
    EXPECT_GT(r.kernel_us, 0);
    for (int a = 0; a < kNumAccessKinds; ++a) EXPECT_FALSE(r.read[a].empty()) << access_kind_name(AccessKind(a));
    EXPECT_FALSE(r.write.empty());
    EXPECT_FALSE(r.reduce_inner.empty());
    EXPECT_GT(r.reduce_outer_ns, 0);
    EXPECT_FALSE(r.matmul.empty());
    EXPECT_GT(op_ns(r, "exp"), op_ns(r, "add"));  // a transcendental costs more than an add
    EXPECT_EQ(op_ns(r, "no_such_op"), op_ns(r, "default"));
  }
  // Splitting a kernel over the pool costs a dispatch.
  EXPECT_GT(p.rates.back().dispatch_us, 0);
}

// The embedded copy is the file in the source tree (a stale build would differ).
TEST(DeviceProfile, TheEmbeddedProfileIsTheShippedFile) {
  // SMELT_SOURCE_DIR, not __FILE__: through ccache (CCACHE_BASEDIR) the compiler sees relative paths.
  const std::filesystem::path file = std::filesystem::path(SMELT_SOURCE_DIR) / "cost/profiles/host.json";
  ASSERT_TRUE(std::filesystem::exists(file)) << file;
  const DeviceProfile loaded = load_profile(file.string(), "host");
  EXPECT_EQ(profile_to_json(loaded), profile_to_json(default_host_profile()));
}

// A rate read off a time about the size of the dispatch it was measured with
// (32 x 64 x 64 at 2 threads: 519 GFLOP/s against 118 on one) is bounded by
// the threads times the one-thread rate of the same shape; a shape the first
// entry lacks, and a rate within the bound, stay as measured.
TEST(DeviceProfile, AParallelRateIsAtMostTheThreadsTimesTheSerialOne) {
  DeviceProfile p = default_host_profile();
  p.rates.resize(1);
  p.rates[0].matmul = {{1, 32, 64, 64, 100.0}, {1, 128, 128, 128, 50.0}};
  ThreadRates two = p.rates[0];
  two.threads = 2;
  two.matmul = {{1, 32, 64, 64, 519.0}, {1, 128, 128, 128, 90.0}, {1, 512, 512, 512, 300.0}};
  p.rates.push_back(two);
  const DeviceProfile bounded = parse_profile(profile_to_json(p), "bounded.json", "host");
  ASSERT_EQ(bounded.rates.size(), 2u);
  EXPECT_EQ(bounded.rates[1].matmul[0].gflops, 200.0);
  EXPECT_EQ(bounded.rates[1].matmul[1].gflops, 90.0);
  EXPECT_EQ(bounded.rates[1].matmul[2].gflops, 300.0);
  EXPECT_EQ(bounded.rates[0].matmul[0].gflops, 100.0);
}

TEST(DeviceProfile, RoundTripsThroughJson) {
  const DeviceProfile& p = default_host_profile();
  const std::string text = profile_to_json(p);
  const DeviceProfile again = parse_profile(text, "again.json", "host");
  EXPECT_EQ(profile_to_json(again), text);
  EXPECT_EQ(again.name, p.name);
  EXPECT_EQ(again.cpu, p.cpu);
  EXPECT_EQ(again.date, p.date);
  EXPECT_EQ(again.overlap, p.overlap);
  ASSERT_EQ(again.rates.size(), p.rates.size());
  for (size_t i = 0; i < p.rates.size(); ++i) {
    const ThreadRates &a = again.rates[i], &b = p.rates[i];
    EXPECT_EQ(a.threads, b.threads);
    EXPECT_EQ(a.program_us, b.program_us);  // exactly: doubles are written to round-trip
    EXPECT_EQ(a.kernel_us, b.kernel_us);
    EXPECT_EQ(a.dispatch_us, b.dispatch_us);
    EXPECT_EQ(a.op_ns, b.op_ns);
    EXPECT_EQ(a.row_ns, b.row_ns);
    EXPECT_EQ(a.reduce_outer_ns, b.reduce_outer_ns);
    for (int k = 0; k < kNumAccessKinds; ++k) {
      ASSERT_EQ(a.read[k].size(), b.read[k].size());
      for (size_t j = 0; j < a.read[k].size(); ++j) {
        EXPECT_EQ(a.read[k][j].x, b.read[k][j].x);
        EXPECT_EQ(a.read[k][j].ns, b.read[k][j].ns);
      }
    }
    ASSERT_EQ(a.matmul.size(), b.matmul.size());
    for (size_t j = 0; j < a.matmul.size(); ++j) {
      EXPECT_EQ(a.matmul[j].batch, b.matmul[j].batch);
      EXPECT_EQ(a.matmul[j].m, b.matmul[j].m);
      EXPECT_EQ(a.matmul[j].n, b.matmul[j].n);
      EXPECT_EQ(a.matmul[j].k, b.matmul[j].k);
      EXPECT_EQ(a.matmul[j].gflops, b.matmul[j].gflops);
    }
  }
  // The thread count programs run with is the compiler's, not the file's.
  EXPECT_EQ(parse_profile(profile_to_json(p.for_threads(3))).run_threads, 0u);
}

// ---------------------------------------------------------------------------
// Lookups

// The shipped profile with entries measured at `counts` threads; each entry's
// kernel_us is its thread count, so a lookup says which entry it found.
DeviceProfile measured_at(const std::vector<unsigned>& counts) {
  DeviceProfile p = default_host_profile();
  const ThreadRates one = p.rates.front();
  p.rates.clear();
  for (unsigned t : counts) {
    p.rates.push_back(one);
    p.rates.back().threads = t;
    p.rates.back().kernel_us = t;
  }
  return p;
}

TEST(DeviceProfile, AtPicksTheLargestMeasuredCountNotAboveThreads) {
  const DeviceProfile p = measured_at({1, 2, 4, 16});
  const std::pair<unsigned, unsigned> expected[] = {{0, 1},  {1, 1},  {2, 2},  {3, 2},  {4, 4},
                                                    {5, 4},  {15, 4}, {16, 16}, {17, 16}, {1000, 16}};
  for (auto [threads, entry] : expected) {
    EXPECT_EQ(p.at(threads).threads, entry) << threads << " threads";
    EXPECT_EQ(p.at(threads).kernel_us, entry);
  }
  const DeviceProfile& shipped = default_host_profile();
  EXPECT_EQ(shipped.at(1).threads, 1u);
  EXPECT_EQ(shipped.at(4096).threads, shipped.rates.back().threads);
  // A parsed profile keeps them sorted, so the same holds after a round trip.
  EXPECT_EQ(parse_profile(profile_to_json(p)).at(3).threads, 2u);
}

TEST(DeviceProfile, ForThreadsSetsTheThreadsProgramsRunWith) {
  const DeviceProfile& p = default_host_profile();
  EXPECT_EQ(p.run_threads, 0u);
  EXPECT_EQ(p.threads(), std::max(1u, std::thread::hardware_concurrency()));
  EXPECT_EQ(p.for_threads(3).threads(), 3u);
  EXPECT_EQ(p.for_threads(3).run_threads, 3u);
  EXPECT_EQ(p.for_threads(0).threads(), p.threads());
}

TEST(DeviceProfile, CurvesInterpolateInLogSizeAndClampAtTheEnds) {
  const Curve c = {{1e3, 1.0}, {1e5, 3.0}, {1e7, 2.0}};
  EXPECT_DOUBLE_EQ(interpolate(c, 1e3), 1.0);
  EXPECT_DOUBLE_EQ(interpolate(c, 1e5), 3.0);
  EXPECT_DOUBLE_EQ(interpolate(c, 1e7), 2.0);
  // Halfway in log(x), not in x.
  EXPECT_NEAR(interpolate(c, 1e4), 2.0, 1e-12);
  EXPECT_NEAR(interpolate(c, 1e6), 2.5, 1e-12);
  EXPECT_NEAR(interpolate(c, std::pow(10.0, 3.5)), 1.5, 1e-12);
  // Clamped beyond the measured sizes.
  EXPECT_DOUBLE_EQ(interpolate(c, 1), 1.0);
  EXPECT_DOUBLE_EQ(interpolate(c, 0), 1.0);
  EXPECT_DOUBLE_EQ(interpolate(c, 1e12), 2.0);
  // Monotone between two points.
  double last = 1.0;
  for (double x = 1e3; x <= 1e5; x *= 1.5) {
    const double v = interpolate(c, x);
    EXPECT_GE(v, last - 1e-12) << x;
    last = v;
  }
  EXPECT_DOUBLE_EQ(interpolate({{64, 0.5}}, 1e9), 0.5);  // one point: constant
}

TEST(DeviceProfile, MatmulThroughputIsExactAtMeasuredShapesAndBetweenNeighboursElsewhere) {
  for (const ThreadRates& r : default_host_profile().rates)
    for (const MatmulPoint& m : r.matmul)
      EXPECT_DOUBLE_EQ(matmul_gflops(r.matmul, m.batch, m.m, m.n, m.k), m.gflops)
          << r.threads << " threads, " << m.batch << "x" << m.m << "x" << m.n << "x" << m.k;

  ThreadRates r = default_host_profile().rates.front();
  r.matmul = {{1, 64, 64, 64, 10.0}, {1, 256, 256, 256, 40.0}};
  EXPECT_DOUBLE_EQ(matmul_gflops(r.matmul, 1, 64, 64, 64), 10.0);
  EXPECT_DOUBLE_EQ(matmul_gflops(r.matmul, 1, 256, 256, 256), 40.0);
  // Halfway in log(shape) between the two: their geometric mean.
  const double middle = matmul_gflops(r.matmul, 1, 128, 128, 128);
  EXPECT_GT(middle, 10.0);
  EXPECT_LT(middle, 40.0);
  EXPECT_NEAR(middle, 20.0, 1e-9);
  // Nearer the small shape, nearer its rate.
  EXPECT_LT(matmul_gflops(r.matmul, 1, 80, 80, 80), middle);
  EXPECT_GT(matmul_gflops(r.matmul, 1, 200, 200, 200), middle);

  // Any shape of the shipped profile lies within its measured range.
  const ThreadRates& shipped = default_host_profile().rates.front();
  double lo = 1e300, hi = 0;
  for (const MatmulPoint& m : shipped.matmul) lo = std::min(lo, m.gflops), hi = std::max(hi, m.gflops);
  for (long s : {3L, 24L, 100L, 700L, 5000L}) {
    const double g = matmul_gflops(shipped.matmul, 2, s, 2 * s, s + 1);
    EXPECT_GE(g, lo * (1 - 1e-12)) << s;
    EXPECT_LE(g, hi * (1 + 1e-12)) << s;
  }
}

// ---------------------------------------------------------------------------
// Corrupt or mismatched profiles

json shipped_json() { return json::parse(profile_to_json(default_host_profile())); }

// A JSON string that stands for raw JSON text in the dumped profile (a number
// nlohmann cannot hold, such as 1e400).
const std::string kRaw = "@raw@";
json raw(const std::string& text) { return kRaw + text; }
std::string dump_with_raw(const json& j) {
  std::string text = j.dump();
  for (size_t at; (at = text.find("\"" + kRaw)) != std::string::npos;) {
    const size_t end = text.find('"', at + 1);
    text.replace(at, end + 1 - at, text.substr(at + 1 + kRaw.size(), end - at - 1 - kRaw.size()));
  }
  return text;
}

// The error parse_profile throws for `text`, or "" when it accepts it.
std::string rejection(const std::string& text, const std::string& expected_device = "") {
  try {
    parse_profile(text, "p.json", expected_device);
  } catch (const std::runtime_error& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("not a std::runtime_error: ") + e.what();
  }
  return "";
}

struct Corruption {
  std::string what;
  std::function<void(json&)> edit;
  std::string field;  // the path the message must name, quoted
  std::string expected_device = "";
};

std::function<void(json&)> set(const std::string& pointer, json value) {
  return [pointer, value](json& j) { j[json::json_pointer(pointer)] = value; };
}
std::function<void(json&)> drop(const std::string& pointer) {
  return [pointer](json& j) {
    const json::json_pointer p(pointer);
    j[p.parent_pointer()].erase(p.back());
  };
}

std::vector<Corruption> corruptions() {
  std::vector<Corruption> c;
  for (const char* field : {"format", "name", "device", "cpu", "date", "overlap", "rates"})
    c.push_back({std::string("missing ") + field, drop(std::string("/") + field), field});
  c.push_back({"format 1", set("/format", 1), "format"});
  c.push_back({"format 3", set("/format", 3), "format"});
  c.push_back({"format 2.5", set("/format", 2.5), "format"});
  c.push_back({"format as text", set("/format", "2"), "format"});
  c.push_back({"name as a number", set("/name", 7), "name"});
  c.push_back({"device tpu", set("/device", "tpu"), "device"});
  c.push_back({"host profile for cuda", [](json&) {}, "device", "cuda"});
  c.push_back({"host profile for hip", [](json&) {}, "device", "hip"});
  c.push_back({"cuda profile for host", set("/device", "cuda"), "device", "host"});
  c.push_back({"overlap negative", set("/overlap", -0.1), "overlap"});
  c.push_back({"overlap above one", set("/overlap", 1.5), "overlap"});
  c.push_back({"rates empty", set("/rates", json::array()), "rates"});
  c.push_back({"rates an object", set("/rates", json::object()), "rates"});
  c.push_back({"rates[0] a number", set("/rates/0", 1), "rates[0]."});

  // Numbers: negative, NaN (JSON has none: a string "nan"), out of a double's
  // range (1e400), and zero where a rate must be positive.
  struct Number {
    std::string pointer, field;
    bool zero_allowed;
  };
  const Number numbers[] = {
      {"/rates/0/program_us", "rates[0].program_us", true},
      {"/rates/0/kernel_us", "rates[0].kernel_us", true},
      {"/rates/1/kernel_us", "rates[1].kernel_us", true},
      {"/rates/0/dispatch_us", "rates[0].dispatch_us", true},
      {"/rates/1/dispatch_us", "rates[1].dispatch_us", true},
      {"/rates/0/op_ns/exp", "rates[0].op_ns.exp", false},
      {"/rates/1/op_ns/default", "rates[1].op_ns.default", false},
      {"/rates/0/reduce_outer_ns", "rates[0].reduce_outer_ns", false},
      {"/rates/0/matmul/3/gflops", "rates[0].matmul[3].gflops", false},
      {"/rates/1/matmul/0/m", "rates[1].matmul[0].m", false},
      {"/rates/0/threads", "rates[0].threads", false},
  };
  for (const Number& n : numbers) {
    c.push_back({n.field + " negative", set(n.pointer, -1.5), n.field});
    c.push_back({n.field + " \"nan\"", set(n.pointer, "nan"), n.field});
    c.push_back({n.field + " null", set(n.pointer, nullptr), n.field});
    c.push_back({n.field + " 1e400", set(n.pointer, raw("1e400")), n.field});
    c.push_back({n.field + " -1e400", set(n.pointer, raw("-1e400")), n.field});
    if (!n.zero_allowed) c.push_back({n.field + " zero", set(n.pointer, 0), n.field});
  }
  c.push_back({"op_ns without default", drop("/rates/0/op_ns/default"), "rates[0].op_ns.default"});
  c.push_back({"op_ns empty", set("/rates/0/op_ns", json::object()), "rates[0].op_ns"});
  c.push_back({"threads 1.5", set("/rates/0/threads", 1.5), "rates[0].threads"});
  c.push_back({"matmul m 2.5", set("/rates/0/matmul/0/m", 2.5), "rates[0].matmul[0].m"});
  c.push_back({"matmul k 1e300", set("/rates/0/matmul/0/k", 1e300), "rates[0].matmul[0].k"});
  c.push_back({"matmul empty", set("/rates/0/matmul", json::array()), "rates[0].matmul"});

  // Curves: points are [size, ns]; sizes increase.
  for (const char* curve : {"read/strided", "read/contiguous", "write", "reduce_inner"}) {
    std::string name = curve;
    std::replace(name.begin(), name.end(), '/', '.');
    const std::string pointer = std::string("/rates/0/") + curve, point = "rates[0]." + name + "[1]";
    c.push_back({point + " ns negative", set(pointer + "/1/1", -0.5), point});
    c.push_back({point + " ns zero", set(pointer + "/1/1", 0), point});
    c.push_back({point + " ns \"nan\"", set(pointer + "/1/1", "nan"), point});
    c.push_back({point + " size zero", set(pointer + "/1/0", 0), point});
    c.push_back({point + " size negative", set(pointer + "/1/0", -4096), point});
    c.push_back({point + " one number", set(pointer + "/1", json::array({4096})), point});
    c.push_back({point + " not a pair", set(pointer + "/1", 3), point});
    c.push_back({point + " size repeated", [pointer](json& j) {
                   json& points = j[json::json_pointer(pointer)];
                   points[1][0] = points[0][0];
                 },
                 point});
    c.push_back({point + " sizes decreasing", [pointer](json& j) {
                   json& points = j[json::json_pointer(pointer)];
                   std::swap(points[0], points[1]);
                 },
                 point});
    c.push_back({name + " empty", set(pointer, json::array()), "rates[0]." + name});
  }
  // A number out of range inside a point: named down to the element.
  c.push_back({"strided[1] ns 1e400", set("/rates/0/read/strided/1/1", raw("1e400")), "rates[0].read.strided[1][1]"});
  c.push_back({"missing read.gather", drop("/rates/0/read/gather"), "rates[0].read.gather"});
  c.push_back({"missing rates[1].write", drop("/rates/1/write"), "rates[1].write"});

  // Thread counts must increase.
  c.push_back({"threads repeated", set("/rates/1/threads", 1), "rates[1].threads"});
  c.push_back({"threads decreasing", [](json& j) { std::swap(j["rates"][0], j["rates"][1]); }, "rates[1].threads"});
  return c;
}

// A profile measured before indirect reads existed (issue 32) has no curve for
// them: its gathers' curve prices them.
TEST(DeviceProfile, AProfileWithoutAnIndirectCurvePricesIndirectReadsAsGathers) {
  json j = shipped_json();
  for (json& rates : j["rates"]) rates["read"].erase("indirect");
  const DeviceProfile p = parse_profile(j.dump(), "old.json", "host");
  for (const ThreadRates& r : p.rates) {
    const Curve& indirect = r.read[static_cast<int>(AccessKind::kIndirect)];
    const Curve& gather = r.read[static_cast<int>(AccessKind::kGather)];
    ASSERT_EQ(indirect.size(), gather.size());
    for (size_t k = 0; k < gather.size(); ++k) EXPECT_EQ(indirect[k].ns, gather[k].ns);
  }
  j["rates"][0]["read"]["indirect"] = json::array({json::array({4096, 0.5}), json::array({8192, 0.25})});
  const DeviceProfile measured = parse_profile(j.dump(), "new.json", "host");
  EXPECT_EQ(measured.rates[0].read[static_cast<int>(AccessKind::kIndirect)].back().ns, 0.25);
}

TEST(DeviceProfile, EveryCorruptionIsRejectedNamingItsField) {
  const json good = shipped_json();
  ASSERT_GE(good["rates"].size(), 2u) << "the table edits rates[0] and rates[1]";
  ASSERT_EQ(rejection(dump_with_raw(good)), "");
  ASSERT_EQ(rejection(dump_with_raw(good), "host"), "");
  for (const Corruption& c : corruptions()) {
    SCOPED_TRACE(c.what);
    json j = good;
    c.edit(j);
    const std::string error = rejection(dump_with_raw(j), c.expected_device);
    ASSERT_NE(error, "") << "accepted";
    EXPECT_EQ(error.rfind("p.json: ", 0), 0u) << error;
    // The field, exactly: 'rates[0].read.strided[1]' is not 'rates[0].read.strided[10]'.
    const std::string quoted = c.field.back() == '.' ? "'" + c.field : "'" + c.field + "'";
    EXPECT_NE(error.find(quoted), std::string::npos) << error;
  }
}

TEST(DeviceProfile, TheErrorSaysWhatIsWrong) {
  json j = shipped_json();
  auto error = [&](const std::function<void(json&)>& edit, const std::string& device = "") {
    json copy = j;
    edit(copy);
    return rejection(dump_with_raw(copy), device);
  };
  EXPECT_NE(error(drop("/cpu")).find("'cpu' is missing"), std::string::npos);
  EXPECT_NE(error(set("/format", 1)).find("'format' is 1, this smelt reads format 2"), std::string::npos)
      << error(set("/format", 1));
  EXPECT_NE(error(set("/format", 2.5)).find("'format' is 2.5"), std::string::npos) << error(set("/format", 2.5));
  EXPECT_NE(error(set("/device", "tpu")).find("not \"tpu\""), std::string::npos);
  EXPECT_NE(error([](json&) {}, "cuda").find("is \"host\" but the target is \"cuda\""), std::string::npos)
      << error([](json&) {}, "cuda");
  EXPECT_NE(error(set("/rates/0/kernel_us", -1)).find("must be >= 0"), std::string::npos);
  EXPECT_NE(error(set("/rates/0/op_ns/exp", 0)).find("must be > 0"), std::string::npos);
  EXPECT_NE(error(set("/rates/0/op_ns/exp", "nan")).find("must be a number"), std::string::npos);
  EXPECT_NE(error(set("/rates/0/op_ns/exp", raw("1e400"))).find("must be finite"), std::string::npos)
      << error(set("/rates/0/op_ns/exp", raw("1e400")));
  EXPECT_NE(error(set("/rates/1/threads", 1)).find("must increase"), std::string::npos);
}

// Zero fixed costs are measurements, not corruption: one thread dispatches
// nothing (the shipped profile says 0), and a kernel_us below the clock's
// resolution rounds to 0.
TEST(DeviceProfile, ZeroFixedCostsAndZeroOverlapAreAccepted) {
  json j = shipped_json();
  j["overlap"] = 0;
  for (json& r : j["rates"]) r["program_us"] = 0, r["kernel_us"] = 0, r["dispatch_us"] = 0, r["row_ns"] = 0;
  const DeviceProfile p = parse_profile(j.dump());
  EXPECT_EQ(p.rates.back().dispatch_us, 0);
  EXPECT_EQ(p.rates.front().kernel_us, 0);
  // 1e-400 is a number nlohmann rounds to 0: a rate that must be positive rejects it.
  j = shipped_json();
  j["rates"][0]["op_ns"]["exp"] = raw("1e-400");
  EXPECT_NE(rejection(dump_with_raw(j)).find("'rates[0].op_ns.exp' must be > 0"), std::string::npos)
      << rejection(dump_with_raw(j));
}

// Extra fields (the samples and validation `smelt calibrate` writes) are ignored.
TEST(DeviceProfile, UnknownFieldsAreIgnored) {
  json j = shipped_json();
  j["samples"] = json::array({1, 2, 3});
  j["rates"][0]["comment"] = "measured on a quiet machine";
  EXPECT_EQ(rejection(j.dump()), "");
}

// A profile measured before group_factor_constant_b existed costs constant-B
// groups as the others.
TEST(DeviceProfile, AProfileWithoutTheConstantBGroupFactorUsesTheGroupFactor) {
  json j = shipped_json();
  for (json& rates : j["rates"]) {
    rates["group_factor"] = 0.875;
    rates.erase("group_factor_constant_b");
  }
  const DeviceProfile p = parse_profile(j.dump());
  for (const ThreadRates& r : p.rates) EXPECT_EQ(r.group_factor_constant_b, 0.875);
  j["rates"][0]["group_factor_constant_b"] = 0.5;
  EXPECT_EQ(parse_profile(j.dump()).rates[0].group_factor_constant_b, 0.5);
}

// A contraction group is costed with group_factor_constant_b when its B
// sides read constants (packed once), with group_factor when they are inputs.
// A group whose B is packed once (constant weights), or packed per call but
// small enough to stay in L2 (<= 1 MiB), is priced with group_factor_constant_b;
// one streaming more B per call with group_factor.
TEST(DeviceProfile, AGroupWithConstantWeightsUsesItsOwnFactor) {
  auto group = [](bool constant_b, int64_t width) {
    ir::Graph g("group");
    auto a = ir::input(g, "a", DType::F32, {64, 256});
    std::vector<double> v1(static_cast<size_t>(256 * width)), v2(v1.size());  // not splats: those become immediates
    for (size_t i = 0; i < v1.size(); ++i) {
      v1[i] = static_cast<double>(i % 7);
      v2[i] = static_cast<double>(i % 5);
    }
    auto w1 = constant_b ? ir::constant(g, v1, DType::F32, {256, width}) : ir::input(g, "w1", DType::F32, {256, width});
    auto w2 = constant_b ? ir::constant(g, v2, DType::F32, {256, width}) : ir::input(g, "w2", DType::F32, {256, width});
    g.add_output(ir::mul(ir::matmul(a, w1), ir::matmul(a, w2)));
    return fusion::kernelize(g, fusion::materialize_outputs(g)).program;
  };
  DeviceProfile p = default_host_profile().for_threads(1);
  for (ThreadRates& r : p.rates) {
    r.group_factor = 1;
    r.group_factor_constant_b = 1;
  }
  struct Case {
    bool constant_b;
    int64_t width;
    bool own_factor;  // priced with group_factor_constant_b
  };
  for (const Case& c : {Case{false, 1024, false}, Case{true, 1024, true}, Case{false, 128, true}}) {
    SCOPED_TRACE(std::string(c.constant_b ? "constant" : "input") + " B of width " + std::to_string(c.width));
    const kernel::KernelProgram program = group(c.constant_b, c.width);
    ASSERT_EQ(program.kernels.size(), 1u) << kernel::print_program(program);
    const double base = predict(program, program.kernels[0], p).compute_us;
    DeviceProfile halved = p;
    for (ThreadRates& r : halved.rates) (c.own_factor ? r.group_factor_constant_b : r.group_factor) = 0.5;
    const double with = predict(program, program.kernels[0], halved).compute_us;
    EXPECT_LT(with, 0.6 * base);
    DeviceProfile other = p;
    for (ThreadRates& r : other.rates) (c.own_factor ? r.group_factor : r.group_factor_constant_b) = 0.5;
    EXPECT_DOUBLE_EQ(predict(program, program.kernels[0], other).compute_us, base);
  }
}

// A product whose B is a constant (a model's weights, packed once by the
// tiled kernel) is priced at matmul_constant_b's rates where the profile has
// them: with one row too (its A reads no row variable; the check before these
// rates took it for a B side and priced a decode step at packed-per-call
// rates, 4x its time), and never a product of an input B. The points survive
// the JSON; a profile without them prices every product at `matmul`.
TEST(DeviceProfile, AProductOfConstantWeightsIsPricedAtTheRatesMeasuredWithBPackedOnce) {
  auto product = [](int64_t m, bool constant_b) {
    ir::Graph g("product");
    auto a = ir::input(g, "a", DType::F32, {m, 256});
    std::vector<double> v(256 * 512);  // not a splat: that would become an immediate
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i % 7);
    auto w = constant_b ? ir::constant(g, v, DType::F32, {256, 512}) : ir::input(g, "w", DType::F32, {256, 512});
    g.add_output(ir::matmul(a, w));
    return fusion::kernelize(g, fusion::materialize_outputs(g)).program;
  };
  DeviceProfile plain = default_host_profile().for_threads(1);
  for (ThreadRates& r : plain.rates) r.matmul_constant_b.clear();  // as a profile measured before the points
  DeviceProfile packed_once = plain;
  for (ThreadRates& r : packed_once.rates) r.matmul_constant_b = {{1, 1, 256, 256, 1000.0}};  // 1 flop/ps
  for (int64_t m : {int64_t{1}, int64_t{128}})
    for (bool constant_b : {true, false}) {
      SCOPED_TRACE(std::to_string(m) + (constant_b ? " rows, constant B" : " rows, input B"));
      const kernel::KernelProgram program = product(m, constant_b);
      ASSERT_EQ(program.kernels.size(), 1u) << kernel::print_program(program);
      const double at_matmul = predict(program, program.kernels[0], plain).compute_us;
      const double priced = predict(program, program.kernels[0], packed_once).compute_us;
      if (constant_b) {
        EXPECT_NEAR(priced, 2.0 * static_cast<double>(m) * 256 * 512 / 1000 / 1000, 1e-9);
        EXPECT_NE(priced, at_matmul);
      } else {
        EXPECT_EQ(priced, at_matmul);
      }
    }
  const DeviceProfile back = parse_profile(profile_to_json(packed_once), "p.json");
  ASSERT_EQ(back.rates[0].matmul_constant_b.size(), 1u);
  EXPECT_EQ(back.rates[0].matmul_constant_b[0].gflops, 1000.0);
}

// A depthwise convolution is a contraction no tiled kernel takes: with a
// measured loop_contraction curve it is priced per step of its loop (the
// curve read at its steps per output); without one, at matmul rates as before.
TEST(DeviceProfile, AContractionNoTiledKernelTakesIsPricedPerStepOfItsLoop) {
  ir::Graph g("depthwise");
  auto x = ir::input(g, "x", DType::F32, {1, 16, 20, 20});
  auto w = ir::input(g, "w", DType::F32, {16, 1, 5, 5});
  g.add_output(ir::conv(x, w, {{1, 1}, {1, 1}, {2, 2}, {2, 2}, 16}));
  const kernel::KernelProgram program = fusion::kernelize(g, fusion::materialize_outputs(g)).program;
  ASSERT_EQ(program.kernels.size(), 1u) << kernel::print_program(program);
  DeviceProfile p = default_host_profile().for_threads(1);
  for (ThreadRates& r : p.rates) {  // as a profile measured before the curves
    r.loop_contraction.clear();
    r.loop_contraction_row_factor.clear();  // 20-wide rows: this would add its factor to the steps
    r.loop_epilogue_row_factor.clear();
  }
  const double at_matmul_rates = predict(program, program.kernels[0], p).compute_us;
  const double steps = 16.0 * 20 * 20 * 25;
  for (ThreadRates& r : p.rates) r.loop_contraction = {{9, 1.0}, {25, 2.0}};
  const double looped = predict(program, program.kernels[0], p).compute_us;
  EXPECT_GE(looped, steps * 2.0 / 1000) << "25 steps an output at 2 ns each";
  EXPECT_LT(looped, steps * 2.0 / 1000 * 1.2) << "and little else";
  EXPECT_NE(looped, at_matmul_rates);
  // The curve survives the JSON.
  EXPECT_EQ(parse_profile(profile_to_json(p), "p.json").rates[0].loop_contraction.size(), 2u);
}

// A 3x3 convolution on the host is priced at the profile's convolution rates
// (timed whole: they hold the window packing) with nothing added for its
// windows; without them, at matmul rates plus window_pack_ns per window
// element. Either way its masked window loads are not charged again as
// prologue nodes (they were: 449 us priced against 356 measured).
TEST(DeviceProfile, AConvolutionIsPricedAtItsMeasuredRatesAndItsWindowsOnce) {
  ir::Graph g("conv3x3");
  auto x = ir::input(g, "x", DType::F32, {1, 32, 28, 28});
  auto w = ir::input(g, "w", DType::F32, {32, 32, 3, 3});
  g.add_output(ir::conv(x, w, {{1, 1}, {1, 1}, {1, 1}, {1, 1}, 1}));
  const kernel::KernelProgram program = fusion::kernelize(g, fusion::materialize_outputs(g)).program;
  ASSERT_EQ(program.kernels.size(), 1u) << kernel::print_program(program);
  const kernel::Kernel& k = program.kernels[0];
  DeviceProfile p = default_host_profile().for_threads(1);
  for (ThreadRates& r : p.rates) {
    r.conv = {{1, 32, 784, 288, 50.0}};
    r.window_pack_ns = 5.0;
    r.prologue_ns = 5.0;
  }
  const double flops = 2.0 * 32 * 784 * 288;
  EXPECT_NEAR(predict(program, k, p).compute_us, flops / 50.0 / 1000, 1e-6 * flops / 50.0 / 1000);
  for (ThreadRates& r : p.rates) r.conv.clear();  // a profile measured before them
  const ThreadRates& r = p.at(1);
  const double windows = window_elements(k);
  ASSERT_EQ(windows, 288.0 * 784);
  // The host's micro-kernel computes tiles of 32 columns: 784 columns as 800.
  const double product_ns = flops / (matmul_gflops(r.matmul, 1, 32, 784, 288) * 784.0 / 800.0);
  EXPECT_NEAR(predict(program, k, p).compute_us, (product_ns + windows * 5.0) / 1000, 1e-6 * product_ns / 1000);
  // The rates survive the JSON.
  for (ThreadRates& t : p.rates) t.conv = {{1, 32, 784, 288, 50.0}, {1, 128, 784, 1152, 70.0}};
  EXPECT_EQ(parse_profile(profile_to_json(p), "p.json").rates[0].conv.size(), 2u);

  // A 1x1 convolution at stride 2 reads windows of one element: its B is a
  // strided matrix, priced at matmul rates (the convolution rates, measured
  // on 3x3 windows, priced one at 1.33-1.55x its time).
  ir::Graph g1("conv1x1_stride2");
  auto x1 = ir::input(g1, "x", DType::F32, {1, 32, 28, 28});
  auto w1 = ir::input(g1, "w", DType::F32, {64, 32, 1, 1});
  g1.add_output(ir::conv(x1, w1, {{2, 2}, {1, 1}, {0, 0}, {0, 0}, 1}));
  const kernel::KernelProgram strided = fusion::kernelize(g1, fusion::materialize_outputs(g1)).program;
  ASSERT_EQ(strided.kernels.size(), 1u) << kernel::print_program(strided);
  const kernel::Kernel& k1 = strided.kernels[0];
  const std::optional<kernel::ContractionGroup> group1 = kernel::match_contraction_group(k1);
  ASSERT_TRUE(group1 && group1->columns.size() == 2) << kernel::print_program(strided);
  EXPECT_FALSE(kernel::b_windows_overlap(k1, *group1));
  EXPECT_TRUE(kernel::b_windows_overlap(k, *kernel::match_contraction_group(k)));
  const double flops1 = 2.0 * 64 * 196 * 32;
  // 196 columns as 224: tiles of 32.
  const double product1_ns = flops1 / (matmul_gflops(r.matmul, 1, 64, 196, 32) * 196.0 / 224.0);
  EXPECT_NEAR(predict(strided, k1, p).compute_us, (product1_ns + window_elements(k1) * 5.0) / 1000, 1e-6 * product1_ns / 1000);
}

// Rows narrower than a vector: a looped contraction's steps and its
// epilogue's ops that vary along the row are priced with the profile's factors
// by the row's width; a plain row loop's are not. Wide rows read the factors at
// their width; the curves survive the JSON.
TEST(DeviceProfile, NarrowRowsArePricedWithTheFactorsMeasuredByRowWidth) {
  auto depthwise_silu = [](int64_t side) {
    ir::Graph g("depthwise_silu");
    auto x = ir::input(g, "x", DType::F32, {1, 64, side, side});
    auto w = ir::input(g, "w", DType::F32, {64, 1, 3, 3});
    auto c = ir::conv(x, w, {{1, 1}, {1, 1}, {1, 1}, {1, 1}, 64});
    g.add_output(ir::mul(c, ir::sigmoid(c)));
    return fusion::kernelize(g, fusion::materialize_outputs(g)).program;
  };
  DeviceProfile p = default_host_profile().for_threads(1);
  for (ThreadRates& r : p.rates) {
    r.loop_contraction_row_factor.clear();  // as a profile measured before the curves
    r.loop_epilogue_row_factor.clear();
    r.loop_contraction = {{9, 1.0}};
    r.op_ns["sigmoid"] = 2.0;
    r.op_ns["mul"] = 0.5;
    r.op_ns["exp"] = 1.5;
  }
  DeviceProfile narrow = p;
  for (ThreadRates& r : narrow.rates) {
    r.loop_contraction_row_factor = {{7, 3.0}, {28, 1.0}};
    r.loop_epilogue_row_factor = {{7, 5.0}, {1024, 1.0}};
  }
  for (int64_t side : {int64_t{7}, int64_t{28}}) {
    SCOPED_TRACE(std::to_string(side) + "x" + std::to_string(side));
    const kernel::KernelProgram program = depthwise_silu(side);
    ASSERT_EQ(program.kernels.size(), 1u) << kernel::print_program(program);
    const double elements = 64.0 * side * side;
    const double extra = predict(program, program.kernels[0], narrow).compute_us -
                         predict(program, program.kernels[0], p).compute_us;
    const double steps_extra = (side == 7 ? 2.0 : 0.0) * elements * 9 * 1.0 / 1000;
    const double row_factor = side == 7 ? 5.0 : 1.0 + (5.0 - 1.0) * (1 - std::log(28.0 / 7) / std::log(1024.0 / 7));
    const double ops_extra = (row_factor - 1) * elements * (2.0 + 0.5) / 1000;  // sigmoid, mul
    EXPECT_NEAR(extra, steps_extra + ops_extra, 1e-3 * (steps_extra + ops_extra) + 1e-9);
  }
  // A plain row loop's ops are not scaled (its short rows merge where they
  // can: a squeeze-excite's scale over rows of 7 x 3, merged into 21).
  ir::Graph se("se_scale");
  auto x = ir::input(se, "x", DType::F32, {1, 64, 7, 3});
  auto s = ir::input(se, "s", DType::F32, {1, 64, 1, 1});
  se.add_output(ir::mul(ir::broadcast(ir::sigmoid(s), {1, 64, 7, 3}), ir::exp(x)));
  const kernel::KernelProgram program = fusion::kernelize(se, fusion::materialize_outputs(se)).program;
  ASSERT_EQ(program.kernels.size(), 1u);
  ASSERT_EQ(program.kernels[0].space, (ir::Shape{1, 64, 21}));
  EXPECT_EQ(predict(program, program.kernels[0], narrow).compute_us, predict(program, program.kernels[0], p).compute_us);
  const DeviceProfile back = parse_profile(profile_to_json(narrow), "p.json");
  EXPECT_EQ(back.rates[0].loop_contraction_row_factor.size(), 2u);
  EXPECT_EQ(back.rates[0].loop_epilogue_row_factor.size(), 2u);
}

// A looped contraction whose taps read every other element of a row (a
// stride-2 depthwise convolution) is priced with the stride-2 factors where
// the profile has them, with the stride-1 ones where it has not; a stride-1
// one never reads the stride-2 curve.
TEST(DeviceProfile, StrideTwoTapsArePricedWithTheirOwnRowFactors) {
  auto depthwise = [](int64_t stride) {
    ir::Graph g("depthwise");
    auto x = ir::input(g, "x", DType::F32, {1, 64, 14 * stride, 14 * stride});
    auto w = ir::input(g, "w", DType::F32, {64, 1, 3, 3});
    g.add_output(ir::conv(x, w, {{stride, stride}, {1, 1}, {1, 1}, {1, 1}, 64}));
    return fusion::kernelize(g, fusion::materialize_outputs(g)).program;
  };
  DeviceProfile p = default_host_profile().for_threads(1);
  for (ThreadRates& r : p.rates) {
    r.loop_contraction = {{9, 1.0}};
    r.loop_contraction_row_factor = {{7, 2.0}, {28, 1.0}};
    r.loop_contraction_strided_row_factor.clear();
  }
  DeviceProfile strided = p;
  for (ThreadRates& r : strided.rates) r.loop_contraction_strided_row_factor = {{7, 8.0}, {14, 6.0}, {28, 4.0}};
  const kernel::KernelProgram one = depthwise(1), two = depthwise(2);
  ASSERT_EQ(one.kernels.size(), 1u);
  ASSERT_EQ(two.kernels.size(), 1u) << kernel::print_program(two);
  const double steps = 64.0 * 14 * 14 * 9;
  const double stride1_factor = 2.0 + (1.0 - 2.0) * std::log(2.0) / std::log(4.0);  // rows of 14
  EXPECT_NEAR(predict(two, two.kernels[0], strided).compute_us - predict(two, two.kernels[0], p).compute_us,
              steps * (6.0 - stride1_factor) / 1000, 1e-6 * steps);
  EXPECT_EQ(predict(one, one.kernels[0], strided).compute_us, predict(one, one.kernels[0], p).compute_us);
  const DeviceProfile back = parse_profile(profile_to_json(strided), "p.json");
  EXPECT_EQ(back.rates[0].loop_contraction_strided_row_factor.size(), 3u);
}

// Every number anywhere in the profile, made negative or too large for a
// double, is rejected naming where it is; every required field removed is
// rejected naming it. (Generated from the profile itself, so a field added to
// the format is covered without editing this test.)
struct Leaf {
  json::json_pointer pointer;
  std::string path;   // the validator's spelling of the field
  std::string point;  // for a curve's [size, ns] element: the point's path
};

// Fields a profile measured before they existed lacks; each loads without
// them (the pricing tests above say what stands in: group_factor for
// group_factor_constant_b, 0 for window_pack_ns, the gather curve for
// read.indirect, matmul rates for matmul_constant_b, and so on).
bool is_optional_field(const json::json_pointer& parent, const std::string& key) {
  static const std::set<std::string> kOptional = {
      "group_factor_constant_b",     "window_pack_ns",           "loop_contraction",
      "loop_contraction_row_factor", "loop_epilogue_row_factor", "read_aliasing_size_factor",
      "matmul_constant_b",           "tensor_core_matmul",       "fill",
      "conv",                        "loop_contraction_strided_row_factor"};
  if (!parent.empty() && parent.back() == "op_ns") return key != "default";  // unmeasured ops cost the default
  if (!parent.empty() && parent.back() == "read") return key == "indirect";
  return kOptional.count(key) > 0;
}

void collect(const json& j, const json::json_pointer& pointer, const std::string& path, std::vector<Leaf>& leaves,
             std::vector<Leaf>& fields, std::vector<Leaf>& optional_fields) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string child = path.empty() ? it.key() : path + "." + it.key();
      (is_optional_field(pointer, it.key()) ? optional_fields : fields).push_back({pointer / it.key(), child, ""});
      collect(*it, pointer / it.key(), child, leaves, fields, optional_fields);
    }
  } else if (j.is_array()) {
    const bool point = j.size() == 2 && j[0].is_number() && j[1].is_number();
    for (size_t i = 0; i < j.size(); ++i) {
      const std::string child = path + "[" + std::to_string(i) + "]";
      if (point) {
        leaves.push_back({pointer / i, child, path});
      } else {
        collect(j[i], pointer / i, child, leaves, fields, optional_fields);
      }
    }
  } else if (j.is_number()) {
    leaves.push_back({pointer, path, ""});
  }
}

TEST(DeviceProfile, EveryNumberAndEveryFieldIsValidated) {
  const json good = shipped_json();
  std::vector<Leaf> leaves, fields, optional_fields;
  collect(good, json::json_pointer(), "", leaves, fields, optional_fields);
  ASSERT_GT(leaves.size(), 100u);
  for (const Leaf& leaf : leaves) {
    SCOPED_TRACE(leaf.path);
    const std::string named = leaf.point.empty() ? leaf.path : leaf.point;
    for (const json& value : {json(-2.0), json("nan"), raw("1e400")}) {
      json j = good;
      j[leaf.pointer] = value;
      const std::string error = rejection(dump_with_raw(j));
      ASSERT_NE(error, "") << "accepted " << value;
      // 1e400 stops the JSON parser itself, which names the element inside a point.
      EXPECT_TRUE(error.find("'" + named + "'") != std::string::npos ||
                  error.find("'" + named + "[") != std::string::npos)
          << value << ": " << error;
    }
  }
  for (const Leaf& field : fields) {
    SCOPED_TRACE(field.path);
    json j = good;
    j[field.pointer.parent_pointer()].erase(field.pointer.back());
    const std::string error = rejection(j.dump());
    ASSERT_NE(error, "") << "accepted without it";
    EXPECT_NE(error.find("'" + field.path + "' is missing"), std::string::npos) << error;
  }
  for (const Leaf& field : optional_fields) {
    SCOPED_TRACE(field.path);
    json j = good;
    j[field.pointer.parent_pointer()].erase(field.pointer.back());
    EXPECT_EQ(rejection(j.dump()), "") << "an optional field removed";
  }
}

TEST(DeviceProfile, TextThatIsNotAProfileObjectIsRejected) {
  const std::pair<const char*, const char*> cases[] = {
      {"{", "not JSON"},     {"", "not JSON"},         {"profile", "not JSON"}, {"{\"format\": 2,}", "not JSON"},
      {"[]", "JSON object"}, {"[{}]", "JSON object"}, {"2", "JSON object"},    {"\"host\"", "JSON object"},
      {"{}", "'format'"},    {"null", "JSON object"},
  };
  for (auto [text, fragment] : cases) {
    const std::string error = rejection(text);
    EXPECT_EQ(error.rfind("p.json: ", 0), 0u) << text << ": " << error;
    EXPECT_NE(error.find(fragment), std::string::npos) << text << ": " << error;
  }
}

TEST(DeviceProfile, LoadingAMissingFileNamesThePath) {
  const std::string path = "/nonexistent/smelt/profile.json";
  try {
    load_profile(path);
    ADD_FAILURE() << "loaded " << path;
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  // A file that exists but is corrupt: named by its path.
  const std::filesystem::path file = std::filesystem::temp_directory_path() /
                                     ("smelt_cost_test_" + std::to_string(::getpid()) + ".json");
  {
    json j = shipped_json();
    j["rates"][0]["op_ns"]["exp"] = -1;
    std::ofstream(file) << j.dump();
  }
  try {
    load_profile(file.string());
    ADD_FAILURE() << "loaded a corrupt profile";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(file.string() + ": ", 0), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("'rates[0].op_ns.exp'"), std::string::npos) << e.what();
  }
  // And a host profile loaded for another device.
  std::ofstream(file) << profile_to_json(default_host_profile());
  EXPECT_NO_THROW(load_profile(file.string(), "host"));
  EXPECT_THROW(load_profile(file.string(), "cuda"), std::runtime_error);
  std::filesystem::remove(file);
}

// ---------------------------------------------------------------------------
// Load classification of lowered kernels

// The kind of the load of `x` in the single kernel of `g` fused.
AccessKind kind_of_load(const ir::Graph& g, const ir::Tensor& x, bool inside_reduction = false) {
  const fusion::Kernelization l = fusion::kernelize(g, fusion::materialize_outputs(g));
  EXPECT_EQ(l.program.kernels.size(), 1u) << kernel::print_program(l.program);
  const kernel::Kernel& k = l.program.kernels.at(0);
  const int buffer = l.buffer_of.at(static_cast<size_t>(x.id));
  for (const kernel::KernelExpr& e : k.exprs)
    if (e.kind == kernel::KernelExpr::Kind::kLoad && e.buffer == buffer)
      return classify_load(k, e, inside_reduction, l.program.buffers.at(static_cast<size_t>(buffer)).type.shape);
  ADD_FAILURE() << "no load of buffer " << buffer << "\n" << kernel::print_program(l.program);
  return AccessKind::kContiguous;
}

TEST(ClassifyLoad, Contiguous) {
  ir::Graph g("g");
  ir::Tensor x = ir::input(g, "x", DType::F32, {8, 16});
  g.add_output(ir::exp(x));
  EXPECT_EQ(kind_of_load(g, x), AccessKind::kContiguous);
}

TEST(ClassifyLoad, APermuteIsStrided) {
  ir::Graph g("g");
  ir::Tensor x = ir::input(g, "x", DType::F32, {16, 8});
  g.add_output(ir::exp(ir::permute(x, {1, 0})));
  EXPECT_EQ(kind_of_load(g, x), AccessKind::kStrided);
}

// reshape(permute(x)): the flat index is split again by floor-div and mod of
// the innermost variable.
TEST(ClassifyLoad, AReshapeOfAPermuteIsAGather) {
  ir::Graph g("g");
  ir::Tensor x = ir::input(g, "x", DType::F32, {4, 6});
  g.add_output(ir::exp(ir::reshape(ir::permute(x, {1, 0}), {24})));
  EXPECT_EQ(kind_of_load(g, x), AccessKind::kGather);
  ir::Graph g2("g2");
  ir::Tensor y = ir::input(g2, "y", DType::F32, {2, 4, 6});
  g2.add_output(ir::exp(ir::reshape(ir::permute(y, {0, 2, 1}), {2, 24})));
  EXPECT_EQ(kind_of_load(g2, y), AccessKind::kGather);
}

// A flattened view, x[i, j floordiv 4, j mod 4] with x's last extent 4, reads
// element j of the pair: contiguous. Over a slice (last extent 5) it is not.
TEST(ClassifyLoad, AFlattenedViewIsContiguous) {
  ir::Graph g("g");
  ir::Tensor x = ir::input(g, "x", DType::F32, {2, 3, 4});
  g.add_output(ir::exp(ir::reshape(x, {2, 12})));
  EXPECT_EQ(kind_of_load(g, x), AccessKind::kContiguous);
  ir::Graph g2("g2");
  ir::Tensor y = ir::input(g2, "y", DType::F32, {2, 3, 5});
  g2.add_output(ir::exp(ir::reshape(ir::slice_axis(y, 2, 0, 4), {2, 12})));
  EXPECT_EQ(kind_of_load(g2, y), AccessKind::kGather);
}

// A gather's table: read at one loaded id per row (an embedding lookup), a row
// is read in order; read at an id loaded anew along the row, every element is
// an indirect read.
TEST(ClassifyLoad, AnEmbeddingRowIsReadInOrderAnIndexPerElementIsAnIndirectRead) {
  ir::Graph g("g");
  ir::Tensor table = ir::input(g, "table", DType::F32, {50, 16});
  ir::Tensor ids = ir::input(g, "ids", DType::I64, {8});
  ir::Tensor rows = ir::gather(ir::broadcast(ir::reshape(table, {1, 50, 16}), {8, 50, 16}),
                               ir::broadcast(ir::reshape(ids, {8, 1, 1}), {8, 1, 16}), 1);
  g.add_output(ir::exp(rows));
  EXPECT_EQ(kind_of_load(g, table), AccessKind::kMasked);  // the id's range is its mask
  ir::Graph g2("g2");
  ir::Tensor x = ir::input(g2, "x", DType::F32, {8, 16});
  ir::Tensor at = ir::input(g2, "at", DType::I32, {8, 16});
  g2.add_output(ir::exp(ir::gather(x, at, 1)));
  EXPECT_EQ(kind_of_load(g2, x), AccessKind::kIndirect);
}

TEST(ClassifyLoad, ABroadcastColumnIsABroadcast) {
  ir::Graph g("g");
  ir::Tensor x = ir::input(g, "x", DType::F32, {8, 16});
  ir::Tensor col = ir::input(g, "col", DType::F32, {8, 1});
  g.add_output(ir::add(x, ir::broadcast(col, {8, 16})));
  EXPECT_EQ(kind_of_load(g, col), AccessKind::kBroadcast);
  EXPECT_EQ(kind_of_load(g, x), AccessKind::kContiguous);
  // A broadcast row moves with the innermost variable: contiguous.
  ir::Graph g2("g2");
  ir::Tensor row = ir::input(g2, "row", DType::F32, {16});
  g2.add_output(ir::exp(ir::broadcast(row, {8, 16})));
  EXPECT_EQ(kind_of_load(g2, row), AccessKind::kContiguous);
}

TEST(ClassifyLoad, APadIsMasked) {
  ir::Graph g("g");
  ir::Tensor x = ir::input(g, "x", DType::F32, {8, 16});
  g.add_output(ir::exp(ir::pad(x, {0, 1}, {0, 1})));
  EXPECT_EQ(kind_of_load(g, x), AccessKind::kMasked);
}

// Inside a reduction the innermost variable is the reduced one.
TEST(ClassifyLoad, InsideAReductionTheReducedAxisDecides) {
  ir::Graph inner("inner");
  ir::Tensor x = ir::input(inner, "x", DType::F32, {8, 16});
  inner.add_output(ir::reduce_sum(x, {1}));
  EXPECT_EQ(kind_of_load(inner, x, true), AccessKind::kContiguous);
  ir::Graph outer("outer");
  ir::Tensor y = ir::input(outer, "y", DType::F32, {8, 16});
  outer.add_output(ir::reduce_sum(y, {0}));
  EXPECT_EQ(kind_of_load(outer, y, true), AccessKind::kStrided);
}

// ---------------------------------------------------------------------------
// Predictions

// A chain of elementwise ops over `shape`: one kernel per op, or one kernel.
struct Chain {
  ir::Graph g{"chain"};
  Chain(ir::Shape shape, const std::vector<Op>& ops) {
    ir::Tensor v = ir::input(g, "x", DType::F32, shape);
    for (Op op : ops) v = ir::apply(op, {v});
    g.add_output(v);
  }
  kernel::KernelProgram unfused() const {
    return fusion::kernelize(g, fusion::materialize_everything(g), fusion::KernelizeOptions::unmerged()).program;
  }
  kernel::KernelProgram fused() const { return fusion::kernelize(g, fusion::materialize_outputs(g)).program; }
};

void expect_fusing_is_faster(const std::vector<Op>& ops) {
  const int64_t n = 1 << 20;
  for (const ir::Shape& shape : {ir::Shape{n}, ir::Shape{1024, 1024}}) {
    SCOPED_TRACE(shape.size() == 1 ? "[1M]" : "[1024,1024]");
    const Chain chain(shape, ops);
    const kernel::KernelProgram unfused = chain.unfused(), fused = chain.fused();
    ASSERT_EQ(unfused.kernels.size(), ops.size());
    ASSERT_EQ(fused.kernels.size(), 1u);
    for (unsigned threads : {1u, 2u, 8u}) {
      SCOPED_TRACE(std::to_string(threads) + " threads");
      const DeviceProfile p = default_host_profile().for_threads(threads);
      EXPECT_LT(predict_program_us(fused, p), predict_program_us(unfused, p));
    }
  }
}

// exp → neg → abs: one pass over memory instead of three.
TEST(Predict, FusingAChainIsPredictedFaster) {
  expect_fusing_is_faster({Op::Exp, Op::Neg, Op::Abs});
  const int64_t n = 1 << 20;
  const Chain chain({1024, 1024}, {Op::Exp, Op::Neg, Op::Abs});
  const kernel::KernelProgram unfused = chain.unfused(), fused = chain.fused();
  const DeviceProfile p = default_host_profile().for_threads(1);
  const KernelCost one = predict(fused, fused.kernels[0], p);
  EXPECT_EQ(one.threads, 1u);
  EXPECT_DOUBLE_EQ(one.bytes_read, 4.0 * n);
  EXPECT_DOUBLE_EQ(one.bytes_written, 4.0 * n);
  EXPECT_DOUBLE_EQ(one.working_set_bytes, 8.0 * n);
  EXPECT_DOUBLE_EQ(one.fixed_us, p.at(1).kernel_us);
  const double lo = std::min(one.memory_us, one.compute_us), hi = std::max(one.memory_us, one.compute_us);
  EXPECT_NEAR(one.total_us, one.fixed_us + hi + p.overlap * lo, 1e-9);
  // A program costs its fixed cost once, plus its kernels.
  double kernels_us = 0;
  for (const kernel::Kernel& k : unfused.kernels) kernels_us += predict(unfused, k, p).total_us;
  EXPECT_NEAR(predict_program_us(unfused, p), p.at(1).program_us + kernels_us, 1e-9);
  EXPECT_NEAR(predict_program_us(fused, p), p.at(1).program_us + one.total_us, 1e-9);
  // The unfused program moves the two intermediates through memory as well.
  double unfused_bytes = 0;
  for (const kernel::Kernel& k : unfused.kernels) {
    const KernelCost c = predict(unfused, k, p);
    unfused_bytes += c.bytes_read + c.bytes_written;
  }
  EXPECT_DOUBLE_EQ(unfused_bytes, 3 * 8.0 * n);
}


// Math calls that feed each other in one loop (a row longer than the host
// computes in row stages) pay the profile's call-chain factor on every call;
// independent calls do not.
TEST(Predict, ChainedMathCallsPayTheCallChainFactor) {
  const DeviceProfile p = default_host_profile().for_threads(1);
  const ThreadRates& r = p.at(1);
  ASSERT_GE(r.call_chain_factor.size(), 2u);
  EXPECT_EQ(r.call_chain_factor[0], 1.0);
  const int64_t n = 2 * kernel::kHostRowStageMaxColumns;  // one row: one per-row cost, one thread
  auto compute_us = [&](const std::function<ir::Tensor(ir::Tensor)>& body) {
    ir::Graph g("g");
    g.add_output(body(ir::input(g, "x", DType::F32, {1, n})));
    const kernel::KernelProgram prog = fusion::kernelize(g, fusion::materialize_outputs(g)).program;
    EXPECT_EQ(prog.kernels.size(), 1u);
    EXPECT_TRUE(kernel::host_row_stages(prog.kernels[0], prog.buffers).empty());
    return predict(prog, prog.kernels[0], p).compute_us - r.row_ns / 1000;
  };
  const double sin_ns = op_ns(r, "sin"), cos_ns = op_ns(r, "cos"), add_ns = op_ns(r, "add");
  EXPECT_NEAR(compute_us([](ir::Tensor x) { return ir::sin(x); }), n * sin_ns / 1000, 1e-9);
  EXPECT_NEAR(compute_us([](ir::Tensor x) { return ir::add(ir::sin(x), ir::cos(x)); }),
              n * (sin_ns + cos_ns + add_ns) / 1000, 1e-9);
  EXPECT_NEAR(compute_us([](ir::Tensor x) { return ir::sin(ir::sin(x)); }),
              n * 2 * sin_ns * r.call_chain_factor[1] / 1000, 1e-9);
  // Longer than the measured chains: the last factor.
  const size_t longest = r.call_chain_factor.size() + 3;
  EXPECT_NEAR(compute_us([&](ir::Tensor x) {
                for (size_t i = 0; i < longest; ++i) x = ir::sin(x);
                return x;
              }),
              n * static_cast<double>(longest) * sin_ns * r.call_chain_factor.back() / 1000, 1e-9);
}

// In row stages (kernel::host_row_stages) no call waits on another in a
// loop: a chain of calls costs its calls, and each staged value a store and
// a load in cache. exp(sigmoid(x)) over [8,64,32] measured 22.1 us so, 26.7
// in one loop (2026-11-29, one thread).
TEST(Predict, ChainedMathCallsInRowStagesPayNoChainFactor) {
  const DeviceProfile p = default_host_profile().for_threads(1);
  const ThreadRates& r = p.at(1);
  ASSERT_GE(r.call_chain_factor.size(), 3u);
  const int64_t n = kernel::kHostRank1Chunk;  // rank 1, one chunk: no per-row cost
  auto cost = [&](int calls) {
    ir::Graph g("g");
    ir::Tensor y = ir::input(g, "x", DType::F32, {n});
    for (int i = 0; i < calls; ++i) y = ir::sin(y);
    g.add_output(y);
    const kernel::KernelProgram prog = fusion::kernelize(g, fusion::materialize_outputs(g)).program;
    EXPECT_EQ(prog.kernels.size(), 1u);
    EXPECT_EQ(kernel::host_row_stages(prog.kernels[0], prog.buffers).size(), static_cast<size_t>(calls - 1));
    return predict(prog, prog.kernels[0], p);
  };
  const double sin_ns = op_ns(r, "sin");
  const KernelCost one = cost(1), three = cost(3);
  EXPECT_NEAR(one.compute_us, n * sin_ns / 1000, 1e-9);
  EXPECT_NEAR(three.compute_us, 3 * n * sin_ns / 1000, 1e-9);
  // Two staged values, each stored and read back in cache, beyond one's traffic.
  const double staged_ns = 4 * (r.write.front().ns + r.read[static_cast<int>(AccessKind::kContiguous)].front().ns);
  EXPECT_NEAR(three.memory_us - one.memory_us, 2 * n * staged_ns / 1000, 1e-9);
  EXPECT_DOUBLE_EQ(three.bytes_read, one.bytes_read);
}

// A load read by a gather per vector (a transposing read) that feeds a math
// call: its time adds to the call's rather than overlapping it, and it is a
// link of the call chain. A transpose of [64,32,16] took 14.3 us, with tanh
// after it 45.5 (tanh alone 24; 2026-11-29, one thread).
TEST(Predict, AGatherFeedingAMathCallAddsItsTimeAndLinksTheCallChain) {
  const DeviceProfile p = default_host_profile().for_threads(1);
  const ThreadRates& r = p.at(1);
  ASSERT_GE(r.call_chain_factor.size(), 2u);
  const double n = 64 * 32 * 16;
  auto cost = [&](bool transposed, bool call) {
    ir::Graph g("g");
    ir::Tensor x = ir::input(g, "x", DType::F32, {64, 32, 16});
    if (transposed) x = ir::permute(x, {2, 1, 0});
    g.add_output(call ? ir::tanh(x) : ir::neg(x));
    const kernel::KernelProgram prog = fusion::kernelize(g, fusion::materialize_outputs(g)).program;
    EXPECT_EQ(prog.kernels.size(), 1u);
    return predict(prog, prog.kernels[0], p);
  };
  const KernelCost copy = cost(true, false), contiguous = cost(false, true), gathered = cost(true, true);
  EXPECT_EQ(copy.gathered_us, 0);        // no call after it
  EXPECT_EQ(contiguous.gathered_us, 0);  // no gather
  EXPECT_GT(gathered.gathered_us, 0);
  // The tanh is the second link of a chain: a gather, then the call.
  EXPECT_NEAR(gathered.compute_us, n * op_ns(r, "tanh") * r.call_chain_factor[1] / 1000, 512 * r.row_ns / 1000 + 1e-9);
  const double rest = gathered.memory_us - gathered.gathered_us;
  EXPECT_NEAR(gathered.total_us,
              gathered.fixed_us + std::max(rest, gathered.compute_us) + p.overlap * std::min(rest, gathered.compute_us) +
                  gathered.gathered_us,
              1e-9);
}

// read_aliasing_stride (measured over transposes of 512 KB) is scaled by the
// kernel's working set: the same 2 KB step took 0.11, 0.23 and 0.78 ns a byte
// over 128 KB, 512 KB and 2 MB (2026-11-29, one thread).
TEST(Predict, APowerOfTwoStrideCostsByItsWorkingSet) {
  DeviceProfile p = default_host_profile().for_threads(1);
  ThreadRates& r = p.rates.front();
  r.read[static_cast<int>(AccessKind::kStrided)] = {{1, 1e-4}};
  r.read_aliasing_stride = {{512, 0.2}, {8192, 0.2}};
  auto memory_us = [&](int64_t rows) {
    ir::Graph g("g");
    g.add_output(ir::neg(ir::permute(ir::input(g, "x", DType::F32, {rows, 32, 16}), {2, 1, 0})));
    const kernel::KernelProgram prog = fusion::kernelize(g, fusion::materialize_outputs(g)).program;
    EXPECT_EQ(prog.kernels.size(), 1u);
    return predict(prog, prog.kernels[0], p).memory_us;
  };
  r.read_aliasing_size_factor.clear();
  const double small = memory_us(64), large = memory_us(1024);  // 256 KB and 4 MB read and written
  r.read_aliasing_size_factor = {{256 << 10, 0.5}, {1 << 20, 1}, {4 << 20, 3}};
  const double bytes_small = 4.0 * 64 * 32 * 16, bytes_large = 16 * bytes_small;
  EXPECT_NEAR(memory_us(64) - small, bytes_small * 0.2 * (0.5 - 1) / 1000, 1e-9);
  EXPECT_NEAR(memory_us(1024) - large, bytes_large * 0.2 * (3 - 1) / 1000, 1e-9);
  // The profile carries the factor through its JSON.
  const DeviceProfile again = parse_profile(profile_to_json(p), "again.json", "host");
  EXPECT_EQ(again.rates.front().read_aliasing_size_factor.size(), 3u);
}

// A node of a product's prologue (evaluated per packed element) costs the
// profile's prologue rate, and a math op at least what it costs in a vector
// loop: a sigmoid packed with A is not priced as a load.
TEST(Predict, AMathOpInAProductsPrologueCostsAtLeastItsVectorLoopTime) {
  DeviceProfile p = default_host_profile().for_threads(1);
  for (ThreadRates& rates : p.rates) {  // a sigmoid dearer than a packed load, a neg cheaper (measured: either way)
    rates.prologue_ns = 0.8;
    rates.op_ns["sigmoid"] = 2.5;
    rates.op_ns["neg"] = 0.2;
  }
  const ThreadRates& r = p.at(1);
  const int64_t m = 512, k = 256, n = 64;
  auto compute_us = [&](const std::function<ir::Tensor(ir::Tensor)>& prologue) {
    ir::Graph g("g");
    ir::Tensor a = ir::input(g, "a", DType::F32, {m, k}), w = ir::input(g, "w", DType::F32, {k, n});
    g.add_output(ir::matmul(prologue(a), w));
    const kernel::KernelProgram prog = fusion::kernelize(g, fusion::materialize_outputs(g)).program;
    EXPECT_EQ(prog.kernels.size(), 1u);
    return predict(prog, prog.kernels[0], p).compute_us;
  };
  const double plain = compute_us([](ir::Tensor a) { return a; });
  const double evaluations = static_cast<double>(m * k);
  // The load and the op, each once per element of A.
  EXPECT_NEAR(compute_us([](ir::Tensor a) { return ir::sigmoid(a); }) - plain,
              evaluations * (r.prologue_ns + op_ns(r, "sigmoid")) / 1000, 1e-6);
  // A cheap op costs the prologue rate.
  ASSERT_LT(op_ns(r, "neg"), r.prologue_ns);
  EXPECT_NEAR(compute_us([](ir::Tensor a) { return ir::neg(a); }) - plain, evaluations * 2 * r.prologue_ns / 1000,
              1e-6);
}

// Rotate-half reads x three times in one kernel (x, and its two halves
// shifted by half a row behind masks): the shifted loads hit the lines the
// first one brought in, so they count no bytes and cost in-cache time. With the
// halves read from another buffer, that buffer is streamed once (its second
// half rereads the lines of the first).
TEST(Predict, ALoadShiftedWithinARowOfAnEarlierLoadRereadsItsLines) {
  const DeviceProfile p = default_host_profile().for_threads(1);
  const int64_t rows = 4096, d = 128;
  auto predict_rotate = [&](bool other_buffer) {
    ir::Graph g("rope");
    auto x = ir::input(g, "x", DType::F32, {rows, d});
    auto y = other_buffer ? ir::input(g, "y", DType::F32, {rows, d}) : x;
    auto rotated = ir::concat({ir::neg(ir::slice_axis(y, 1, d / 2, d)), ir::slice_axis(y, 1, 0, d / 2)}, 1);
    g.add_output(x + rotated);
    const kernel::KernelProgram prog = fusion::kernelize_program(g, std::vector<bool>(g.size(), false));
    EXPECT_EQ(prog.kernels.size(), 1u);
    return predict(prog, prog.kernels[0], p);
  };
  const KernelCost same = predict_rotate(false), other = predict_rotate(true);
  // Two halves of a buffer, side by side: neither load reads the other's lines.
  {
    ir::Graph g("halves");
    auto x = ir::input(g, "x", DType::F32, {rows, d});
    g.add_output(ir::slice_axis(x, 1, 0, d / 2) + ir::slice_axis(x, 1, d / 2, d));
    const kernel::KernelProgram prog = fusion::kernelize_program(g, std::vector<bool>(g.size(), false));
    EXPECT_DOUBLE_EQ(predict(prog, prog.kernels.at(0), p).bytes_read, 4.0 * rows * d);
  }
  EXPECT_DOUBLE_EQ(same.bytes_read, 4.0 * rows * d);
  EXPECT_DOUBLE_EQ(other.bytes_read, 2 * 4.0 * rows * d);
  EXPECT_LT(same.memory_us, other.memory_us);
}

// A rotate-half's loads are masked `j < 64` / `64 <= j` along the row; the
// host cuts the row there (kernel::host_column_cuts) and each half's load is
// a plain one in its segment: priced so, not as a masked load at every column
// (nvfuser_rope_bwd's 2-kernel form: 71.7 us predicted, 33.6 measured).
TEST(Predict, MaskedLoadsTheColumnCutsDecideArePlainLoadsOfTheirSegment) {
  const int64_t rows = 4096, d = 128;
  for (DType dtype : {DType::F32, DType::BF16}) {
    SCOPED_TRACE(ir::dtype_name(dtype));
    const DeviceProfile p = default_host_profile().for_threads(1);
    auto predict_of = [&](bool rotated) {
      ir::Graph g("rope");
      auto x = ir::input(g, "x", dtype, {rows, d});
      auto y = ir::input(g, "y", dtype, {rows, d});
      g.add_output(x + (rotated ? ir::concat({ir::neg(ir::slice_axis(y, 1, d / 2, d)), ir::slice_axis(y, 1, 0, d / 2)}, 1)
                                : ir::neg(y)));
      const kernel::KernelProgram prog = fusion::kernelize_program(g, std::vector<bool>(g.size(), false));
      EXPECT_EQ(prog.kernels.size(), 1u);
      EXPECT_EQ(rotated, !kernel::host_column_cuts(prog.kernels.at(0)).empty());
      return predict(prog, prog.kernels.at(0), p);
    };
    const KernelCost rotated = predict_of(true), plain = predict_of(false);
    EXPECT_DOUBLE_EQ(rotated.bytes_read, plain.bytes_read);  // each half of y once
    EXPECT_LT(rotated.memory_us, 1.25 * plain.memory_us);
  }
}

// A max pool of 3x3 windows, stride 2 (ResNet-50's stem, as the importer
// writes it: a -inf pad and nine strided slices) in one kernel: its nine
// shifted strided reads of one buffer read its lines once between them. Priced
// as nine reads from memory it cost 976 us against a measured 326, and the
// stem fused into a chain of six kernels that each recomputed bias and ReLU.
TEST(Predict, TheShiftedReadsOfAWindowReadTheirBufferOnce) {
  const DeviceProfile p = default_host_profile().for_threads(1);
  const int64_t maps = 16, side = 112;
  ir::Graph g("pool");
  auto x = ir::input(g, "x", DType::F32, {1, maps, side, side});
  auto padded = ir::pad(x, {0, 0, 1, 1}, {0, 0, 1, 1}, -std::numeric_limits<double>::infinity());
  std::optional<ir::Tensor> pooled;
  for (int64_t a = 0; a < 3; ++a)
    for (int64_t b = 0; b < 3; ++b) {
      auto window = ir::slice(padded, {0, 0, a, b}, {1, maps, a + side - 1, b + side - 1}, {1, 1, 2, 2});
      pooled = pooled ? ir::max(*pooled, window) : window;
    }
  g.add_output(*pooled);
  const kernel::KernelProgram prog = fusion::kernelize_program(g, std::vector<bool>(g.size(), false));
  ASSERT_EQ(prog.kernels.size(), 1u) << kernel::print_program(prog);
  const KernelCost cost = predict(prog, prog.kernels.at(0), p);
  const double buffer_bytes = 4.0 * maps * side * side;
  EXPECT_LE(cost.bytes_read, buffer_bytes);
  EXPECT_GE(cost.bytes_read, buffer_bytes / 4);  // at least the stride-2 grid of one load
}

// An inlined value is recomputed in each kernel that uses it.
TEST(Predict, RecomputationIsPaidInEveryConsumer) {
  const DeviceProfile p = default_host_profile().for_threads(1);
  const ThreadRates& r = p.at(1);
  const int64_t n = 4096;
  auto kernel_with_exps = [&](int copies) {
    kernel::KernelProgram prog;
    int x = kernel::add_buffer(prog, "x", {DType::F32, {n}}, BufferKind::kInput, 0);
    int y = kernel::add_buffer(prog, "y", {DType::F32, {n}}, BufferKind::kOutput, 0);
    prog.kernels.push_back({"k", {n}, {}, {}, {}, {}});
    kernel::KernelBuilder b(prog.kernels.back());
    int v = b.load(x, {b.var(0)}, DType::F32);
    int sum = b.op(Op::Exp, {v}, DType::F32);
    for (int i = 1; i < copies; ++i) sum = b.op(Op::Add, {sum, b.op(Op::Exp, {v}, DType::F32)}, DType::F32);
    b.output(y, sum);
    return prog;
  };
  const auto once = kernel_with_exps(1), thrice = kernel_with_exps(3);
  const double c1 = predict(once, once.kernels[0], p).compute_us, c3 = predict(thrice, thrice.kernels[0], p).compute_us;
  EXPECT_NEAR(c1, n * op_ns(r, "exp") / 1000, 1e-9);
  EXPECT_NEAR(c3 - c1, n * 2 * (op_ns(r, "exp") + op_ns(r, "add")) / 1000, 1e-9);

  // Through the lowering: e = exp(x) feeds two outputs; left inlined, each
  // output's kernel computes it; materialized, it is computed once.
  ir::Graph g("shared");
  ir::Tensor e = ir::exp(ir::input(g, "x", DType::F32, {n}));
  g.add_output(ir::neg(e));
  g.add_output(ir::abs(e));
  std::vector<bool> with_e = fusion::materialize_outputs(g);
  with_e.resize(g.nodes().size(), false);
  with_e[static_cast<size_t>(e.id)] = true;
  const kernel::KernelProgram inlined = fusion::kernelize(g, fusion::materialize_outputs(g), fusion::KernelizeOptions::unmerged()).program;
  const kernel::KernelProgram shared = fusion::kernelize(g, with_e, fusion::KernelizeOptions::unmerged()).program;
  ASSERT_EQ(inlined.kernels.size(), 2u);
  ASSERT_EQ(shared.kernels.size(), 3u);
  double inlined_compute = 0, shared_compute = 0;
  for (const kernel::Kernel& k : inlined.kernels) {
    const double c = predict(inlined, k, p).compute_us;
    EXPECT_GE(c, n * op_ns(r, "exp") / 1000) << k.name;
    inlined_compute += c;
  }
  for (const kernel::Kernel& k : shared.kernels) shared_compute += predict(shared, k, p).compute_us;
  EXPECT_NEAR(inlined_compute - shared_compute, n * op_ns(r, "exp") / 1000, 1e-9);
}

TEST(Predict, ContractionsCountTwoFlopsPerMultiplyAdd) {
  kernel::KernelProgram prog;
  const int64_t M = 64, N = 128, K = 256;
  int a = kernel::add_buffer(prog, "a", {DType::F32, {M, K}}, BufferKind::kInput, 0);
  int bm = kernel::add_buffer(prog, "b", {DType::F32, {K, N}}, BufferKind::kInput, 1);
  int c = kernel::add_buffer(prog, "c", {DType::F32, {M, N}}, BufferKind::kOutput, 0);
  prog.kernels.push_back({"gemm", {M, N}, {K}, {}, {}, {}});
  kernel::KernelBuilder b(prog.kernels.back());
  int product = b.op(Op::Mul, {b.load(a, {b.var(0), b.var(2)}, DType::F32), b.load(bm, {b.var(2), b.var(1)}, DType::F32)},
                     DType::F32);
  b.output(c, b.reduce(Op::ReduceSum, product, DType::F32, true));
  for (unsigned threads : {1u, 2u}) {
    SCOPED_TRACE(threads);
    const DeviceProfile p = default_host_profile().for_threads(threads);
    const KernelCost cost = predict(prog, prog.kernels[0], p);
    EXPECT_DOUBLE_EQ(cost.flops, 2.0 * M * N * K);
    EXPECT_NEAR(cost.compute_us, cost.flops / matmul_gflops(p.at(cost.threads).matmul, 1, M, N, K) / 1000, 1e-9);
    // Each operand is read once (ideal reuse), not once per output element.
    EXPECT_DOUBLE_EQ(cost.bytes_read, 4.0 * (M * K + K * N));
    EXPECT_DOUBLE_EQ(cost.bytes_written, 4.0 * M * N);
  }

  // A batched matmul through the lowering: the batch multiplies the flops.
  ir::Graph g("bmm");
  const int64_t B = 3;
  g.add_output(ir::matmul(ir::input(g, "a", DType::F32, {B, M, K}), ir::input(g, "b", DType::F32, {B, K, N})));
  const kernel::KernelProgram bmm = fusion::kernelize(g, fusion::materialize_outputs(g)).program;
  ASSERT_EQ(bmm.kernels.size(), 1u);
  const DeviceProfile p = default_host_profile().for_threads(1);
  const KernelCost cost = predict(bmm, bmm.kernels[0], p);
  EXPECT_DOUBLE_EQ(cost.flops, 2.0 * B * M * N * K);
  EXPECT_NEAR(cost.compute_us, cost.flops / matmul_gflops(p.at(1).matmul, B, M, N, K) / 1000, 1e-9);
  EXPECT_NEAR(matmul_work_ns(p, B, M, N, K), cost.flops / matmul_gflops(p.at(1).matmul, B, M, N, K), 1e-6);
}

// A concat along rows of six exps is decided per row (kernel/kernel_branches.h):
// each row computes one exp, so the kernel costs what one exp over the whole
// output costs, not six.
TEST(Predict, ABranchPerRegionIsChargedOnlyWhereItIsTaken) {
  ir::Graph g("six");
  std::vector<ir::Tensor> parts;
  for (int i = 0; i < 6; ++i) parts.push_back(ir::exp(ir::input(g, "x" + std::to_string(i), DType::F32, {64, 1024})));
  g.add_output(ir::concat(parts, 0));
  ir::Graph one("one");
  one.add_output(ir::exp(ir::input(one, "x", DType::F32, {6 * 64, 1024})));
  for (unsigned threads : {1u, 2u}) {
    SCOPED_TRACE(threads);
    const DeviceProfile p = default_host_profile().for_threads(threads);
    const kernel::KernelProgram six_ways = fusion::kernelize_program(g, fusion::materialize_outputs(g));
    const kernel::KernelProgram single = fusion::kernelize_program(one, fusion::materialize_outputs(one));
    ASSERT_EQ(six_ways.kernels.size(), 1u);
    const KernelCost split = predict(six_ways, six_ways.kernels[0], p), whole = predict(single, single.kernels[0], p);
    EXPECT_NEAR(split.compute_us, whole.compute_us, 1e-9);
    EXPECT_DOUBLE_EQ(split.bytes_read, whole.bytes_read);
    // Charging every branch everywhere would cost six exps per element.
    EXPECT_LT(split.compute_us, 2 * whole.compute_us);
  }
}

// A profile whose fixed costs say which entry and whether a dispatch was charged.
DeviceProfile distinct_fixed_costs() {
  DeviceProfile p = default_host_profile();
  EXPECT_EQ(p.rates.size(), 2u);
  EXPECT_EQ(p.rates[1].threads, 2u);
  p.rates[0].kernel_us = 1;
  p.rates[0].dispatch_us = 100;  // never charged: one thread dispatches nothing
  p.rates[1].kernel_us = 2;
  p.rates[1].dispatch_us = 5;
  return p;
}

TEST(Predict, ASmallKernelRunsInlineOnOneThread) {
  const DeviceProfile p = distinct_fixed_costs().for_threads(2);
  ir::Graph g("small");
  g.add_output(ir::exp(ir::input(g, "x", DType::F32, {64})));
  const kernel::KernelProgram prog = fusion::kernelize(g, fusion::materialize_outputs(g)).program;
  const KernelCost c = predict(prog, prog.kernels[0], p);
  EXPECT_EQ(c.threads, 1u);
  EXPECT_DOUBLE_EQ(c.fixed_us, 1.0);  // kernel_us of the 1-thread entry, no dispatch
  EXPECT_DOUBLE_EQ(c.fixed_us, p.at(1).kernel_us);
}

TEST(Predict, ABigKernelIsSplitOverTwoThreadsAndPaysTheDispatch) {
  ir::Graph g("big");
  g.add_output(ir::exp(ir::input(g, "x", DType::F32, {256, 1024})));
  const kernel::KernelProgram prog = fusion::kernelize(g, fusion::materialize_outputs(g)).program;
  const DeviceProfile two = distinct_fixed_costs().for_threads(2);
  const KernelCost c = predict(prog, prog.kernels[0], two);
  EXPECT_EQ(c.threads, 2u);
  EXPECT_DOUBLE_EQ(c.fixed_us, 2.0 + 5.0);  // the 2-thread entry's kernel_us + dispatch_us
  // On one thread the same kernel runs inline on the 1-thread entry.
  const KernelCost inline_cost = predict(prog, prog.kernels[0], distinct_fixed_costs().for_threads(1));
  EXPECT_EQ(inline_cost.threads, 1u);
  EXPECT_DOUBLE_EQ(inline_cost.fixed_us, 1.0);
  // More threads than entries: the largest measured entry (2) is used.
  const KernelCost many = predict(prog, prog.kernels[0], distinct_fixed_costs().for_threads(64));
  EXPECT_GT(many.threads, 2u);
  EXPECT_DOUBLE_EQ(many.fixed_us, 2.0 + 5.0);
  // The shipped profile's 2-thread entry is what a 2-thread run is costed with.
  const DeviceProfile shipped = default_host_profile().for_threads(2);
  const KernelCost c2 = predict(prog, prog.kernels[0], shipped);
  EXPECT_EQ(c2.threads, 2u);
  EXPECT_DOUBLE_EQ(c2.fixed_us, shipped.at(2).kernel_us + shipped.at(2).dispatch_us);
}

TEST(Predict, WorkEstimatesUseTheProfilesThreads) {
  const DeviceProfile one = default_host_profile().for_threads(1), two = default_host_profile().for_threads(2);
  EXPECT_DOUBLE_EQ(elementwise_work_ns(one, "exp", 1000), 1000 * op_ns(one.at(1), "exp"));
  EXPECT_DOUBLE_EQ(elementwise_work_ns(two, "exp", 1000), 1000 * op_ns(two.at(2), "exp"));
  EXPECT_DOUBLE_EQ(matmul_work_ns(one, 1, 64, 4096, 1024),
                   2.0 * 64 * 4096 * 1024 / matmul_gflops(one.at(1).matmul, 1, 64, 4096, 1024));
  EXPECT_GT(reduction_work_ns(one, 1000), 0);
}

// Two programs timed side by side are compared round by round: a machine
// whose speed moves between rounds moves both of a round's batches, and their
// ratio stays. Medians over the whole measurement do not pair the samples.
TEST(PairedRatio, ComparesTheRoundsNotTheMedians) {
  Timing a, b;
  a.round_us = {10, 20, 40, 80};
  b.round_us = {12.5, 25, 50, 100};
  a.median_us = 40;  // a's middle rounds slow, b's fast: the medians say 1.6
  b.median_us = 25;
  EXPECT_DOUBLE_EQ(paired_ratio(a, b), 0.8);
  EXPECT_DOUBLE_EQ(paired_ratio(b, a), 1.25);
  Timing alone_a, alone_b;  // no rounds in common: the medians
  alone_a.median_us = 30;
  alone_b.median_us = 20;
  EXPECT_DOUBLE_EQ(paired_ratio(alone_a, alone_b), 1.5);
}

// A whole model spends the budget in its first batch; the rounds a paired
// ratio is the median of are still three.
TEST(PairedRatio, ThreeRoundsEvenWhereTheFirstOverrunsTheBudget) {
  auto slow = [](int reps) {
    std::vector<double> seconds;
    for (int i = 0; i < reps; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      seconds.push_back(2e-3);
    }
    return seconds;
  };
  const std::vector<Timing> t = measure_until_stable(std::vector<RunFn>{slow, slow}, 1e-4);
  EXPECT_EQ(t[0].round_us.size(), 3u);
  EXPECT_EQ(t[1].round_us.size(), 3u);
}

TEST(PairedRatio, MeasureUntilStableKeepsEachRoundsMedianSoDriftCancels) {
  int round = 0;
  auto speed = [&] { return 1.0 + 0.4 * (round % 5); };  // the machine 1x to 2.6x slower from round to round
  auto runs = std::vector<RunFn>{
      [&](int reps) {
        ++round;  // a runs first in every round
        return std::vector<double>(static_cast<size_t>(reps), 1e-3 * speed());
      },
      [&](int reps) { return std::vector<double>(static_cast<size_t>(reps), 1.25e-3 * speed()); }};
  const std::vector<Timing> t = measure_until_stable(runs, 0.01);
  ASSERT_EQ(t.size(), 2u);
  ASSERT_GE(t[0].round_us.size(), 3u);
  EXPECT_EQ(t[0].round_us.size(), t[1].round_us.size());
  EXPECT_NEAR(paired_ratio(t[0], t[1]), 0.8, 1e-9);
  // One workload alone keeps no rounds.
  EXPECT_TRUE(measure_until_stable(runs[1], 0.01).round_us.empty());
}

}  // namespace
}  // namespace smelt::cost
