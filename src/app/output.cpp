// Checked writes of the results (output.hpp): stdout, the appended record
// file and whole files renamed into place, every failure an OutputError.
#include "app/output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <utility>

#include "base/printable.hpp"
#include "cli/usage_error.hpp"

namespace uts::app {

namespace {

bool g_stdout_closed = false;

std::string reason(int err) { return std::strerror(err); }

// All of `text` to `fd`; the errno of the failure, or 0.
int write_all(int fd, const std::string& text) {
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return EIO;
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  return 0;
}

// The first line of the file open on `fd` (at most 1 MiB of it).
std::string first_line(int fd) {
  std::string line;
  char buf[4096];
  off_t at = 0;
  while (line.size() < (1u << 20)) {
    const ssize_t n = ::pread(fd, buf, sizeof buf, at);
    if (n <= 0) break;
    const char* nl = static_cast<const char*>(std::memchr(buf, '\n', static_cast<std::size_t>(n)));
    line.append(buf, nl ? static_cast<std::size_t>(nl - buf) : static_cast<std::size_t>(n));
    if (nl) break;
    at += n;
  }
  return line;
}

}  // namespace

void guard_standard_streams() {
  std::signal(SIGPIPE, SIG_IGN);
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    if (fd == 1) g_stdout_closed = true;
    // The lowest free descriptor: this one, since the lower ones are open now.
    const int null = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
    if (null >= 0 && null != fd) {
      ::dup2(null, fd);
      ::close(null);
    }
  }
}

void write_stdout(const std::string& text) {
  if (g_stdout_closed) throw OutputError("cannot write the results: stdout is closed");
  if (const int err = write_all(1, text)) throw OutputError("cannot write the results to stdout: " + reason(err));
}

RecordFile::RecordFile(const std::string& path, Kind kind, const std::string& csv_header)
    : path_(path), kind_(kind), header_(csv_header) {
  if (path == "-") {
    // In place of the normal output, as --format csv prints it: with its header.
    to_stdout_ = true;
    empty_ = kind == Kind::csv;
    return;
  }
  fd_ = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw cli::UsageError("--output: cannot open '" + path + "' for appending: " + reason(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    // A pipe or a device takes what comes: no header to check.
    empty_ = kind == Kind::csv;
    return;
  }
  empty_ = st.st_size == 0;
  if (empty_) return;
  const int readable = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  const std::string line = readable >= 0 ? first_line(readable) : std::string();
  if (readable >= 0) ::close(readable);
  const std::string header = header_.substr(0, header_.find('\n'));
  if (kind == Kind::csv && line != header)
    throw cli::UsageError("--output: '" + path +
                          "' does not start with this uts's CSV header (a JSON Lines file, another program's CSV "
                          "or another version's columns): append to a new file");
  if (kind == Kind::json_lines && (line.empty() || line[0] != '{'))
    throw cli::UsageError("--output: '" + path +
                          "' is not a JSON Lines file (its first line is not a JSON object: a CSV file?): append "
                          "to a new file");
}

RecordFile::~RecordFile() {
  if (fd_ >= 0) ::close(fd_);
}

RecordFile::RecordFile(RecordFile&& other) noexcept { *this = std::move(other); }

RecordFile& RecordFile::operator=(RecordFile&& other) noexcept {
  std::swap(path_, other.path_);
  std::swap(kind_, other.kind_);
  std::swap(header_, other.header_);
  std::swap(fd_, other.fd_);
  std::swap(to_stdout_, other.to_stdout_);
  std::swap(empty_, other.empty_);
  return *this;
}

void RecordFile::append(const std::string& json_line, const std::string& csv_rows) {
  std::string chunk = kind_ == Kind::csv ? (empty_ ? header_ + csv_rows : csv_rows) : json_line;
  if (to_stdout_) return write_stdout(chunk);
  if (fd_ < 0) return;
  struct stat before {};
  const bool sized = ::fstat(fd_, &before) == 0 && S_ISREG(before.st_mode);
  // One write with O_APPEND: the record lands whole or, if the write falls
  // short (a full disk), what landed is taken back.
  const ssize_t n = ::write(fd_, chunk.data(), chunk.size());
  if (n == static_cast<ssize_t>(chunk.size())) {
    empty_ = false;
    return;
  }
  const int err = n < 0 ? errno : ENOSPC;
  if (sized && n > 0) {
    struct stat after {};
    // Only if nobody else appended meanwhile.
    if (::fstat(fd_, &after) == 0 && after.st_size == before.st_size + n)
      if (::ftruncate(fd_, before.st_size) != 0) {
        // Nothing more to do: the message below says the record was not written.
      }
  }
  // OutputError is no UsageError: the path a user gave is made printable here.
  throw OutputError(printable_line("--output: cannot append the record to '" + path_ + "': " + reason(err)));
}

WholeFile::WholeFile(const std::string& path) : path_(path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    // A device or a pipe: written in place (nothing to rename over it).
    fd_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd_ < 0) throw cli::UsageError("cannot write '" + path + "': " + reason(errno));
    return;
  }
  tmp_ = path + ".tmp";
  fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw cli::UsageError("cannot write '" + path + "' (its temporary file '" + tmp_ + "': " + reason(errno) + ")");
}

WholeFile::~WholeFile() {
  if (fd_ >= 0) {
    ::close(fd_);
    if (!tmp_.empty()) ::unlink(tmp_.c_str());  // never renamed: nothing half-written is left
  }
}

void WholeFile::write(const std::string& text) {
  if (fd_ < 0) return;
  int err = write_all(fd_, text);
  if (::close(fd_) != 0 && err == 0) err = errno;
  fd_ = -1;
  if (err == 0 && !tmp_.empty() && ::rename(tmp_.c_str(), path_.c_str()) != 0) err = errno;
  if (err != 0) {
    if (!tmp_.empty()) ::unlink(tmp_.c_str());
    throw OutputError(printable_line("cannot write '" + path_ + "': " + reason(err)));
  }
}

}  // namespace uts::app
