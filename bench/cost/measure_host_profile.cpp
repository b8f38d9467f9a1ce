// Measures the numbers of a host DeviceProfile on this machine (one thread) and
// prints the profile JSON: the source of cost/profiles/host.json until the
// calibration driver (`smelt calibrate`) measures kernels through lower/.
//   measure_host_profile > cost/profiles/host.json
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cost/device_profile.h"

namespace {

using Clock = std::chrono::steady_clock;

// Best of several runs of `body`, in nanoseconds.
double best_ns(int runs, const std::function<void()>& body) {
  double best = 1e300;
  for (int r = 0; r < runs; ++r) {
    auto start = Clock::now();
    body();
    best = std::min(best, std::chrono::duration<double, std::nano>(Clock::now() - start).count());
  }
  return best;
}

volatile float g_sink;  // keeps results alive

// Round trip of handing one task to a waiting worker thread and back: what a
// thread-pool kernel launch costs at least.
double launch_overhead_us() {
  std::mutex m;
  std::condition_variable cv;
  int turn = 0;
  const int rounds = 20000;
  std::thread worker([&] {
    for (int i = 0; i < rounds; ++i) {
      std::unique_lock lock(m);
      cv.wait(lock, [&] { return turn == 1; });
      turn = 0;
      cv.notify_all();
    }
  });
  auto start = Clock::now();
  for (int i = 0; i < rounds; ++i) {
    std::unique_lock lock(m);
    turn = 1;
    cv.notify_all();
    cv.wait(lock, [&] { return turn == 0; });
  }
  double us = std::chrono::duration<double, std::micro>(Clock::now() - start).count() / rounds;
  worker.join();
  return us;
}

// Useful bytes per ns (= GB/s): the cost model counts the bytes of the elements
// a load uses, so a strided walk's wasted cache-line traffic shows up as a
// lower rate. Eight partial sums keep the adds off the critical path.
double read_gbps(const std::vector<float>& data, size_t stride, int repeats) {
  const size_t n = data.size() / stride / 8 * 8;
  double ns = best_ns(5, [&] {
    float sums[8] = {};
    for (int r = 0; r < repeats; ++r)
      for (size_t i = 0; i < n; i += 8)
        for (size_t lane = 0; lane < 8; ++lane) sums[lane] += data[(i + lane) * stride];
    float total = 0;
    for (float s : sums) total += s;
    g_sink = total;
  });
  return static_cast<double>(repeats) * n * sizeof(float) / ns;
}

double write_gbps(std::vector<float>& data) {
  double ns = best_ns(5, [&] {
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(i & 7);
  });
  g_sink = data[data.size() / 2];
  return data.size() * sizeof(float) / ns;
}

template <class F>
double unary_rate(const std::vector<float>& x, std::vector<float>& y, F f) {
  double ns = best_ns(5, [&] {
    for (size_t i = 0; i < x.size(); ++i) y[i] = f(x[i]);
  });
  g_sink = y[7];
  return x.size() / ns;
}

template <class F>
double binary_rate(const std::vector<float>& x, const std::vector<float>& z, std::vector<float>& y, F f) {
  double ns = best_ns(5, [&] {
    for (size_t i = 0; i < x.size(); ++i) y[i] = f(x[i], z[i]);
  });
  g_sink = y[7];
  return x.size() / ns;
}

double matmul_gflops(long m, long n, long k) {
  std::vector<float> a(m * k, 0.5f), b(k * n, 0.25f), c(m * n);
  double ns = best_ns(3, [&] {
    std::fill(c.begin(), c.end(), 0.0f);
    for (long i = 0; i < m; ++i)
      for (long kk = 0; kk < k; ++kk) {
        const float av = a[i * k + kk];
        const float* brow = &b[kk * n];
        float* crow = &c[i * n];
        for (long j = 0; j < n; ++j) crow[j] += av * brow[j];
      }
  });
  g_sink = c[0];
  return 2.0 * m * n * k / ns;
}

// The per-core L2: the shared L3 size a virtual machine reports is the whole
// host's, far more than one core's share.
double cache_bytes() {
  long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  return static_cast<double>(l2 > 0 ? l2 : 1l << 20);
}

}  // namespace

