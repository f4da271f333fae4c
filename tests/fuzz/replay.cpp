// The plain replay driver: a main that runs every file of the corpus
// folders (or files) named on its command line through the fuzz target it
// is linked with, in name order, and fails if there were none. Built in
// every build (GCC or clang, no libFuzzer), so CI replays the committed
// corpus as a test; a broken contract aborts with the input's path printed.
#include <algorithm>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz_target.hpp"

namespace {

// The input being run, for the line an abort prints (a signal handler may
// only write(2) what is already in memory).
char current[4096];

extern "C" void on_crash(int sig) {
  static const char kHead[] = "replay: crashed on ";
  (void)!::write(2, kHead, sizeof kHead - 1);
  (void)!::write(2, current, std::strlen(current));
  (void)!::write(2, "\n", 1);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    const fs::path arg = argv[i];
    if (fs::is_directory(arg)) {
      for (const auto& entry : fs::recursive_directory_iterator(arg))
        if (entry.is_regular_file()) inputs.push_back(entry.path());
    } else {
      inputs.push_back(arg);
    }
  }
  std::sort(inputs.begin(), inputs.end());
  if (inputs.empty()) {
    std::cerr << "replay: no inputs (usage: replay CORPUS_DIR_OR_FILE...)\n";
    return 1;
  }
  // SIGABRT only: a broken contract aborts; a sanitizer's own report (it
  // handles SIGSEGV itself) already says what went wrong.
  std::signal(SIGABRT, on_crash);
  for (const fs::path& p : inputs) {
    std::ifstream in(p, std::ios::binary);
    if (!in) {
      std::cerr << "replay: cannot read " << p.string() << "\n";
      return 1;
    }
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::snprintf(current, sizeof current, "%s", p.c_str());
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  }
  std::cout << "replay: " << inputs.size() << " inputs, contract held\n";
  return 0;
}
