#include "testing/nginx_server.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "testing/loopback_port.h"

namespace turbozarr {

namespace {

namespace fs = std::filesystem;

std::string FindNginx() {
  if (const char* env = std::getenv("TURBOZARR_NGINX"); env && *env) {
    return ::access(env, X_OK) == 0 ? env : "";
  }
  std::vector<std::string> dirs;
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    for (std::string d; std::getline(ss, d, ':');) dirs.push_back(d);
  }
  for (const char* d : {"/usr/sbin", "/usr/local/sbin", "/sbin"}) dirs.push_back(d);
  for (const std::string& d : dirs) {
    std::string candidate = d + "/nginx";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Config(const std::string& dir, const std::string& root, int port,
                   int workers, bool tls_http2) {
  std::string c;
  c += "daemon off;\nmaster_process on;\n";
  c += "worker_processes " + std::to_string(workers) + ";\n";
  // Workers otherwise drop to an unprivileged user that cannot read a
  // private temporary directory.
  if (::geteuid() == 0) c += "user root;\n";
  c += "pid " + dir + "/nginx.pid;\n";
  c += "error_log " + dir + "/error.log warn;\n";
  c += "events { worker_connections 1024; }\n";
  c += "http {\n";
  if (tls_http2) {
    c += "  log_format connections '$connection $server_protocol';\n";
    c += "  access_log " + dir + "/access.log connections;\n";
  } else {
    c += "  access_log off;\n";
  }
  for (const char* t : {"client_body", "proxy", "fastcgi", "uwsgi", "scgi"}) {
    c += std::string("  ") + t + "_temp_path " + dir + "/" + t + ";\n";
  }
  c += "  default_type application/octet-stream;\n";
  c += "  sendfile on;\n  tcp_nopush on;\n";
  c += "  keepalive_requests 1000000;\n  keepalive_timeout 120s;\n";
  c += "  server {\n";
  if (tls_http2) {
    c += "    listen 127.0.0.1:" + std::to_string(port) + " ssl http2;\n";
    c += "    ssl_certificate " + dir + "/cert.pem;\n";
    c += "    ssl_certificate_key " + dir + "/key.pem;\n";
    c += "    http2_max_concurrent_streams 128;\n";
  } else {
    c += "    listen 127.0.0.1:" + std::to_string(port) + ";\n";
  }
  c += "    root " + root + ";\n";
  // Directories are not values: 404, not a redirect to "dir/".
  c += "    location / { try_files $uri =404; }\n";
  c += "  }\n}\n";
  return c;
}

// A self-signed certificate and key for 127.0.0.1 in `dir` (cert.pem,
// key.pem), made by the openssl command.
Status MakeCertificate(const std::string& dir) {
  const std::string command =
      "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes "
      "-days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 -keyout '" +
      dir + "/key.pem' -out '" + dir + "/cert.pem' > '" + dir + "/openssl.log' 2>&1";
  if (std::system(command.c_str()) != 0) {
    return Status::IOError("making a test certificate with the openssl command failed "
                           "(`apt-get install openssl`): " +
                           ReadFile(dir + "/openssl.log"));
  }
  return Status::OK();
}

}  // namespace

Result<std::unique_ptr<NginxServer>> NginxServer::Start(const std::string& root,
                                                        int workers, bool tls_http2) {
  const std::string nginx = FindNginx();
  if (nginx.empty()) {
    return Status::NotFound(
        "nginx is not installed (not on PATH nor in /usr/sbin, or not at "
        "$TURBOZARR_NGINX): the HTTP store tests need it; run scripts/setup.sh or "
        "`apt-get install nginx`");
  }
  std::string pattern = (fs::temp_directory_path() / "tz-nginx-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    return Status::IOError("mkdtemp " + pattern + ": " + std::strerror(errno));
  }
  std::unique_ptr<NginxServer> server(new NginxServer());
  server->dir_ = pattern;
  server->root_ = root;
  server->tls_ = tls_http2;
  if (tls_http2) TZ_RETURN_NOT_OK(MakeCertificate(server->dir_));
  std::string last_error;
  for (int attempt = 0; attempt < 5; ++attempt) {
    const int port = FreeLoopbackPort();
    const std::string conf = server->dir_ + "/nginx.conf";
    std::ofstream(conf) << Config(server->dir_, root, port, workers, tls_http2);
    const std::string prefix = server->dir_ + "/";
    const std::string error_log = server->dir_ + "/error.log";
    const std::string out_log = server->dir_ + "/stderr.log";
    std::vector<char*> argv = {
        const_cast<char*>(nginx.c_str()),     const_cast<char*>("-p"),
        const_cast<char*>(prefix.c_str()),    const_cast<char*>("-c"),
        const_cast<char*>(conf.c_str()),      const_cast<char*>("-e"),
        const_cast<char*>(error_log.c_str()), nullptr};
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) return Status::IOError(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (::getppid() != parent) ::_exit(127);
      int out = ::open(out_log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      int in = ::open("/dev/null", O_RDONLY);
      if (out >= 0) ::dup2(out, 1), ::dup2(out, 2);
      if (in >= 0) ::dup2(in, 0);
      ::execv(nginx.c_str(), argv.data());
      ::_exit(127);
    }
    server->pid_ = pid;
    server->port_ = port;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      int wstatus = 0;
      if (::waitpid(pid, &wstatus, WNOHANG) == pid) {
        server->pid_ = -1;
        break;
      }
      if (LoopbackPortAnswers(port)) return server;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    last_error = ReadFile(error_log) + ReadFile(out_log);
    if (server->pid_ > 0) {
      return Status::IOError(nginx + " did not answer on port " + std::to_string(port) +
                             " within 10 s: " + last_error);
    }
    if (last_error.find("in use") == std::string::npos) break;  // not a port race
  }
  return Status::IOError(nginx + " failed to start: " + last_error);
}

NginxServer::~NginxServer() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    int wstatus = 0;
    bool gone = false;
    for (int i = 0; i < 500 && !gone; ++i) {
      gone = ::waitpid(pid_, &wstatus, WNOHANG) == pid_;
      if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (!gone) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &wstatus, 0);
    }
  }
  std::error_code ec;
  if (!dir_.empty()) fs::remove_all(dir_, ec);
}

Result<NginxServer*> SharedNginx() {
  struct Shared {
    std::unique_ptr<NginxServer> server;
    Status error;
    std::string root;
    ~Shared() {
      server.reset();
      std::error_code ec;
      if (!root.empty()) fs::remove_all(root, ec);
    }
  };
  static Shared* shared = [] {
    static Shared s;
    std::string pattern = (fs::temp_directory_path() / "tz-www-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      s.error = Status::IOError("mkdtemp " + pattern + ": " + std::strerror(errno));
      return &s;
    }
    s.root = pattern;
    Result<std::unique_ptr<NginxServer>> started = NginxServer::Start(s.root);
    if (started.ok()) {
      s.server = std::move(*started);
    } else {
      s.error = started.status();
    }
    return &s;
  }();
  if (!shared->error.ok()) return shared->error;
  return shared->server.get();
}

}  // namespace turbozarr
