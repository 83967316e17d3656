#include "testing/moto_server.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "store/http_transport.h"
#include "store/s3_xml.h"
#include "store/sigv4.h"
#include "store/url_encoding.h"
#include "testing/loopback_port.h"

#ifndef TURBOZARR_VENV_PYTHON
#define TURBOZARR_VENV_PYTHON ""
#endif

namespace turbozarr {

namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

// The requests moto serves before it starts checking signatures: the three
// IAM calls of CreateUser().
constexpr int kUncheckedRequests = 3;

// moto refuses to complete a multipart upload with a part (but the last)
// smaller than this: one byte above S3's 5 MiB, so that a test can make a
// Complete fail on purpose with parts of exactly 5 MiB.
constexpr char kPartMinimum[] = "S3_UPLOAD_PART_MIN_SIZE=5242881";

// Runs moto's server with Nagle's algorithm off on its connections: werkzeug
// writes a response's headers and body separately, and on a kept-alive
// connection the body would otherwise wait for the client's delayed ACK
// (40 ms a request).
//
// moto checks a conditional write's If-Match / If-None-Match and then stores
// the object, and its threaded server may run another write of the same key
// in between; S3 makes the check and the store one step. Writes of objects
// (PUT, DELETE, and POST, which completes multipart uploads) therefore run
// one at a time, as S3's conditional writes behave; reads stay concurrent.
constexpr char kBootstrap[] =
    "import socketserver, sys, threading\n"
    "socketserver.StreamRequestHandler.disable_nagle_algorithm = True\n"
    "from moto.s3.responses import S3Response\n"
    "_writes = threading.Lock()\n"
    "def _one_at_a_time(f):\n"
    "    def g(*a, **k):\n"
    "        with _writes:\n"
    "            return f(*a, **k)\n"
    "    return g\n"
    "for _name in ('put_object', 'delete_object', '_key_response_post'):\n"
    "    setattr(S3Response, _name, _one_at_a_time(getattr(S3Response, _name)))\n"
    "from moto.server import main\n"
    "main(sys.argv[1:])\n";

std::string FindPython() {
  if (const char* env = std::getenv("TURBOZARR_PYTHON"); env && *env) return env;
  const std::string venv = TURBOZARR_VENV_PYTHON;
  if (!venv.empty() && ::access(venv.c_str(), X_OK) == 0) return venv;
  return "python3";
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

HttpOptions TestHttpOptions() {
  HttpOptions o;
  o.connect_timeout = milliseconds(2000);
  o.idle_timeout = milliseconds(20'000);  // moto is slow under load
  o.max_retries = 3;
  o.backoff_base = milliseconds(5);
  o.backoff_max = milliseconds(50);
  o.max_concurrency = 8;
  return o;
}

// application/x-www-form-urlencoded
std::string FormEncode(const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string out;
  for (const auto& [name, value] : fields) {
    if (!out.empty()) out += '&';
    out += PercentEncode(name, Slash::kEncode) + "=" + PercentEncode(value, Slash::kEncode);
  }
  return out;
}

}  // namespace

Result<std::unique_ptr<MotoServer>> MotoServer::Start() {
  const std::string python = FindPython();
  std::string pattern = (fs::temp_directory_path() / "tz-moto-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    return Status::IOError("mkdtemp " + pattern + ": " + std::strerror(errno));
  }
  std::unique_ptr<MotoServer> server(new MotoServer());
  server->dir_ = pattern;
  server->python_ = python;
  const std::string log = server->dir_ + "/moto.log";
  const std::string hint =
      "; the S3 store tests need moto's server (requirements-dev.txt: run "
      "scripts/setup.sh, or set TURBOZARR_PYTHON to a Python that has "
      "'moto[s3]', flask and flask-cors)";
  std::string last_error;
  for (int attempt = 0; attempt < 5; ++attempt) {
    const int port = FreeLoopbackPort();
    const std::string port_arg = std::to_string(port);
    // The environment is built before fork: the child of a threaded process
    // may only make async-signal-safe calls.
    const std::string count =
        "INITIAL_NO_AUTH_ACTION_COUNT=" + std::to_string(kUncheckedRequests);
    std::vector<const char*> envp;
    for (char** e = environ; *e != nullptr; ++e) {
      if (!std::string_view(*e).starts_with("MOTO_PORT=") &&
          !std::string_view(*e).starts_with("INITIAL_NO_AUTH_ACTION_COUNT=") &&
          !std::string_view(*e).starts_with("S3_UPLOAD_PART_MIN_SIZE=")) {
        envp.push_back(*e);
      }
    }
    envp.push_back(count.c_str());
    envp.push_back(kPartMinimum);
    envp.push_back(nullptr);
    std::vector<const char*> argv = {python.c_str(), "-c", kBootstrap,       "-H",
                                     "127.0.0.1",    "-p", port_arg.c_str(), nullptr};
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) return Status::IOError(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (::getppid() != parent) ::_exit(127);
      int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      int in = ::open("/dev/null", O_RDONLY);
      if (out >= 0) ::dup2(out, 1), ::dup2(out, 2);
      if (in >= 0) ::dup2(in, 0);
      ::execvpe(python.c_str(), const_cast<char* const*>(argv.data()),
                const_cast<char* const*>(envp.data()));
      ::_exit(127);
    }
    server->pid_ = pid;
    server->port_ = port;
    // Importing moto takes seconds, more on a loaded machine.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    bool exited = false;
    int wstatus = 0;
    while (std::chrono::steady_clock::now() < deadline) {
      if (::waitpid(pid, &wstatus, WNOHANG) == pid) {
        server->pid_ = -1;
        exited = true;
        break;
      }
      if (LoopbackPortAnswers(port)) {
        TZ_RETURN_NOT_OK(server->CreateUser());
        return server;
      }
      std::this_thread::sleep_for(milliseconds(20));
    }
    last_error = ReadFile(log);
    if (!exited) {
      return Status::IOError("moto.server (" + python + ") did not answer on port " +
                             port_arg + " within 60 s: " + last_error + hint);
    }
    if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 127) {
      return Status::NotFound("cannot run " + python + hint);
    }
    if (last_error.find("in use") == std::string::npos) break;  // not a port race
  }
  return Status::IOError("moto.server (" + python + ") failed to start: " + last_error +
                         hint);
}

