// AWS profiles from the shared files and S3Options::FromAwsConfig: which file
// and section each setting comes from, the order explicit options >
// environment > profile, credentials taken as a unit, and the errors.
#include "store/aws_config.h"

#include <gtest/gtest.h>

#include "testing/aws_test_environment.h"
#include "turbozarr/open_store.h"
#include "turbozarr/remote_store.h"

namespace turbozarr {
namespace {

using internal::AwsProfile;
using internal::AwsSharedFiles;
using internal::ReadAwsProfile;

// The settings of an AwsProfile or S3Options in one line, so that a test
// states all of them at once.
template <typename Settings>
std::string Summary(const Settings& s) {
  const char* addressing = s.addressing == S3Addressing::kPath            ? "path"
                           : s.addressing == S3Addressing::kVirtualHosted ? "virtual"
                                                                          : "auto";
  return "key=" + s.access_key_id + " secret=" + s.secret_access_key +
         " token=" + s.session_token + " region=" + s.region + " endpoint=" + s.endpoint +
         " addressing=" + addressing;
}

// True if `s` names `path` and `line` as "path:line:".
bool NamesLine(const Status& s, const std::string& path, int line) {
  return s.message().find(path + ":" + std::to_string(line) + ":") != std::string::npos;
}

class AwsConfigTest : public ::testing::Test {
 protected:
  AwsProfile MustRead(std::string_view name) {
    Result<AwsProfile> p = ReadAwsProfile(AwsSharedFiles::FromEnvironment(), name);
    EXPECT_TRUE(p.ok()) << p.status().ToString();
    return p.ok() ? *p : AwsProfile{};
  }
  S3Options MustResolve(S3Options o = {}, std::string profile = "") {
    Result<S3Options> r = S3Options::FromAwsConfig(std::move(o), std::move(profile));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : S3Options{};
  }
  // The error of resolving; fails the test if there is none.
  Status ResolveError(std::string profile = "") {
    Result<S3Options> r = S3Options::FromAwsConfig({}, std::move(profile));
    EXPECT_FALSE(r.ok()) << "resolved, endpoint " << r->endpoint;
    return r.status();
  }

