// AwsTestEnvironment: an AWS environment of a test's own for the length of a
// test. It unsets every AWS variable the S3 store reads, points
// AWS_SHARED_CREDENTIALS_FILE and AWS_CONFIG_FILE at files in a scratch
// directory (absent until written), and on destruction puts every variable
// back as it was and removes the directory.
//
// Thread safety: setenv is not safe while another thread reads the
// environment; make and destroy it on the test's thread while no store is
// at work.
#pragma once

#include <stdlib.h>

#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "testing/store_conformance.h"

namespace turbozarr {

class AwsTestEnvironment {
 public:
  AwsTestEnvironment() : dir_(MakeScratchDir()) {
    for (const char* name : {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
                             "AWS_SESSION_TOKEN", "AWS_REGION", "AWS_DEFAULT_REGION",
                             "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_PROFILE"}) {
      Unset(name);
    }
    Set("AWS_SHARED_CREDENTIALS_FILE", credentials_path());
    Set("AWS_CONFIG_FILE", config_path());
  }
  ~AwsTestEnvironment() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->second) {
        ::setenv(it->first.c_str(), it->second->c_str(), 1);
      } else {
        ::unsetenv(it->first.c_str());
      }
    }
    RemoveScratchDir(dir_);
  }
  AwsTestEnvironment(const AwsTestEnvironment&) = delete;
  AwsTestEnvironment& operator=(const AwsTestEnvironment&) = delete;

  void Set(const std::string& name, const std::string& value) {
    Save(name);
    ::setenv(name.c_str(), value.c_str(), 1);
  }
  void Unset(const std::string& name) {
    Save(name);
    ::unsetenv(name.c_str());
  }

  std::string credentials_path() const { return dir_ + "/credentials"; }
  std::string config_path() const { return dir_ + "/config"; }
  const std::string& dir() const { return dir_; }

  void WriteCredentials(const std::string& text) const {
    Write(credentials_path(), text);
  }
  void WriteConfig(const std::string& text) const { Write(config_path(), text); }
  static void Write(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  }

 private:
  void Save(const std::string& name) {
    const char* v = std::getenv(name.c_str());
    saved_.emplace_back(name,
                        v != nullptr ? std::optional<std::string>(v) : std::nullopt);
  }

  std::string dir_;
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

}  // namespace turbozarr
