// AWS settings for S3 stores from where the AWS CLI and SDKs find them: the
// environment variables and the shared files. This file reads one profile of
// the shared files; S3Options::FromAwsConfig (turbozarr/store.h, defined in
// aws_config.cc) puts it together with explicit options and the environment:
//
//   explicit options  >  environment variables  >  the profile's settings
//
// The profile is the one asked for, else $AWS_PROFILE, else "default". Its
// settings come from two files (a missing file is an empty one):
//   - $AWS_SHARED_CREDENTIALS_FILE, else ~/.aws/credentials: sections are
//     profile names ("[dev]");
//   - $AWS_CONFIG_FILE, else ~/.aws/config: sections are "[profile dev]",
//     except "[default]".
// A setting in the credentials file wins over the same in the config file,
// as in botocore. Read: aws_access_key_id, aws_secret_access_key and
// aws_session_token (the three from one file, as a unit); region; the
// endpoint from, first to last, "services = NAME" whose "[services NAME]"
// section has an "s3 =" block with endpoint_url, the profile's own "s3 ="
// block's endpoint_url, and the profile's endpoint_url; addressing_style
// (auto, virtual, path) from the profile's "s3 =" block.
//
// Not read: credentials that other credential providers give: instance
// metadata (IMDS), container credentials, SSO, assumed roles, web identity
// and credential_process. A profile that relies on one of them is an
// Unsupported error when its credentials are needed, rather than a silent
// fall back to anonymous requests.
//
// Thread safety: pure functions of the files and the environment.
#pragma once

#include <string>
#include <string_view>

#include "turbozarr/remote_store.h"
#include "turbozarr/status.h"
#include "turbozarr/store.h"

namespace turbozarr::internal {

// The paths of the two shared files.
struct AwsSharedFiles {
  std::string credentials;
  std::string config;

  // From AWS_SHARED_CREDENTIALS_FILE and AWS_CONFIG_FILE, else the files in
  // ~/.aws; a leading "~/" is the home directory.
  static AwsSharedFiles FromEnvironment();
};

// What one profile says about S3. Empty strings are settings it lacks.
struct AwsProfile {
  bool found = false;  // a section of this name is in either file
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;
  std::string region;
  std::string endpoint;
  S3Addressing addressing = S3Addressing::kAuto;
  // Set when the profile has no keys but names a credential source this
  // store cannot use: the message to give if its credentials are needed.
  std::string unsupported_credentials;
};

// Reads profile `name` from `files`. Errors name the file and the line: a
// malformed file, an access key without its secret (or the other way round),
// an unknown addressing_style, a "services" section that is not there.
Result<AwsProfile> ReadAwsProfile(const AwsSharedFiles& files, std::string_view name);

}  // namespace turbozarr::internal
