// NginxServer: a real nginx serving a directory on a loopback port, for tests
// of HTTP clients against a production web server (keep-alive, Range, HEAD).
//
// Start writes a configuration into a fresh temporary directory (pid file,
// logs and temp paths all inside it), picks a free port and runs
// `nginx -p <dir> -c <dir>/nginx.conf` in the foreground as a child process,
// then waits until the port answers. The binary is $TURBOZARR_NGINX if set,
// else the first nginx on PATH or in /usr/sbin. nginx missing is an error
// naming the package to install, so that a test fails rather than skips. The child is
// asked to stop (SIGTERM, then SIGKILL) when the object dies, and the kernel
// stops it if the test process dies first.
//
// Thread safety: Start and the destructor are not thread-safe; call them from
// the thread that lives longest (the main thread), because the child is tied
// to the thread that started it.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

#include "turbozarr/status.h"

namespace turbozarr {

class NginxServer {
 public:
  // Serves `root` (an existing directory) on 127.0.0.1 with `workers`
  // worker processes. With `tls_http2`, over https with HTTP/2 offered (and
  // HTTP/1.1 for clients that do not ask for it), under a self-signed
  // certificate for 127.0.0.1 made by the openssl command at start
  // (cert_path()), and every request logged as "<connection number>
  // <protocol>" (access_log_path()).
  static Result<std::unique_ptr<NginxServer>> Start(const std::string& root,
                                                    int workers = 1,
                                                    bool tls_http2 = false);
  ~NginxServer();
  NginxServer(const NginxServer&) = delete;
  NginxServer& operator=(const NginxServer&) = delete;

  // "http://127.0.0.1:<port>" ("https://" with TLS)
  std::string url() const {
    return std::string(tls_ ? "https" : "http") + "://127.0.0.1:" + std::to_string(port_);
  }
  const std::string& root() const { return root_; }
  // With TLS: the server's certificate (PEM), to trust as a CA file, and the
  // log of requests ("" without TLS).
  std::string cert_path() const { return tls_ ? dir_ + "/cert.pem" : ""; }
  std::string access_log_path() const { return tls_ ? dir_ + "/access.log" : ""; }

 private:
  NginxServer() = default;

  pid_t pid_ = -1;
  int port_ = 0;
  bool tls_ = false;
  std::string dir_;  // configuration, logs, pid file
  std::string root_;
};

// One nginx per test process serving a scratch directory of its own (made on
// first use, removed at exit); tests put files under root() and read them at
// url(). The first failure to start is remembered and returned every time.
Result<NginxServer*> SharedNginx();

}  // namespace turbozarr
