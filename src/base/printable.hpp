// A message line safe to print: a user's value echoed in an error message
// can hold any byte, and a raw newline, carriage return or escape sequence in
// it would forge or hide lines on the terminal (a second "uts:" line).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace uts {

// Control characters escaped as \n, \r, \t or \xNN (NUL, ESC, DEL, ...),
// bytes that are not UTF-8 as \xNN, and the C1 controls U+0080 to U+009F
// (which some terminals obey) as \u0080 to \u009F; other UTF-8 text, and
// every printable ASCII character, stays as it is. A backslash is kept as it
// is, so that escaping twice changes nothing (a message wrapped into another
// is escaped again).
inline std::string printable(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char c = byte(i);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    if (c == '\n' || c == '\r' || c == '\t') {
      out += c == '\n' ? "\\n" : c == '\r' ? "\\r" : "\\t";
      ++i;
      continue;
    }
    // A well-formed UTF-8 sequence (shortest form, no surrogates, at most
    // U+10FFFF) passes whole; anything else is escaped byte by byte.
    std::size_t len = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (len && i + len <= text.size()) {
      for (std::size_t k = 1; k < len; ++k)
        if ((byte(i + k) & 0xc0) != 0x80) len = 0;
      if (len == 3 && ((c == 0xe0 && byte(i + 1) < 0xa0) || (c == 0xed && byte(i + 1) >= 0xa0))) len = 0;
      if (len == 4 && ((c == 0xf0 && byte(i + 1) < 0x90) || (c == 0xf4 && byte(i + 1) >= 0x90))) len = 0;
    } else {
      len = 0;
    }
    if (len == 2 && c == 0xc2 && byte(i + 1) < 0xa0) {  // U+0080 to U+009F: C1 controls
      out += "\\u00";
      out += kHex[byte(i + 1) >> 4];
      out += kHex[byte(i + 1) & 0xf];
      i += 2;
      continue;
    }
    if (len) {
      out.append(text.substr(i, len));
      i += len;
      continue;
    }
    out += "\\x";
    out += kHex[c >> 4];
    out += kHex[c & 0xf];
    ++i;
  }
  return out;
}

// printable(), and at most about `limit` bytes: a longer text keeps its
// start and its end (where a message names the option, and says what is
// wrong) and says how much of the middle it left out, so a 1 MB argument
// does not become a 1 MB line.
inline std::string printable_line(std::string_view text, std::size_t limit = 1024) {
  std::string s = printable(text);
  if (s.size() <= limit) return s;
  // Cut on UTF-8 character boundaries (never after a lead byte).
  auto boundary = [&](std::size_t at) {
    while (at > 0 && (static_cast<unsigned char>(s[at]) & 0xc0) == 0x80) --at;
    return at;
  };
  const std::size_t head = boundary(limit * 5 / 8);
  const std::size_t tail = boundary(s.size() - limit / 4);
  return s.substr(0, head) + "...(" + std::to_string(tail - head) + " bytes left out)..." + s.substr(tail);
}

}  // namespace uts
