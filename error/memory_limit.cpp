#include "error/memory_limit.h"

#include <unistd.h>

#include <atomic>
#include <cctype>
#include <charconv>
#include <cstdio>

namespace smelt {
namespace {

// 0 until set: memory_limit() then reads the default.
std::atomic<uint64_t> g_limit{0};

}  // namespace

MemoryLimitError::MemoryLimitError(const std::string& subject, uint64_t needed_bytes, uint64_t limit_bytes)
    : Error(ErrorKind::kMemoryLimit, subject + " needs " + format_bytes(needed_bytes) + ", more than the memory limit of " +
                         format_bytes(limit_bytes)),
      subject_(subject),
      needed_(needed_bytes),
      limit_(limit_bytes) {}

uint64_t default_memory_limit() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page_size = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return uint64_t{4} << 30;  // unknown: a small machine's half
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size) / 2;
}

uint64_t memory_limit() {
  static const uint64_t default_limit = default_memory_limit();
  const uint64_t set = g_limit.load(std::memory_order_relaxed);
  return set != 0 ? set : default_limit;
}

void set_memory_limit(uint64_t bytes) { g_limit.store(bytes, std::memory_order_relaxed); }

void check_memory(uint64_t bytes, std::string_view subject) {
  const uint64_t limit = memory_limit();
  if (bytes > limit) throw MemoryLimitError(std::string(subject), bytes, limit);
}

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

}  // namespace smelt
