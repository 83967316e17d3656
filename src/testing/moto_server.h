// MotoServer: an S3-compatible server (moto in server mode) on a loopback
// port, for tests of the S3 store against a real HTTP implementation of the
// S3 API.
//
// Start picks a free port and runs moto's server (`moto.server.main`, with
// Nagle's algorithm off on its connections) on 127.0.0.1 as a child process,
// waits until the port answers, and then makes moto check every signature:
// the server is started with INITIAL_NO_AUTH_ACTION_COUNT so that only the
// first few requests go unchecked, and those create an IAM user with an
// access key and a policy allowing s3:*. From then on moto recomputes each
// request's SigV4 signature with botocore and refuses a mismatch, so tests
// exercise real signing. Multipart parts (but the last) must be larger than
// 5 MiB (S3: at least 5 MiB), so that tests can make an upload fail at
// Complete with parts of exactly 5 MiB.
//
// The Python is $TURBOZARR_PYTHON if set, else the project's .venv (made by
// scripts/setup.sh), else python3 on PATH. moto missing, or a server that
// does not come up, is an error naming what to install, so that tests fail
// rather than skip. The child is stopped (SIGTERM, then SIGKILL) when the
// object dies, and by the kernel if the test process dies first.
//
// Thread safety: Start and the destructor are not thread-safe; call them from
// the main thread. The accessors may be called from any thread.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

#include "turbozarr/remote_store.h"
#include "turbozarr/status.h"
#include "turbozarr/store.h"

namespace turbozarr {

class MotoServer {
 public:
  static Result<std::unique_ptr<MotoServer>> Start();
  ~MotoServer();
  MotoServer(const MotoServer&) = delete;
  MotoServer& operator=(const MotoServer&) = delete;

  // "http://127.0.0.1:<port>"
  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // The Python that runs moto (with zarr and obstore alongside it).
  const std::string& python() const { return python_; }
  // Options that reach this server as the IAM user it checks signatures of,
  // with short timeouts and retries for tests.
  S3Options Options() const;
  // Creates `bucket` (an existing one is fine).
  Status CreateBucket(const std::string& bucket) const;

 private:
  MotoServer() = default;
  Status CreateUser();

  pid_t pid_ = -1;
  int port_ = 0;
  std::string dir_;  // logs
  std::string python_;
  std::string access_key_id_;
  std::string secret_access_key_;
};

// One moto per test process, started on first use. The first failure to
// start is remembered and returned every time.
Result<MotoServer*> SharedMoto();

// A bucket name not used before in this process ("tz-<pid>-<n>").
std::string FreshBucketName();

}  // namespace turbozarr