  AwsTestEnvironment env_;
};

TEST_F(AwsConfigTest, FilesAreFoundThroughTheEnvironmentOrHome) {
  AwsSharedFiles f = AwsSharedFiles::FromEnvironment();
  EXPECT_EQ(f.credentials, env_.credentials_path());
  EXPECT_EQ(f.config, env_.config_path());
  env_.Set("HOME", "/home/someone");
  env_.Unset("AWS_SHARED_CREDENTIALS_FILE");
  env_.Set("AWS_CONFIG_FILE", "~/elsewhere/cfg");
  f = AwsSharedFiles::FromEnvironment();
  EXPECT_EQ(f.credentials, "/home/someone/.aws/credentials");
  EXPECT_EQ(f.config, "/home/someone/elsewhere/cfg");
}

TEST_F(AwsConfigTest, ProfilesFromBothFiles) {
  env_.WriteCredentials(
      "[default]\naws_access_key_id = CRED_AK\naws_secret_access_key = CRED_SK\n"
      "[dev]\naws_access_key_id = DEV_AK\naws_secret_access_key = DEV_SK\n"
      "aws_session_token = DEV_TOK\nregion = from-credentials\n");
  env_.WriteConfig(
      "[default]\nregion = eu-west-1\nendpoint_url = http://global:1\n"
      "[profile dev]\nregion = from-config\naws_access_key_id = CFG_AK\n"
      "aws_secret_access_key = CFG_SK\n"
      "s3 =\n  addressing_style = virtual\n  endpoint_url = http://s3-block:2\n"
      "[dev]\nregion = not-a-profile-in-the-config-file\n"
      "[profile cfgonly]\naws_access_key_id = C_AK\naws_secret_access_key = C_SK\n"
      "aws_session_token = C_TOK\n");
  EXPECT_TRUE(MustRead("default").found);
  EXPECT_EQ(Summary(MustRead("default")),
            "key=CRED_AK secret=CRED_SK token= region=eu-west-1 "
            "endpoint=http://global:1 addressing=auto");
  // The credentials file wins, setting by setting.
  EXPECT_EQ(Summary(MustRead("dev")),
            "key=DEV_AK secret=DEV_SK token=DEV_TOK region=from-credentials "
            "endpoint=http://s3-block:2 addressing=virtual");
  EXPECT_EQ(Summary(MustRead("cfgonly")),
            "key=C_AK secret=C_SK token=C_TOK region= endpoint= addressing=auto");
  EXPECT_FALSE(MustRead("nobody").found);
  EXPECT_EQ(Summary(MustRead("nobody")),
            "key= secret= token= region= endpoint= addressing=auto");
}

TEST_F(AwsConfigTest, CredentialsComeFromOneFileAsAUnit) {
  // The token in the config file does not join the keys of the credentials
  // file: it belongs to other keys.
  env_.WriteCredentials("[p]\naws_access_key_id = AK\naws_secret_access_key = SK\n");
  env_.WriteConfig(
      "[profile p]\naws_access_key_id = OLD\naws_secret_access_key = OLD_SK\n"
      "aws_session_token = OLD_TOKEN\n");
  EXPECT_EQ(Summary(MustRead("p")),
            "key=AK secret=SK token= region= endpoint= addressing=auto");
}

TEST_F(AwsConfigTest, ServicesSectionsGiveTheS3Endpoint) {
  env_.WriteConfig(
      "[profile p]\nservices = local\nendpoint_url = http://global:1\n"
      "s3 =\n  endpoint_url = http://block:2\n  addressing_style = path\n"
      "[services local]\ns3 =\n  endpoint_url = http://service:3\n"
      "[profile q]\nservices = missing\n");
  EXPECT_EQ(Summary(MustRead("p")),
            "key= secret= token= region= endpoint=http://service:3 addressing=path");
  Result<AwsProfile> q = ReadAwsProfile(AwsSharedFiles::FromEnvironment(), "q");
  ASSERT_FALSE(q.ok());
  EXPECT_TRUE(NamesLine(q.status(), env_.config_path(), 11)) << q.status().ToString();
  EXPECT_NE(q.status().message().find("[services missing]"), std::string::npos)
      << q.status().ToString();
}

TEST_F(AwsConfigTest, BadSettingsNameFileAndLine) {
  env_.WriteConfig("[default]\nregion = x\ns3 =\n  addressing_style = sideways\n");
  Status s = ResolveError();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(NamesLine(s, env_.config_path(), 4)) << s.ToString();
  EXPECT_NE(s.message().find("sideways"), std::string::npos) << s.ToString();

  env_.WriteConfig("");
  env_.WriteCredentials("[default]\n\naws_access_key_id = AK\n");
  s = ResolveError();
  EXPECT_TRUE(NamesLine(s, env_.credentials_path(), 3)) << s.ToString();
  EXPECT_NE(s.message().find("aws_secret_access_key"), std::string::npos) << s.ToString();

  env_.WriteCredentials("[default]\naws_access_key_id AK\n");
  s = ResolveError();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(NamesLine(s, env_.credentials_path(), 2)) << s.ToString();
}

TEST_F(AwsConfigTest, NoFilesAndNoVariablesMeanAnonymous) {
  const std::string anonymous = "key= secret= token= region= endpoint= addressing=auto";
  EXPECT_EQ(Summary(MustResolve()), anonymous);
  // Files without a default profile are the same.
  env_.WriteConfig("[profile other]\nregion = x\n");
  EXPECT_EQ(Summary(MustResolve()), anonymous);
}

TEST_F(AwsConfigTest, ExplicitThenEnvironmentThenProfile) {
  env_.WriteCredentials(
      "[default]\naws_access_key_id = FILE_AK\naws_secret_access_key = FILE_SK\n"
      "aws_session_token = FILE_TOK\n");
  env_.WriteConfig(
      "[default]\nregion = file-region\nendpoint_url = http://file:1\n"
      "s3 =\n  addressing_style = path\n");
  // The profile alone.
  EXPECT_EQ(Summary(MustResolve()),
            "key=FILE_AK secret=FILE_SK token=FILE_TOK region=file-region "
            "endpoint=http://file:1 addressing=path");

  // The environment over the profile; its keys come without the file's token.
  env_.Set("AWS_ACCESS_KEY_ID", "ENV_AK");
  env_.Set("AWS_SECRET_ACCESS_KEY", "ENV_SK");
  env_.Set("AWS_DEFAULT_REGION", "env-region");
  env_.Set("AWS_ENDPOINT_URL", "http://env:2");
  // No variable sets the addressing.
  EXPECT_EQ(Summary(MustResolve()),
            "key=ENV_AK secret=ENV_SK token= region=env-region endpoint=http://env:2 "
            "addressing=path");

  // Explicit options over both.
  S3Options given;
  given.access_key_id = "OPT_AK";
  given.secret_access_key = "OPT_SK";
  given.region = "opt-region";
  given.endpoint = "http://opt:3";
  given.addressing = S3Addressing::kVirtualHosted;
  given.list_page_size = 17;
  const S3Options o = MustResolve(given);
  EXPECT_EQ(Summary(o),
            "key=OPT_AK secret=OPT_SK token= region=opt-region endpoint=http://opt:3 "
            "addressing=virtual");
  EXPECT_EQ(o.list_page_size, 17) << "other fields pass through";

  // Half a pair in the environment is refused rather than mixed with a file.
  env_.Unset("AWS_SECRET_ACCESS_KEY");
  Status s = ResolveError();
  EXPECT_NE(s.message().find("AWS_SECRET_ACCESS_KEY"), std::string::npos) << s.ToString();
}

TEST_F(AwsConfigTest, ChoosingTheProfile) {
  env_.WriteCredentials(
      "[default]\naws_access_key_id = D_AK\naws_secret_access_key = D_SK\n"
      "[dev]\naws_access_key_id = DEV_AK\naws_secret_access_key = DEV_SK\n");
  env_.WriteConfig("[profile dev]\nregion = dev-region\n");
  env_.Set("AWS_PROFILE", "dev");
  EXPECT_EQ(
      Summary(MustResolve()),
      "key=DEV_AK secret=DEV_SK token= region=dev-region endpoint= addressing=auto");
  // Environment keys win over a profile from AWS_PROFILE...
  env_.Set("AWS_ACCESS_KEY_ID", "ENV_AK");
  env_.Set("AWS_SECRET_ACCESS_KEY", "ENV_SK");
  EXPECT_EQ(MustResolve().access_key_id, "ENV_AK");
  // ...but not over one asked for by name (as with the CLI's --profile).
  EXPECT_EQ(Summary(MustResolve({}, "default")),
            "key=D_AK secret=D_SK token= region= endpoint= addressing=auto");

  // A profile that neither file has is an error, whoever names it.
  Status s = ResolveError("prod");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("'prod'"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find(env_.config_path()), std::string::npos) << s.ToString();
  env_.Set("AWS_PROFILE", "staging");
  s = ResolveError();
  EXPECT_NE(s.message().find("'staging' (from AWS_PROFILE)"), std::string::npos)
      << s.ToString();
}

TEST_F(AwsConfigTest, UnsupportedCredentialSourcesAreErrorsWhenNeeded) {
  env_.WriteConfig(
      "[profile sso]\nregion = us-west-1\nsso_session = corp\n"
      "[profile proc]\ncredential_process = /bin/get-creds\n");
  Status s = ResolveError("sso");
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_NE(s.message().find("sso_session"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find(env_.config_path() + ":3"), std::string::npos)
      << s.ToString();
  EXPECT_EQ(ResolveError("proc").code(), StatusCode::kUnsupported);
  // Credentials given otherwise leave the profile's other settings usable.
  S3Options given;
  given.access_key_id = "AK";
  given.secret_access_key = "SK";
  EXPECT_EQ(Summary(MustResolve(given, "sso")),
            "key=AK secret=SK token= region=us-west-1 endpoint= addressing=auto");
}

TEST_F(AwsConfigTest, OpenStoreReadsTheProfile) {
  env_.WriteConfig("[profile broken]\nregion = x\nregion = y\n");
  StoreOptions options;
  options.s3_profile = "broken";
  auto r = OpenStore("s3://bucket/p", options);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("s3://bucket/p"), std::string::npos)
      << r.status().ToString();
  EXPECT_NE(r.status().message().find(env_.config_path() + ":3:"), std::string::npos)
      << r.status().ToString();
  // Explicit S3 options reach the store: a bad region is refused by it.
  env_.WriteConfig("");
  options.s3_profile = "";
  options.s3.region = "not a region";
  r = OpenStore("s3://bucket/p", options);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("not a region"), std::string::npos)
      << r.status().ToString();
}

}  // namespace
}  // namespace turbozarr
