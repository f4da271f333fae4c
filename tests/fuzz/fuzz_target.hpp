// What the fuzz targets share: libFuzzer's entry point, the contract check
// that ends a run with a report, and the conversions from bytes to the
// inputs uts takes (an argv, a file). Each target's source defines
// LLVMFuzzerTestOneInput; replay.cpp or libFuzzer supplies main
// (docs/fuzzing.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace uts::fuzz {

// The contract is broken: say how on stderr and abort, which libFuzzer and
// the replay driver both report as a crash with this input.
[[noreturn]] inline void broken(const char* target, const std::string& what) {
  std::fprintf(stderr, "fuzz %s: contract broken: %s\n", target, what.c_str());
  std::abort();
}

inline void check(bool ok, const char* target, const std::string& what) {
  if (!ok) broken(target, what);
}

// A refusal's message is one printable line: uts prints it after "uts: "
// and nothing may forge a second line or overwrite the first (no newline,
// carriage return, or other control character; a tab is allowed).
// UTS_FUZZ_ALLOW_CONTROL=1 lets control characters, newline included,
// through: while a known echo of raw values is unfixed, every input that
// reaches it would stop the fuzzer, which then finds nothing else.
inline bool one_clean_line(const std::string& message) {
  if (message.empty()) return false;
  static const bool allow_control = [] {
    const char* v = std::getenv("UTS_FUZZ_ALLOW_CONTROL");
    return v && std::string(v) == "1";
  }();
  if (allow_control) return true;
  for (const char c : message) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && u != '\t') || u == 0x7f) return false;
  }
  return true;
}

// Bytes as a command line: split on NUL when the bytes hold one (so an
// argument may hold a newline), else on newline; an empty piece is an empty
// argument; at most `most` arguments. argv[0] is "uts".
inline std::vector<std::string> split_args(const std::uint8_t* data, std::size_t size, std::size_t most = 256) {
  const char* begin = reinterpret_cast<const char*>(data);
  const char separator = std::string(begin, size).find('\0') != std::string::npos ? '\0' : '\n';
  std::vector<std::string> args{"uts"};
  std::string piece;
  for (std::size_t i = 0; i < size && args.size() <= most; ++i) {
    if (begin[i] == separator) {
      args.push_back(piece);
      piece.clear();
    } else {
      piece += begin[i];
    }
  }
  if (!piece.empty() && args.size() <= most) args.push_back(piece);
  return args;
}

// A file of this process's own, rewritten for each input (the config file
// reader takes a path). Its name says the process, so targets run in
// parallel (libFuzzer -jobs, -fork) do not share it.
inline const std::string& scratch_path() {
  static const std::string path = [] {
    const char* dir = std::getenv("TMPDIR");
    return std::string(dir && *dir ? dir : "/tmp") + "/uts-fuzz-" + std::to_string(::getpid()) + ".conf";
  }();
  return path;
}
inline void write_scratch(const std::uint8_t* data, std::size_t size) {
  std::ofstream out(scratch_path(), std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out) broken("scratch", "cannot write " + scratch_path());
}

}  // namespace uts::fuzz
