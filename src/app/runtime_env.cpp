// The capture of stderr around the OpenMP runtime's reading of its
// environment (runtime_env.hpp), and the reading of what it said.
#include "app/runtime_env.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <string>

namespace uts::app {

namespace {

int g_saved = -1;   // the real stderr while a capture runs (-1: fd 2 was closed)
int g_memfd = -1;   // where fd 2 writes meanwhile

// The start-up complaint. Function-local: it is written by the program's
// first constructor (init_priority 101), before any namespace-scope object
// of this file with a constructor would be initialised.
std::string& startup() {
  static std::string complaint;
  return complaint;
}

// fd moved to 3 or above (0-2 may be closed: main() reopens them on
// /dev/null later, and must find them closed), close-on-exec.
int high_fd(int fd) {
  if (fd < 0 || fd > 2) return fd;
  const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
  ::close(fd);
  return moved;
}

void write_all(int fd, const std::string& text) {
  std::size_t at = 0;
  while (at < text.size()) {
    const ssize_t w = ::write(fd, text.data() + at, text.size() - at);
    if (w <= 0) return;
    at += static_cast<std::size_t>(w);
  }
}

// A value shown in the message: control characters as \xNN, so one line
// stays one line (a hostile value must not forge a second "uts:" line).
std::string shown(const char* value) {
  std::string out;
  for (const char* p = value; *p != '\0'; ++p) {
    const auto c = static_cast<unsigned char>(*p);
    if (c < 0x20 || c == 0x7f) {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// The OMP_*, GOMP_* or KMP_* name a complaint mentions ("" if none).
std::string variable_in(const std::string& line) {
  for (const char* prefix : {"OMP_", "GOMP_", "KMP_"}) {
    for (std::size_t at = line.find(prefix); at != std::string::npos; at = line.find(prefix, at + 1)) {
      if (at > 0 && (std::isalnum(static_cast<unsigned char>(line[at - 1])) || line[at - 1] == '_')) continue;
      std::size_t end = at;
      while (end < line.size() && (std::isupper(static_cast<unsigned char>(line[end])) ||
                                   std::isdigit(static_cast<unsigned char>(line[end])) || line[end] == '_'))
        ++end;
      return line.substr(at, end - at);
    }
  }
  return "";
}

}  // namespace

void begin_capture() {
  if (g_memfd >= 0) return;
  // stderr closed: captured all the same, since what the runtime says
  // decides the exit status (an OMP_* value it refuses is exit 2), whether
  // or not anyone reads the line; fd 2 is closed again at the end.
  const bool closed = ::fcntl(2, F_GETFD) == -1;
  const int saved = closed ? -1 : ::fcntl(2, F_DUPFD_CLOEXEC, 3);
  if (!closed && saved < 0) return;
  const int mem = high_fd(::memfd_create("uts-runtime-stderr", MFD_CLOEXEC));
  if (mem < 0 || ::dup2(mem, 2) < 0) {
    if (mem >= 0) ::close(mem);
    if (saved >= 0) ::close(saved);
    return;
  }
  g_saved = saved;
  g_memfd = mem;
}

// fd 2 as it was before the capture: the saved stderr, or closed.
void restore_stderr() {
  if (g_memfd < 0) return;
  if (g_saved >= 0) ::dup2(g_saved, 2);
  else ::close(2);
}

std::string end_capture() {
  if (g_memfd < 0) return "";
  restore_stderr();
  if (g_saved >= 0) ::close(g_saved);
  std::string text;
  char buf[4096];
  for (off_t at = 0;;) {
    const ssize_t n = ::pread(g_memfd, buf, sizeof buf, at);
    if (n <= 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    at += n;
  }
  ::close(g_memfd);
  g_saved = g_memfd = -1;
  return text;
}

std::string runtime_complaint(const std::string& captured) {
  std::string complaint, passed;
  std::size_t at = 0;
  while (at < captured.size()) {
    std::size_t end = captured.find('\n', at);
    if (end == std::string::npos) end = captured.size();
    const std::string line = captured.substr(at, end - at);
    at = end + 1;
    // libgomp: "\nlibgomp: <message>\n" (its blank line goes with it).
    // libomp: "OMP: Warning #N: <message>", "OMP: Error #N: ...", each
    // followed by "OMP: Hint ..." lines.
    std::string message;
    if (line.rfind("libgomp: ", 0) == 0) message = line.substr(9);
    else if (line.rfind("OMP: Warning", 0) == 0 || line.rfind("OMP: Error", 0) == 0)
      message = line.substr(line.find(": ", 5) == std::string::npos ? 5 : line.find(": ", 5) + 2);
    else if (line.rfind("OMP: Hint", 0) == 0 || line.empty())
      continue;
    else {
      passed += line + "\n";
      continue;
    }
    if (!complaint.empty()) continue;  // the first one is the line
    const std::string name = variable_in(message);
    const char* value = name.empty() ? nullptr : std::getenv(name.c_str());
    if (value != nullptr)
      complaint = name + ": '" + shown(value) + "' is not a value the OpenMP runtime accepts (it says: " +
                  shown(message.c_str()) + ")";
    else
      complaint = "the OpenMP runtime refuses its environment: " + shown(message.c_str());
  }
  // With a complaint, uts refuses to run and its line is the whole of
  // stderr: libomp's "OMP: Info" lines (the value it will use instead) go,
  // and so does the rest of a complaint whose quoted value held a newline.
  if (!complaint.empty()) passed.clear();
  if (!passed.empty()) write_all(2, passed);
  return complaint;
}

void end_startup_capture() { startup() = runtime_complaint(end_capture()); }

const std::string& startup_complaint() { return startup(); }

}  // namespace uts::app

// The start of the capture: glibc runs an executable's .preinit_array
// before any shared library's constructor, so libgomp's reading of OMP_*
// (in its constructor) writes into the memory file; main.cpp's first
// constructor ends it (end_startup_capture). Not in uts-smpi, which
// SimGrid may load as a shared object (where .preinit_array is refused).
#if !UTS_SMPI
namespace {
void capture_before_libraries(int, char**, char**) { uts::app::begin_capture(); }
}  // namespace
__attribute__((section(".preinit_array"), used)) static void (*const g_capture_before_libraries)(int, char**,
                                                                                                  char**) =
    capture_before_libraries;
#endif