int main() {
  cost::DeviceProfile p;
  p.name = "host (measured by bench/cost/measure_host_profile, 1 thread)";
  p.device = "host";
  p.launch_overhead_us = launch_overhead_us();

  std::vector<float> big(size_t{64} << 20, 1.0f);  // 256 MiB: far beyond the caches
  p.read_gbps_contiguous = read_gbps(big, 1, 1);
  p.read_gbps_strided = read_gbps(big, 16, 1);
  std::vector<float> small(1024, 1.0f);  // 4 KiB reread: what broadcast loads see
  p.read_gbps_broadcast = read_gbps(small, 1, 20000);
  p.write_gbps = write_gbps(big);
  p.cache_bytes = cache_bytes();
  std::vector<float> cached(static_cast<size_t>(p.cache_bytes / sizeof(float) / 2), 1.0f);
  p.cached_read_gbps = read_gbps(cached, 1, 200);
  big.clear();
  big.shrink_to_fit();

  std::vector<float> x(1 << 20), z(1 << 20), y(1 << 20);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = 0.001f * static_cast<float>(i % 2000) - 1.0f;
    z[i] = 0.5f + 0.0001f * static_cast<float>(i % 977);
  }
  auto& rates = p.op_elements_per_ns;
  rates["neg"] = unary_rate(x, y, [](float v) { return -v; });
  rates["abs"] = unary_rate(x, y, [](float v) { return std::fabs(v); });
  rates["relu"] = unary_rate(x, y, [](float v) { return v > 0 ? v : 0.0f; });
  rates["cast"] = rates["neg"];
  rates["exp"] = unary_rate(x, y, [](float v) { return std::exp(v); });
  rates["exp2"] = unary_rate(x, y, [](float v) { return std::exp2(v); });
  rates["log"] = unary_rate(z, y, [](float v) { return std::log(v); });
  rates["log2"] = unary_rate(z, y, [](float v) { return std::log2(v); });
  rates["sin"] = unary_rate(x, y, [](float v) { return std::sin(v); });
  rates["cos"] = unary_rate(x, y, [](float v) { return std::cos(v); });
  rates["tanh"] = unary_rate(x, y, [](float v) { return std::tanh(v); });
  rates["sqrt"] = unary_rate(z, y, [](float v) { return std::sqrt(v); });
  rates["rsqrt"] = unary_rate(z, y, [](float v) { return 1.0f / std::sqrt(v); });
  rates["recip"] = unary_rate(z, y, [](float v) { return 1.0f / v; });
  rates["sigmoid"] = unary_rate(x, y, [](float v) { return 1.0f / (1.0f + std::exp(-v)); });
  rates["erf"] = unary_rate(x, y, [](float v) { return std::erf(v); });
  rates["gelu"] = unary_rate(x, y, [](float v) { return 0.5f * v * (1.0f + std::erf(v * 0.70710678f)); });
  rates["add"] = binary_rate(x, z, y, [](float a, float b) { return a + b; });
  rates["sub"] = binary_rate(x, z, y, [](float a, float b) { return a - b; });
  rates["mul"] = binary_rate(x, z, y, [](float a, float b) { return a * b; });
  rates["div"] = binary_rate(x, z, y, [](float a, float b) { return a / b; });
  rates["max"] = binary_rate(x, z, y, [](float a, float b) { return a > b ? a : b; });
  rates["min"] = binary_rate(x, z, y, [](float a, float b) { return a < b ? a : b; });
  rates["pow"] = binary_rate(z, x, y, [](float a, float b) { return std::pow(a, b); });
  rates["lt"] = binary_rate(x, z, y, [](float a, float b) { return a < b ? 1.0f : 0.0f; });
  rates["le"] = rates["lt"];
  rates["eq"] = rates["lt"];
  rates["where"] = rates["lt"];
  rates["default"] = rates["add"];

  for (long size : {64L, 256L, 512L, 1024L}) p.matmul.push_back({size, size, size, matmul_gflops(size, size, size)});
  p.matmul.push_back({64, 2048, 1024, matmul_gflops(64, 2048, 1024)});

  std::fputs(cost::profile_to_json(p).c_str(), stdout);
  return 0;
}