Status MotoServer::CreateUser() {
  // Unchecked requests still need a well-formed signature: moto routes them to
  // a service by the credential scope.
  const sigv4::SigV4Signer signer({"AKIAIOSFODNN7EXAMPLE", "unchecked", ""}, "us-east-1",
                                  "iam");
  HttpTransport transport(TestHttpOptions());
  const std::string host = "127.0.0.1:" + std::to_string(port_);
  auto call = [&](std::vector<std::pair<std::string, std::string>> fields)
      -> Result<std::string> {
    const std::string action = fields.front().second;
    fields.emplace_back("Version", "2010-05-08");
    const std::string body = FormEncode(fields);
    sigv4::CanonicalInput in;
    in.method = "POST";
    in.path = "/";
    in.headers = {{"host", host},
                  {"content-type", "application/x-www-form-urlencoded; charset=utf-8"}};
    in.payload_hash = sigv4::Sha256Hex(AsBytes(body));
    sigv4::SignedRequest s = signer.Sign(in, std::chrono::system_clock::now());
    HttpRequest r;
    r.method = "POST";
    r.url = endpoint() + "/";
    r.body = AsBytes(body);
    r.headers = {"Host: " + host,
                 "Content-Type: application/x-www-form-urlencoded; charset=utf-8"};
    for (std::string& h : s.headers) r.headers.push_back(std::move(h));
    TZ_ASSIGN_OR_RETURN(HttpResponse resp, transport.Fetch(std::move(r)));
    if (resp.status != 200) {
      return Status::IOError("moto IAM " + action + ": HTTP " +
                             std::to_string(resp.status) + ": " +
                             std::string(resp.body.chars()));
    }
    return std::string(resp.body.chars());
  };
  const std::string user = "turbozarr-test";
  TZ_RETURN_NOT_OK(call({{"Action", "CreateUser"}, {"UserName", user}}).status());
  TZ_ASSIGN_OR_RETURN(std::string key,
                      call({{"Action", "CreateAccessKey"}, {"UserName", user}}));
  TZ_RETURN_NOT_OK(call({{"Action", "PutUserPolicy"},
                         {"UserName", user},
                         {"PolicyName", "s3-all"},
                         {"PolicyDocument",
                          R"({"Version":"2012-10-17","Statement":[{"Effect":"Allow",)"
                          R"("Action":"s3:*","Resource":"*"}]})"}})
                       .status());
  TZ_ASSIGN_OR_RETURN(std::optional<std::string> id,
                      s3xml::FirstText(key, "AccessKeyId"));
  TZ_ASSIGN_OR_RETURN(std::optional<std::string> secret,
                      s3xml::FirstText(key, "SecretAccessKey"));
  if (!id || !secret)
    return Status::IOError("moto IAM CreateAccessKey: no key in " + key);
  access_key_id_ = *id;
  secret_access_key_ = *secret;
  return Status::OK();
}

