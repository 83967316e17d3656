#include "store/aws_config.h"

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <vector>

#include "store/aws_ini.h"

namespace turbozarr {

namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

std::string HomeDirectory() {
  if (std::string home = Env("HOME"); !home.empty()) return home;
  std::vector<char> buf(16384);
  struct passwd pw;
  struct passwd* found = nullptr;
  if (::getpwuid_r(::getuid(), &pw, buf.data(), buf.size(), &found) == 0 &&
      found != nullptr && found->pw_dir != nullptr) {
    return found->pw_dir;
  }
  return "";
}

std::string ExpandHome(std::string path) {
  if (path == "~" || path.starts_with("~/")) {
    if (std::string home = HomeDirectory(); !home.empty()) path.replace(0, 1, home);
  }
  return path;
}

// The section "[<kind> <name>]" (any blanks between the two), or nullptr.
const internal::AwsIniSection* FindNamed(const internal::AwsIniFile& file,
                                         std::string_view kind, std::string_view name) {
  for (const internal::AwsIniSection& s : file.sections) {
    std::string_view rest = s.name;
    if (!rest.starts_with(kind)) continue;
    rest.remove_prefix(kind.size());
    if (rest.empty() || (rest.front() != ' ' && rest.front() != '\t')) continue;
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t'))
      rest.remove_prefix(1);
    if (rest == name) return &s;
  }
  return nullptr;
}

// A setting and where it was written.
struct Found {
  const internal::AwsIniValue* value = nullptr;
  const internal::AwsIniFile* file = nullptr;
  explicit operator bool() const { return value != nullptr; }
  std::string Where() const { return file->Where(value->line); }
};

// One profile's sections: the credentials file's, then the config file's.
class ProfileSections {
 public:
  void Add(const internal::AwsIniFile* file, const internal::AwsIniSection* section) {
    if (section != nullptr) sections_.push_back({file, section});
  }
  bool empty() const { return sections_.empty(); }

  Found Get(std::string_view name) const {
    for (const auto& [file, section] : sections_) {
      if (const internal::AwsIniValue* v = section->Find(name)) return {v, file};
    }
    return {};
  }
  Found GetIn(std::string_view block, std::string_view name) const {
    for (const auto& [file, section] : sections_) {
      if (const internal::AwsIniValue* v = section->FindIn(block, name)) return {v, file};
    }
    return {};
  }

  // The keys of the first section that has any, checked to come in pairs.
  Status Credentials(std::string_view profile, internal::AwsProfile* out) const {
    for (const auto& [file, section] : sections_) {
      const internal::AwsIniValue* id = section->Find("aws_access_key_id");
      const internal::AwsIniValue* secret = section->Find("aws_secret_access_key");
      if (id == nullptr && secret == nullptr) continue;
      if (id == nullptr || secret == nullptr || id->value.empty() ||
          secret->value.empty()) {
        const internal::AwsIniValue* given = id != nullptr ? id : secret;
        return Status::InvalidArgument(
            "AWS config file " + file->Where(given->line) + ": profile '" +
            std::string(profile) +
            "' needs both aws_access_key_id and aws_secret_access_key, not one");
      }
      out->access_key_id = id->value;
      out->secret_access_key = secret->value;
      if (const internal::AwsIniValue* t = section->Find("aws_session_token"))
        out->session_token = t->value;
      return Status::OK();
    }
    // Credentials this store cannot fetch: say so when they are needed.
    for (const char* source : {"credential_process", "role_arn", "sso_session",
                               "sso_start_url", "web_identity_token_file"}) {
      if (Found f = Get(source)) {
        out->unsupported_credentials =
            "AWS profile '" + std::string(profile) + "' gets its credentials through " +
            source + " (" + f.Where() +
            "), which turbozarr does not support; give keys in the profile, the "
            "environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY) or the options";
        break;
      }
    }
    return Status::OK();
  }

 private:
  std::vector<std::pair<const internal::AwsIniFile*, const internal::AwsIniSection*>>
      sections_;
};

Result<std::string> Endpoint(const ProfileSections& profile,
                             const std::optional<internal::AwsIniFile>& config) {
  if (Found services = profile.Get("services")) {
    const internal::AwsIniSection* s =
        config ? FindNamed(*config, "services", services.value->value) : nullptr;
    if (s == nullptr) {
      return Status::InvalidArgument(
          "AWS config file " + services.Where() + ": services '" + services.value->value +
          "' has no [services " + services.value->value + "] section in the config file");
    }
    if (const internal::AwsIniValue* v = s->FindIn("s3", "endpoint_url")) return v->value;
  }
  if (Found f = profile.GetIn("s3", "endpoint_url")) return f.value->value;
  if (Found f = profile.Get("endpoint_url")) return f.value->value;
  return std::string();
}

Result<S3Addressing> Addressing(const ProfileSections& profile) {
  const Found f = profile.GetIn("s3", "addressing_style");
  if (!f || f.value->value == "auto") return S3Addressing::kAuto;
  if (f.value->value == "virtual") return S3Addressing::kVirtualHosted;
  if (f.value->value == "path") return S3Addressing::kPath;
  return Status::InvalidArgument(
      "AWS config file " + f.Where() +
      ": addressing_style must be auto, virtual or path, not '" + f.value->value + "'");
}

}  // namespace

