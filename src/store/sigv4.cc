#include "store/sigv4.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <time.h>

#include <algorithm>
#include <cstdio>

#include "store/store_internal.h"
#include "store/url_encoding.h"

namespace turbozarr::sigv4 {

namespace {

// Trimmed, with every run of spaces and tabs inside reduced to one space.
std::string CanonicalValue(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  bool space = false;
  for (char c : v) {
    if (c == ' ' || c == '\t') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

ByteView Bytes(const Digest& d) {
  return ByteView(reinterpret_cast<const std::byte*>(d.data()), d.size());
}

}  // namespace

Digest Sha256(ByteView data) {
  Digest out{};
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), out.data(), &len, EVP_sha256(), nullptr);
  return out;
}

Digest HmacSha256(ByteView key, std::string_view data) {
  Digest out{};
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out.data(),
       &len);
  return out;
}

std::string HexEncode(ByteView bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(bytes.size() * 2, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) {
    const auto b = static_cast<uint8_t>(bytes[i]);
    out[2 * i] = kHex[b >> 4];
    out[2 * i + 1] = kHex[b & 15];
  }
  return out;
}

std::string Sha256Hex(ByteView data) { return HexEncode(Sha256(data)); }

std::string Base64Md5(ByteView data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), md, &len, EVP_md5(), nullptr);
  unsigned char b64[4 * ((EVP_MAX_MD_SIZE + 2) / 3) + 1];
  const int n = EVP_EncodeBlock(b64, md, static_cast<int>(len));
  return std::string(reinterpret_cast<const char*>(b64), static_cast<size_t>(n));
}

std::string CanonicalQuery(const QueryParams& params) {
  std::vector<std::pair<std::string, std::string>> encoded;
  encoded.reserve(params.size());
  for (const auto& [name, value] : params) {
    encoded.emplace_back(PercentEncode(name, Slash::kEncode),
                         PercentEncode(value, Slash::kEncode));
  }
  std::sort(encoded.begin(), encoded.end());
  std::string out;
  for (const auto& [name, value] : encoded) {
    if (!out.empty()) out += '&';
    out += name;
    out += '=';
    out += value;
  }
  return out;
}

std::string AmzDate(std::chrono::system_clock::time_point t) {
  const time_t secs = std::chrono::system_clock::to_time_t(t);
  struct tm tm {};
  gmtime_r(&secs, &tm);
  char buf[80];
  std::snprintf(buf, sizeof(buf), "%04d%02d%02dT%02d%02d%02dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buf;
}

std::string CanonicalRequest(const CanonicalInput& input, std::string* signed_headers) {
  std::vector<std::pair<std::string, std::string>> headers;
  headers.reserve(input.headers.size());
  for (const auto& [name, value] : input.headers) {
    headers.emplace_back(internal::AsciiLower(name), CanonicalValue(value));
  }
  // Stable: repeated names keep the order given when joined.
  std::stable_sort(headers.begin(), headers.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string canonical_headers, names;
  for (size_t i = 0; i < headers.size(); ++i) {
    if (i > 0 && headers[i].first == headers[i - 1].first) {
      canonical_headers.back() = ',';  // replaces the previous line's '\n'
      canonical_headers += headers[i].second + "\n";
      continue;
    }
    canonical_headers += headers[i].first + ":" + headers[i].second + "\n";
    if (!names.empty()) names += ';';
    names += headers[i].first;
  }
  std::string out;
  out.reserve(256 + canonical_headers.size());
  out += input.method + "\n";
  out += (input.path.empty() ? "/" : input.path) + "\n";
  out += input.query + "\n";
  out += canonical_headers + "\n";
  out += names + "\n";
  out += input.payload_hash;
  if (signed_headers != nullptr) *signed_headers = std::move(names);
  return out;
}

std::string CredentialScope(std::string_view date, std::string_view region,
                            std::string_view service) {
  return std::string(date) + "/" + std::string(region) + "/" + std::string(service) +
         "/aws4_request";
}

std::string StringToSign(std::string_view amz_date, std::string_view scope,
                         std::string_view canonical_request) {
  return "AWS4-HMAC-SHA256\n" + std::string(amz_date) + "\n" + std::string(scope) + "\n" +
         Sha256Hex(AsBytes(canonical_request));
}

Digest SigningKey(std::string_view secret_access_key, std::string_view date,
                  std::string_view region, std::string_view service) {
  const std::string k_secret = "AWS4" + std::string(secret_access_key);
  Digest k = HmacSha256(AsBytes(k_secret), date);
  k = HmacSha256(Bytes(k), region);
  k = HmacSha256(Bytes(k), service);
  return HmacSha256(Bytes(k), "aws4_request");
}

std::string Signature(const Digest& signing_key, std::string_view string_to_sign) {
  return HexEncode(HmacSha256(Bytes(signing_key), string_to_sign));
}

SigV4Signer::SigV4Signer(Credentials credentials, std::string region, std::string service)
    : credentials_(std::move(credentials)),
      region_(std::move(region)),
      service_(std::move(service)) {}

SignedRequest SigV4Signer::Sign(CanonicalInput input,
                                std::chrono::system_clock::time_point now) const {
  SignedRequest out;
  const std::string amz_date = AmzDate(now);
  const std::string date = amz_date.substr(0, 8);
  out.headers.push_back("X-Amz-Date: " + amz_date);
  out.headers.push_back("X-Amz-Content-Sha256: " + input.payload_hash);
  input.headers.emplace_back("x-amz-date", amz_date);
  input.headers.emplace_back("x-amz-content-sha256", input.payload_hash);
  if (!credentials_.session_token.empty()) {
    out.headers.push_back("X-Amz-Security-Token: " + credentials_.session_token);
    input.headers.emplace_back("x-amz-security-token", credentials_.session_token);
  }
  std::string signed_headers;
  out.canonical_request = CanonicalRequest(input, &signed_headers);
  const std::string scope = CredentialScope(date, region_, service_);
  out.string_to_sign = StringToSign(amz_date, scope, out.canonical_request);
  out.signature =
      Signature(SigningKey(credentials_.secret_access_key, date, region_, service_),
                out.string_to_sign);
  out.authorization = "AWS4-HMAC-SHA256 Credential=" + credentials_.access_key_id + "/" +
                      scope + ",SignedHeaders=" + signed_headers +
                      ",Signature=" + out.signature;
  out.headers.push_back("Authorization: " + out.authorization);
  return out;
}

}  // namespace turbozarr::sigv4