S3Options MotoServer::Options() const {
  S3Options o;
  o.endpoint = endpoint();
  o.region = "us-east-1";
  o.access_key_id = access_key_id_;
  o.secret_access_key = secret_access_key_;
  o.http = TestHttpOptions();
  return o;
}

Status MotoServer::CreateBucket(const std::string& bucket) const {
  S3Options o = Options();
  HttpTransport transport(o.http);
  const std::string host = "127.0.0.1:" + std::to_string(port_);
  const sigv4::SigV4Signer signer({o.access_key_id, o.secret_access_key, ""}, o.region,
                                  "s3");
  sigv4::CanonicalInput in;
  in.method = "PUT";
  in.path = "/" + PercentEncode(bucket, Slash::kEncode);
  in.headers = {{"host", host}};
  in.payload_hash = sigv4::Sha256Hex({});
  sigv4::SignedRequest s = signer.Sign(in, std::chrono::system_clock::now());
  HttpRequest r;
  r.method = "PUT";
  r.url = endpoint() + in.path;
  r.headers = {"Host: " + host};
  for (std::string& h : s.headers) r.headers.push_back(std::move(h));
  TZ_ASSIGN_OR_RETURN(HttpResponse resp, transport.Fetch(std::move(r)));
  if (resp.status != 200 &&
      resp.body.chars().find("BucketAlreadyOwnedByYou") == std::string_view::npos) {
    return Status::IOError("moto CreateBucket " + bucket + ": HTTP " +
                           std::to_string(resp.status) + ": " +
                           std::string(resp.body.chars()));
  }
  return Status::OK();
}

MotoServer::~MotoServer() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    int wstatus = 0;
    bool gone = false;
    for (int i = 0; i < 500 && !gone; ++i) {
      gone = ::waitpid(pid_, &wstatus, WNOHANG) == pid_;
      if (!gone) std::this_thread::sleep_for(milliseconds(10));
    }
    if (!gone) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &wstatus, 0);
    }
  }
  std::error_code ec;
  if (!dir_.empty()) fs::remove_all(dir_, ec);
}

Result<MotoServer*> SharedMoto() {
  struct Shared {
    std::unique_ptr<MotoServer> server;
    Status error;
  };
  static Shared* shared = [] {
    static Shared s;
    Result<std::unique_ptr<MotoServer>> started = MotoServer::Start();
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

std::string FreshBucketName() {
  static std::atomic<int> n{0};
  return "tz-" + std::to_string(::getpid()) + "-" + std::to_string(n++);
}

}  // namespace turbozarr
