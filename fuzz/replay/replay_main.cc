// A main for a fuzz target without libFuzzer: runs LLVMFuzzerTestOneInput
// once on every file named on the command line and on every file in the
// directories named there (not recursively, in name order), after
// LLVMFuzzerInitialize if the target defines one. This is how ctest
// replays the corpora with any compiler (fuzz/replay/CMakeLists.txt):
//
//   fuzz/replay/codec_fuzzer_replay fuzz/corpus/codec_fuzzer
//   build/fuzz/seeds/codec_fuzzer
//
// A target reports a broken invariant by aborting, and the sanitizers
// report what they catch by ending the process: either way the input being
// run is named on stderr first. A directory that is missing or holds no
// file fails the replay, so that a corpus moved away is not a silent pass.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);
// Defined when a sanitizer runtime is linked in: called as it ends the
// process after a report.
extern "C" __attribute__((weak)) void __sanitizer_set_death_callback(
    void (*callback)(void));

namespace {

namespace fs = std::filesystem;

// The input being run, kept in a fixed buffer so that the signal handler
// can write it without allocating.
char g_current[4096] = "(none)";

void NameCurrentInput() {
  const char prefix[] = "replay: failed on input ";
  ssize_t ignored = ::write(STDERR_FILENO, prefix, sizeof(prefix) - 1);
  ignored = ::write(STDERR_FILENO, g_current, std::strlen(g_current));
  ignored = ::write(STDERR_FILENO, "\n", 1);
  (void)ignored;
}

extern "C" void OnFatalSignal(int sig) {
  NameCurrentInput();
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

bool ReadFile(const fs::path& path, std::vector<uint8_t>& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return !in.bad();
}

}  // namespace

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    const fs::path arg = argv[i];
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
      std::vector<fs::path> files;
      for (const fs::directory_entry& e : fs::directory_iterator(arg, ec)) {
        if (e.is_regular_file()) files.push_back(e.path());
      }
      if (ec || files.empty()) {
        std::fprintf(stderr, "replay: %s holds no inputs\n", argv[i]);
        return 2;
      }
      std::sort(files.begin(), files.end());
      inputs.insert(inputs.end(), files.begin(), files.end());
    } else if (fs::is_regular_file(arg, ec)) {
      inputs.push_back(arg);
    } else {
      std::fprintf(stderr, "replay: no such file or directory: %s\n", argv[i]);
      return 2;
    }
  }
  if (inputs.empty()) {
    std::fprintf(stderr, "usage: %s FILE_OR_DIRECTORY...\n", argv[0]);
    return 2;
  }

  ::signal(SIGABRT, OnFatalSignal);
  if (__sanitizer_set_death_callback) {
    __sanitizer_set_death_callback(NameCurrentInput);
  } else {
    // Without a sanitizer nothing else reports these; with one, its own
    // handlers do, and call the death callback.
    for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL}) ::signal(sig, OnFatalSignal);
  }

  std::vector<uint8_t> data;
  for (const fs::path& path : inputs) {
    if (!ReadFile(path, data)) {
      std::fprintf(stderr, "replay: cannot read %s\n", path.c_str());
      return 2;
    }
    const std::string name = path.string();
    std::snprintf(g_current, sizeof(g_current), "%s", name.c_str());
    // The input in a block of exactly its size, as libFuzzer hands it
    // over, so that ASan catches a read one byte past its end.
    std::unique_ptr<uint8_t[]> copy(new uint8_t[std::max<size_t>(data.size(), 1)]);
    std::copy(data.begin(), data.end(), copy.get());
    LLVMFuzzerTestOneInput(copy.get(), data.size());
  }
  std::printf("replay: %zu inputs, all passed\n", inputs.size());
  return 0;
}
