// tz_http_serve and tz_tcp_throttle as the benchmark harness drives them:
// started with pipes, the URL read from the first line of stdout, files read
// through HttpStore, then ended by closing stdin or by SIGTERM, the counts
// read from stderr.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "turbozarr/remote_store.h"
#include "turbozarr/store.h"

extern char** environ;

namespace turbozarr {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// `binary` started with `args`; its stdin, stdout and stderr are pipes (or
// stdin the file `stdin_path`, when given).
class ServeProcess {
 public:
  explicit ServeProcess(const std::vector<std::string>& args,
                        const char* binary = TZ_HTTP_SERVE, const char* stdin_path = nullptr) {
    int in[2], out[2], err[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 ||
        ::pipe2(err, O_CLOEXEC) != 0) {
      return;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (stdin_path != nullptr) {
      posix_spawn_file_actions_addopen(&actions, 0, stdin_path, O_RDONLY, 0);
    } else {
      posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    }
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_adddup2(&actions, err[1], 2);
    std::vector<std::string> all = {binary};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (posix_spawn(&pid_, binary, &actions, nullptr, argv.data(), environ) != 0) {
      pid_ = -1;
    }
    posix_spawn_file_actions_destroy(&actions);
    ::close(in[0]);
    ::close(out[1]);
    ::close(err[1]);
    stdin_ = in[1];
    stdout_ = out[0];
    stderr_ = err[0];
  }
  ~ServeProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    for (int fd : {stdin_, stdout_, stderr_}) {
      if (fd >= 0) ::close(fd);
    }
  }

  // The first line of stdout, without its newline.
  std::string FirstLine() {
    std::string line;
    char c;
    while (::read(stdout_, &c, 1) == 1 && c != '\n') line += c;
    return line;
  }
  void CloseStdin() {
    ::close(stdin_);
    stdin_ = -1;
  }
  void Signal(int sig) { ::kill(pid_, sig); }
  // CPU time used so far (user and system), in clock ticks.
  long CpuTicks() const {
    std::ifstream stat("/proc/" + std::to_string(pid_) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    std::istringstream rest(text.substr(text.rfind(')') + 2));
    std::string field;
    long utime = 0, stime = 0;
    for (int i = 3; i <= 15 && rest >> field; ++i) {
      if (i == 14) utime = std::stol(field);
      if (i == 15) stime = std::stol(field);
    }
    return utime + stime;
  }
  // Waits for the end; the exit status, or -1 if it did not exit normally.
  int Wait() {
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  // All of stderr (after Wait).
  std::string Stderr() {
    std::string all;
    char buf[4096];
    for (ssize_t n; (n = ::read(stderr_, buf, sizeof(buf))) > 0;) {
      all.append(buf, static_cast<size_t>(n));
    }
    return all;
  }

 private:
  pid_t pid_ = -1;
  int stdin_ = -1, stdout_ = -1, stderr_ = -1;
};

class TzHttpServeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "tz_http_serve-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    fs::create_directories(root_ + "/a.zarr/c/0");
    std::ofstream(root_ + "/a.zarr/zarr.json") << "{}";
    value_ = std::string(200'000, '\0');
    for (size_t i = 0; i < value_.size(); ++i) value_[i] = static_cast<char>(i * 13);
    std::ofstream(root_ + "/a.zarr/c/0/0", std::ios::binary) << value_;
  }
  void TearDown() override { fs::remove_all(root_); }

  std::string root_;
  std::string value_;
};

TEST_F(TzHttpServeTest, ServesTheDirectoryUntilStdinCloses) {
  ServeProcess p({"--root", root_, "--latency-ms", "20", "--megabytes-per-second", "10"});
  const std::string url = p.FirstLine();
  ASSERT_TRUE(std::regex_match(url, std::regex("http://127\\.0\\.0\\.1:[0-9]+"))) << url;
  auto store = MakeHttpStore(url + "/a.zarr");
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  // 200 kB at 10 MB/s after 20 ms: at least 40 ms.
  const auto start = Clock::now();
  auto chunk = (*store)->Get("c/0/0");
  const double ms =
      std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  ASSERT_TRUE(chunk.ok() && chunk->has_value()) << chunk.status().ToString();
  EXPECT_TRUE((*chunk)->chars() == value_);
  EXPECT_GE(ms, 40.0);
  auto part = (*store)->Get("zarr.json", ByteRange::Suffix(1));
  ASSERT_TRUE(part.ok() && part->has_value());
  EXPECT_EQ((*part)->chars(), "}");
  auto absent = (*store)->Get("c/0/1");
  ASSERT_TRUE(absent.ok());
  EXPECT_FALSE(absent->has_value());
  p.CloseStdin();
  EXPECT_EQ(p.Wait(), 0);
  EXPECT_EQ(p.Stderr(),
            "{\"requests\":3,\"bytes_sent\":200001,\"peak_connections\":1}\n");
}

TEST_F(TzHttpServeTest, SigtermEndsIt) {
  ServeProcess p({"--root", root_});
  ASSERT_TRUE(p.FirstLine().starts_with("http://127.0.0.1:"));
  p.Signal(SIGTERM);
  EXPECT_EQ(p.Wait(), 0);
  EXPECT_EQ(p.Stderr(), "{\"requests\":0,\"bytes_sent\":0,\"peak_connections\":0}\n");
}

// A stdin that never ends and is always readable (/dev/zero) is not read:
// the server idles until a signal instead of spinning a core.
TEST_F(TzHttpServeTest, AnEndlessDeviceAsStdinIsNotRead) {
  ServeProcess p({"--root", root_}, TZ_HTTP_SERVE, "/dev/zero");
  ASSERT_TRUE(p.FirstLine().starts_with("http://127.0.0.1:"));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_LT(p.CpuTicks(), 10);  // 0.1 s of 0.5 s at 100 ticks a second
  p.Signal(SIGTERM);
  EXPECT_EQ(p.Wait(), 0);
}

TEST_F(TzHttpServeTest, BadArgumentsAreUsageErrors) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"--root", root_ + "/absent"},
                                             {"--root", root_, "--latency-ms", "-1"},
                                             {"--root", root_, "--port", "70000"},
                                             {"--latency-ms", "5"}}) {
    ServeProcess p(args);
    EXPECT_EQ(p.FirstLine(), "");
    EXPECT_EQ(p.Wait(), 2) << args[1];
    EXPECT_NE(p.Stderr().find("tz_http_serve: "), std::string::npos);
  }
}

