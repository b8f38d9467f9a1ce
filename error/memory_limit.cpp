#include "error/memory_limit.h"

#include <unistd.h>

#include <atomic>
#include <cctype>
#include <charconv>
#include <cstdio>

namespace smelt {
namespace {

// 0 until set: limit_value() then reads the default.
std::atomic<uint64_t> g_limits[2]{0, 0};

std::atomic<uint64_t>& slot(Limit limit) { return g_limits[static_cast<size_t>(limit)]; }

std::string_view limit_name(Limit limit) { return limit == Limit::kMemory ? "memory" : "work"; }

}  // namespace

LimitError::LimitError(Limit limit, const std::string& subject, uint64_t needed, uint64_t limit_amount)
    : Error(limit == Limit::kMemory ? ErrorKind::kMemoryLimit : ErrorKind::kWorkLimit,
            subject + " needs " + format_limit_amount(limit, needed) + ", more than the " +
                std::string(limit_name(limit)) + " limit of " + format_limit_amount(limit, limit_amount)),
      limit_(limit),
      subject_(subject),
      needed_(needed),
      limit_amount_(limit_amount) {}

uint64_t default_memory_limit() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page_size = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return uint64_t{4} << 30;  // unknown: a small machine's half
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size) / 2;
}

uint64_t default_limit(Limit limit) {
  if (limit == Limit::kWork) return kDefaultWorkLimit;
  static const uint64_t memory = default_memory_limit();
  return memory;
}

uint64_t limit_value(Limit limit) {
  const uint64_t set = slot(limit).load(std::memory_order_relaxed);
  return set != 0 ? set : default_limit(limit);
}

void set_limit(Limit limit, uint64_t amount) { slot(limit).store(amount, std::memory_order_relaxed); }

void check_limit(Limit limit, uint64_t amount, std::string_view subject) {
  const uint64_t most = limit_value(limit);
  if (amount <= most) return;
  if (limit == Limit::kMemory) throw MemoryLimitError(std::string(subject), amount, most);
  throw WorkLimitError(std::string(subject), amount, most);
}

std::string format_limit_amount(Limit limit, uint64_t amount) {
  if (limit == Limit::kMemory) return format_bytes(amount);
  if (amount < 1'000'000) return std::to_string(amount) + " element visits";
  char text[64];
  std::snprintf(text, sizeof text, "%.3g element visits (%llu)", static_cast<double>(amount),
                static_cast<unsigned long long>(amount));
  return text;
}

uint64_t memory_limit() { return limit_value(Limit::kMemory); }
void set_memory_limit(uint64_t bytes) { set_limit(Limit::kMemory, bytes); }
void check_memory(uint64_t bytes, std::string_view subject) { check_limit(Limit::kMemory, bytes, subject); }

uint64_t work_limit() { return limit_value(Limit::kWork); }
void set_work_limit(uint64_t visits) { set_limit(Limit::kWork, visits); }
void check_work(uint64_t visits, std::string_view subject) { check_limit(Limit::kWork, visits, subject); }

std::string format_bytes(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return std::to_string(bytes) + " B";
  double value = static_cast<double>(bytes) / 1024;
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(kUnits)) value /= 1024, ++unit;
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %s", value, kUnits[unit]);
  return text;
}

std::optional<uint64_t> parse_byte_count(std::string_view text) {
  auto trim = [](std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
  };
  text = trim(text);
  size_t digits = 0;
  while (digits < text.size() && (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.'))
    ++digits;
  double number = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + digits, number);
  if (digits == 0 || ec != std::errc() || end != text.data() + digits) return std::nullopt;
  std::string unit;
  for (char c : trim(text.substr(digits))) unit += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  int shift = -1;
  if (unit.empty() || unit == "B") shift = 0;
  static constexpr std::string_view kPrefixes = "KMGT";
  for (size_t p = 0; p < kPrefixes.size(); ++p) {
    const std::string prefix(1, kPrefixes[p]);
    if (unit == prefix || unit == prefix + "B" || unit == prefix + "IB") shift = 10 * static_cast<int>(p + 1);
  }
  if (shift < 0) return std::nullopt;
  const double bytes = number * static_cast<double>(uint64_t{1} << shift);
  if (!(bytes >= 1) || bytes >= 0x1p63) return std::nullopt;
  return static_cast<uint64_t>(bytes);
}

std::optional<uint64_t> parse_visit_count(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  if (text.empty() || !(std::isdigit(static_cast<unsigned char>(text.front())) || text.front() == '.'))
    return std::nullopt;
  double number = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  if (!(number >= 1) || number >= 0x1p63) return std::nullopt;
  return static_cast<uint64_t>(number);
}

}  // namespace smelt
