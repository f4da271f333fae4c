// Option values from text (convert.hpp): whole-string conversions with
// range checks, each failure a UsageError naming the option.
#include "cli/convert.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

#include "cli/option_table.hpp"
#include "cli/usage_error.hpp"

namespace uts::cli {

std::string plain_quotes(std::string s) {
  static const std::string kLeft = "\u2018", kRight = "\u2019";
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    if (s.compare(i, kLeft.size(), kLeft) == 0 || s.compare(i, kRight.size(), kRight) == 0) {
      out += '\'';
      i += kLeft.size();
    } else {
      out += s[i++];
    }
  }
  return out;
}

template <>
std::string value_of<std::string>(const cxxopts::ParseResult& r, const std::string& name) {
  try {
    return r[name].as<std::string>();
  } catch (const cxxopts::exceptions::exception& e) {
    throw UsageError(label(name) + ": " + plain_quotes(e.what()));
  }
}

template <>
double value_of<double>(const cxxopts::ParseResult& r, const std::string& name) {
  const std::string text = value_of<std::string>(r, name);
  double v = 0;
  const auto res = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || res.ec != std::errc() || res.ptr != text.data() + text.size() || !std::isfinite(v))
    throw UsageError(label(name) + ": '" + text + "' is not a finite number");
  return v;
}

template <>
std::int64_t value_of<std::int64_t>(const cxxopts::ParseResult& r, const std::string& name) {
  const std::string text = value_of<std::string>(r, name);
  std::int64_t v = 0;
  const char* begin = text.data() + (text.size() > 1 && text[0] == '+' ? 1 : 0);
  const auto res = std::from_chars(begin, text.data() + text.size(), v);
  if (text.empty() || res.ec != std::errc() || res.ptr != text.data() + text.size())
    throw UsageError(label(name) + ": '" + text + "' is not an integer in range");
  return v;
}

template <>
int value_of<int>(const cxxopts::ParseResult& r, const std::string& name) {
  const std::int64_t v = value_of<std::int64_t>(r, name);
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
    throw UsageError(label(name) + ": " + std::to_string(v) + " is out of range");
  return static_cast<int>(v);
}

template <>
std::uint64_t value_of<std::uint64_t>(const cxxopts::ParseResult& r, const std::string& name) {
  const std::string text = value_of<std::string>(r, name);
  std::uint64_t v = 0;
  const auto res = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || res.ec != std::errc() || res.ptr != text.data() + text.size())
    throw UsageError(label(name) + ": '" + text + "' is not a non-negative integer");
  return v;
}

std::optional<bool> flag_value(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "true" || lower == "1") return true;
  if (lower == "false" || lower == "0") return false;
  return std::nullopt;
}

bool flag_on(const cxxopts::ParseResult& r, const std::string& name) {
  if (!r.count(name)) return false;
  try {
    return r[name].as<bool>();
  } catch (const cxxopts::exceptions::exception& e) {
    throw UsageError(label(name) + ": " + plain_quotes(e.what()));
  }
}

bool is_set(const cxxopts::ParseResult& r, const std::string& name) {
  const OptionSpec* spec = find_option(name);
  if (spec && !spec->arg) return flag_on(r, name);
  return r.count(name) > 0;
}

std::int64_t int_in_range(const cxxopts::ParseResult& r, const std::string& name, std::int64_t lo, std::int64_t hi) {
  const std::int64_t v = value_of<std::int64_t>(r, name);
  if (v < lo || v > hi)
    throw UsageError(label(name) + ": " + std::to_string(v) + " is out of range (" + std::to_string(lo) + " to " +
                     std::to_string(hi) + ")");
  return v;
}

int threads_of(const cxxopts::ParseResult& r, const std::string& name) {
  const std::int64_t v = value_of<std::int64_t>(r, name);
  if (v < 1) throw UsageError(label(name) + " must be at least 1");
  if (v > 4096) throw UsageError(label(name) + " must be at most 4096");
  return static_cast<int>(v);
}

}  // namespace uts::cli