// tz_tcp_throttle in front of an unthrottled tz_http_serve: the bytes pass
// unchanged, each request waits the latency, each answer the bandwidth.
TEST_F(TzHttpServeTest, TheTcpThrottleForwardsWithLatencyAndBandwidth) {
  ServeProcess server({"--root", root_});
  const std::string server_url = server.FirstLine();
  ASSERT_TRUE(server_url.starts_with("http://"));
  ServeProcess throttle({"--upstream", server_url.substr(7), "--latency-ms", "30",
                         "--megabytes-per-second", "2"},
                        TZ_TCP_THROTTLE);
  const std::string url = throttle.FirstLine();
  ASSERT_TRUE(std::regex_match(url, std::regex("http://127\\.0\\.0\\.1:[0-9]+"))) << url;
  auto store = MakeHttpStore(url + "/a.zarr");
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  auto timed = [](auto&& f) {
    const auto start = Clock::now();
    f();
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  };
  // 200 kB at 2 MB/s after 30 ms: at least 130 ms.
  Result<std::optional<Buffer>> chunk = Status::OK();
  const double chunk_ms = timed([&] { chunk = (*store)->Get("c/0/0"); });
  ASSERT_TRUE(chunk.ok() && chunk->has_value()) << chunk.status().ToString();
  EXPECT_TRUE((*chunk)->chars() == value_);
  EXPECT_GE(chunk_ms, 125.0);
  Result<std::optional<Buffer>> part = Status::OK();
  const double part_ms =
      timed([&] { part = (*store)->Get("zarr.json", ByteRange::Suffix(1)); });
  ASSERT_TRUE(part.ok() && part->has_value());
  EXPECT_EQ((*part)->chars(), "}");
  EXPECT_GE(part_ms, 29.0);
  auto absent = (*store)->Get("c/0/1");
  ASSERT_TRUE(absent.ok());
  EXPECT_FALSE(absent->has_value());
  throttle.CloseStdin();
  EXPECT_EQ(throttle.Wait(), 0);
  std::smatch m;
  const std::string stats = throttle.Stderr();
  ASSERT_TRUE(std::regex_match(
      stats, m,
      std::regex("\\{\"connections\":([0-9]+),\"peak_connections\":([0-9]+),"
                 "\"bytes_up\":([0-9]+),\"bytes_down\":([0-9]+)\\}\n")))
      << stats;
  EXPECT_EQ(std::stoull(m[1]), std::stoull(m[2]));  // one at a time: kept alive
  EXPECT_GE(std::stoull(m[2]), 1u);
  EXPECT_GT(std::stoull(m[3]), 0u);
  EXPECT_GT(std::stoull(m[4]), value_.size());  // the bodies and their heads
}

// A throttle whose server is gone closes the client's connection: the
// reader gets an error, not a hang.
TEST_F(TzHttpServeTest, TheTcpThrottleClosesWhenItsServerIsGone) {
  std::string port;
  {
    ServeProcess server({"--root", root_});
    const std::string server_url = server.FirstLine();
    port = server_url.substr(server_url.rfind(':') + 1);
    server.Signal(SIGTERM);
    ASSERT_EQ(server.Wait(), 0);
  }
  ServeProcess throttle({"--upstream", "127.0.0.1:" + port}, TZ_TCP_THROTTLE);
  const std::string url = throttle.FirstLine();
  HttpOptions options;
  options.max_retries = 0;
  auto store = MakeHttpStore(url + "/a.zarr", options);
  ASSERT_TRUE(store.ok());
  auto chunk = (*store)->Get("c/0/0");
  EXPECT_FALSE(chunk.ok());
  throttle.Signal(SIGTERM);
  EXPECT_EQ(throttle.Wait(), 0);
}

TEST_F(TzHttpServeTest, TheTcpThrottlesBadArgumentsAreUsageErrors) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"--latency-ms", "5"},
           {"--upstream", "no-port-here"},
           {"--upstream", "127.0.0.1:80", "--megabytes-per-second", "-2"}}) {
    ServeProcess p(args, TZ_TCP_THROTTLE);
    EXPECT_EQ(p.FirstLine(), "");
    EXPECT_EQ(p.Wait(), 2) << args[1];
    EXPECT_NE(p.Stderr().find("tz_tcp_throttle: "), std::string::npos);
  }
}

}  // namespace
}  // namespace turbozarr
