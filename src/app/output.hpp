// Where the results go, every write checked (docs/output.md, section 6): a
// failed or short write, a closed stdout or a broken pipe ends the run with
// one line on stderr and exit status 4, never 0. Records appended to a file
// are written whole, by one write, and taken back if that write fell short.
#pragma once

#include <stdexcept>
#include <string>

namespace uts::app {

class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// At the start of main: a write to a closed pipe must return EPIPE, not kill
// us silently (SIGPIPE ignored); a closed stdin/stdout/stderr gets /dev/null
// in its place, so no file opened later lands on descriptor 1 or 2. A stdout
// that was closed is remembered: writing the results to it fails.
void guard_standard_streams();

// All of `text` to stdout; throws OutputError naming the reason.
void write_stdout(const std::string& text);

// The --output record file: JSON Lines, or CSV under exactly this uts's
// header. Opened (append) and checked before the run, so a bad path or a
// file of another format costs nothing: those throw cli::UsageError.
// "-" means stdout.
class RecordFile {
 public:
  enum class Kind { json_lines, csv };
  RecordFile() = default;
  RecordFile(const std::string& path, Kind kind, const std::string& csv_header);
  ~RecordFile();
  RecordFile(const RecordFile&) = delete;
  RecordFile& operator=(const RecordFile&) = delete;
  RecordFile(RecordFile&& other) noexcept;
  RecordFile& operator=(RecordFile&& other) noexcept;

  bool open() const { return fd_ >= 0 || to_stdout_; }
  bool to_stdout() const { return to_stdout_; }
  // One record: a JSON line, or CSV rows (the header first when the file was
  // empty). Throws OutputError; a short write is taken back first.
  void append(const std::string& json_line, const std::string& csv_rows);

 private:
  std::string path_;
  Kind kind_ = Kind::json_lines;
  std::string header_;
  int fd_ = -1;
  bool to_stdout_ = false;
  bool empty_ = false;  // no bytes when opened: the CSV header goes first
};

// A whole file written to `path` through a temporary file renamed into
// place, so a stop or a failure never leaves half of it. prepare() checks
// the place is writable before the run (UsageError); write() throws
// OutputError.
class WholeFile {
 public:
  WholeFile() = default;
  explicit WholeFile(const std::string& path);
  ~WholeFile();
  WholeFile(const WholeFile&) = delete;
  WholeFile& operator=(const WholeFile&) = delete;
  bool open() const { return fd_ >= 0; }
  void write(const std::string& text);

 private:
  std::string path_, tmp_;
  int fd_ = -1;
};

}  // namespace uts::app