namespace internal {

AwsSharedFiles AwsSharedFiles::FromEnvironment() {
  AwsSharedFiles f;
  f.credentials = Env("AWS_SHARED_CREDENTIALS_FILE");
  if (f.credentials.empty()) f.credentials = "~/.aws/credentials";
  f.config = Env("AWS_CONFIG_FILE");
  if (f.config.empty()) f.config = "~/.aws/config";
  f.credentials = ExpandHome(std::move(f.credentials));
  f.config = ExpandHome(std::move(f.config));
  return f;
}

Result<AwsProfile> ReadAwsProfile(const AwsSharedFiles& files, std::string_view name) {
  TZ_ASSIGN_OR_RETURN(std::optional<AwsIniFile> credentials,
                      ReadAwsIniFile(files.credentials));
  TZ_ASSIGN_OR_RETURN(std::optional<AwsIniFile> config, ReadAwsIniFile(files.config));
  ProfileSections sections;
  if (credentials) sections.Add(&*credentials, credentials->Find(name));
  if (config) {
    const AwsIniSection* s = FindNamed(*config, "profile", name);
    if (s == nullptr && name == "default") s = config->Find("default");
    sections.Add(&*config, s);
  }
  AwsProfile p;
  p.found = !sections.empty();
  TZ_RETURN_NOT_OK(sections.Credentials(name, &p));
  if (Found region = sections.Get("region")) p.region = region.value->value;
  TZ_ASSIGN_OR_RETURN(p.endpoint, Endpoint(sections, config));
  TZ_ASSIGN_OR_RETURN(p.addressing, Addressing(sections));
  return p;
}

}  // namespace internal

S3Options S3Options::FromEnvironment() {
  S3Options o;
  o.access_key_id = Env("AWS_ACCESS_KEY_ID");
  o.secret_access_key = Env("AWS_SECRET_ACCESS_KEY");
  o.session_token = Env("AWS_SESSION_TOKEN");
  o.region = Env("AWS_REGION");
  if (o.region.empty()) o.region = Env("AWS_DEFAULT_REGION");
  o.endpoint = Env("AWS_ENDPOINT_URL_S3");
  if (o.endpoint.empty()) o.endpoint = Env("AWS_ENDPOINT_URL");
  return o;
}

Result<S3Options> S3Options::FromAwsConfig(S3Options options, std::string profile) {
  // As with the CLI's --profile, a profile asked for by name takes its
  // credentials from the files even when the environment has keys; one named
  // by AWS_PROFILE does not.
  const bool asked = !profile.empty();
  if (profile.empty()) profile = Env("AWS_PROFILE");
  if (profile.empty()) profile = "default";
  const internal::AwsSharedFiles files = internal::AwsSharedFiles::FromEnvironment();
  TZ_ASSIGN_OR_RETURN(internal::AwsProfile p, internal::ReadAwsProfile(files, profile));
  if (!p.found && profile != "default") {
    return Status::InvalidArgument(
        "AWS profile '" + profile + "'" + (asked ? "" : " (from AWS_PROFILE)") +
        " is in neither " + files.credentials + " nor " + files.config);
  }
  const S3Options env = FromEnvironment();
  if (options.access_key_id.empty() && options.secret_access_key.empty() &&
      options.session_token.empty()) {
    const bool env_keys = !env.access_key_id.empty() || !env.secret_access_key.empty();
    if (env_keys && !asked) {
      if (env.access_key_id.empty() || env.secret_access_key.empty()) {
        return Status::InvalidArgument(
            "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set together");
      }
      options.access_key_id = env.access_key_id;
      options.secret_access_key = env.secret_access_key;
      options.session_token = env.session_token;
    } else if (!p.access_key_id.empty()) {
      options.access_key_id = std::move(p.access_key_id);
      options.secret_access_key = std::move(p.secret_access_key);
      options.session_token = std::move(p.session_token);
    } else if (!p.unsupported_credentials.empty()) {
      return Status::Unsupported(p.unsupported_credentials);
    }
  }
  if (options.region.empty()) options.region = env.region.empty() ? p.region : env.region;
  if (options.endpoint.empty())
    options.endpoint = env.endpoint.empty() ? p.endpoint : env.endpoint;
  if (options.addressing == S3Addressing::kAuto) options.addressing = p.addressing;
  return options;
}

}  // namespace turbozarr
