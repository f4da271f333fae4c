// Option values from text: whole-string conversions with range checks, each
// failure a UsageError naming the option ("12x", "3.5" for an integer,
// "nan" are refused).
#pragma once

#include <cxxopts.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace uts::cli {

// cxxopts quotes names with U+2018/U+2019; keep messages plain ASCII.
std::string plain_quotes(std::string s);

template <class T>
T value_of(const cxxopts::ParseResult& r, const std::string& name);
template <>
std::string value_of<std::string>(const cxxopts::ParseResult& r, const std::string& name);
template <>
double value_of<double>(const cxxopts::ParseResult& r, const std::string& name);
template <>
std::int64_t value_of<std::int64_t>(const cxxopts::ParseResult& r, const std::string& name);
template <>
int value_of<int>(const cxxopts::ParseResult& r, const std::string& name);
template <>
std::uint64_t value_of<std::uint64_t>(const cxxopts::ParseResult& r, const std::string& name);

// A flag's value as written after "=": true, false, 1 or 0, in any case
// (TRUE, False); nothing else.
std::optional<bool> flag_value(std::string_view text);
// A flag (an option without an argument) is on: given, and its last value
// true. `--verify=false` is given but off; read flags with this, never with
// count(), which counts the false ones too.
bool flag_on(const cxxopts::ParseResult& r, const std::string& name);
// An option is set: a flag that is on, or any other option given.
bool is_set(const cxxopts::ParseResult& r, const std::string& name);

std::int64_t int_in_range(const cxxopts::ParseResult& r, const std::string& name, std::int64_t lo, std::int64_t hi);
// 1 to 4096.
int threads_of(const cxxopts::ParseResult& r, const std::string& name);

}  // namespace uts::cli
