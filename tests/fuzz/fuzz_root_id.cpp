// Fuzz target: --root-id's parser (tree/params.hpp). parse_root_id must
// accept exactly 1 to 40 hex digits (after an optional 0x) and return them
// right-aligned in 160 bits, as this file's own plain reading of the rule
// computes them; anything else is nullopt, never a crash.
#include <cctype>

#include "fuzz_target.hpp"
#include "sha1/words.hpp"
#include "tree/params.hpp"

namespace {
constexpr const char* kTarget = "root_id";

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The rule read plainly: left-pad to 40 digits, then two digits a byte.
std::optional<uts::sha1::Words> expected(const std::string& text) {
  std::string digits = text;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) digits.erase(0, 2);
  if (digits.empty() || digits.size() > 40) return std::nullopt;
  for (const char c : digits)
    if (hex_value(c) < 0) return std::nullopt;
  digits.insert(0, 40 - digits.size(), '0');
  std::uint8_t bytes[20];
  for (int i = 0; i < 20; ++i) bytes[i] = static_cast<std::uint8_t>(hex_value(digits[2 * i]) * 16 + hex_value(digits[2 * i + 1]));
  return uts::sha1::from_bytes(bytes);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::optional<uts::sha1::Words> got = uts::parse_root_id(text);
  const std::optional<uts::sha1::Words> want = expected(text);
  uts::fuzz::check(got.has_value() == want.has_value(), kTarget,
                   std::string(got ? "accepted" : "refused") + " '" + text + "'");
  uts::fuzz::check(!got || *got == *want, kTarget, "'" + text + "' parsed to another id");
  return 0;
}
