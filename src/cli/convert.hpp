// Option values from text: whole-string conversions with range checks, each
// failure a UsageError naming the option ("12x", "3.5" for an integer,
// "nan" are refused).
#pragma once

#include <cxxopts.hpp>

#include <cstdint>
#include <string>

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

std::int64_t int_in_range(const cxxopts::ParseResult& r, const std::string& name, std::int64_t lo, std::int64_t hi);
// 1 to 4096.
int threads_of(const cxxopts::ParseResult& r, const std::string& name);

}  // namespace uts::cli
