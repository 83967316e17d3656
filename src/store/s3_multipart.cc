#include "store/s3_multipart.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>

namespace turbozarr {

namespace {

constexpr uint64_t kMaxParts = 10'000;

// What the parts in flight report back.
struct PartsState {
  std::mutex mu;
  std::condition_variable cv;
  int in_flight = 0;
  std::vector<std::string> etags;
  Status error;  // the first failure
};

// Aborts the upload and returns `why`, saying whether the abort went through.
Status AbortWith(const S3Client& client, std::string_view object_key,
                 const std::string& upload_id, Status why) {
  Result<HttpResponse> r = client.transport().Fetch(
      client.Request("DELETE", object_key, {{"uploadId", upload_id}}));
  std::string note;
  if (!r.ok()) {
    note = " (aborting the upload failed too: " + r.status().message() + ")";
  } else if (r->status != 204 && r->status != 200 && r->status != 404) {
    note = " (aborting the upload failed too: " +
           client.Error("AbortMultipartUpload", object_key, *r).message() + ")";
  } else {
    note = " (the multipart upload was aborted)";
  }
  return Status(why.code(), why.message() + note);
}

}  // namespace

uint64_t MultipartPartSize(uint64_t size, uint64_t part_size) {
  return std::max(part_size, (size + kMaxParts - 1) / kMaxParts);
}

Result<int> UploadMultipart(const S3Client& client, std::string_view object_key,
                            ByteView value, uint64_t part_size,
                            std::vector<std::string> complete_headers,
                            bool* condition_failed) {
  part_size = MultipartPartSize(value.size(), part_size);
  const size_t parts = static_cast<size_t>((value.size() + part_size - 1) / part_size);

  TZ_ASSIGN_OR_RETURN(HttpResponse created, client.transport().Fetch(client.Request(
                                                "POST", object_key, {{"uploads", ""}})));
  if (created.status != 200) {
    return client.Error("CreateMultipartUpload", object_key, created);
  }
  Result<std::string> parsed = s3xml::ParseUploadId(created.body.chars());
  if (!parsed.ok()) {
    return Status::IOError(client.Describe(object_key) +
                           ": CreateMultipartUpload: " + parsed.status().message());
  }
  const std::string upload_id = std::move(*parsed);

  auto state = std::make_shared<PartsState>();
  state->etags.resize(parts);
  // Enough signed parts waiting to keep every connection busy, no more.
  const int window = 2 * std::max(1, client.options().http.max_concurrency);
  for (size_t i = 0; i < parts; ++i) {
    {
      std::unique_lock<std::mutex> lock(state->mu);
      state->cv.wait(lock,
                     [&] { return state->in_flight < window || !state->error.ok(); });
      if (!state->error.ok()) break;
      ++state->in_flight;
    }
    const uint64_t begin = i * part_size;
    const ByteView body = value.subspan(
        static_cast<size_t>(begin),
        static_cast<size_t>(std::min<uint64_t>(part_size, value.size() - begin)));
    HttpRequest req = client.Request(
        "PUT", object_key,
        {{"partNumber", std::to_string(i + 1)}, {"uploadId", upload_id}}, body);
    client.transport().Submit(
        std::move(req), [state, i, &client, object_key](Result<HttpResponse> r) {
          Status failed;
          std::string etag;
          if (!r.ok()) {
            failed = r.status();
          } else if (r->status != 200) {
            failed = client.Error("UploadPart " + std::to_string(i + 1), object_key, *r);
          } else if (std::optional<std::string_view> e = r->Header("etag");
                     e && !e->empty()) {
            etag = std::string(*e);
          } else {
            failed = Status::IOError(client.Describe(object_key) + ": UploadPart " +
                                     std::to_string(i + 1) + " answered no ETag");
          }
          std::lock_guard<std::mutex> lock(state->mu);
          if (failed.ok()) {
            state->etags[i] = std::move(etag);
          } else if (state->error.ok()) {
            state->error = std::move(failed);
          }
          --state->in_flight;
          state->cv.notify_all();
        });
  }
  Status parts_status;
  {
    std::unique_lock<std::mutex> lock(state->mu);
    state->cv.wait(lock, [&] { return state->in_flight == 0; });
    parts_status = state->error;
  }
  if (!parts_status.ok()) {
    return AbortWith(client, object_key, upload_id, std::move(parts_status));
  }

  const std::string xml = s3xml::CompleteMultipartXml(state->etags);
  Result<HttpResponse> done = client.transport().Fetch(
      client.Request("POST", object_key, {{"uploadId", upload_id}}, AsBytes(xml),
                     std::move(complete_headers)));
  if (!done.ok()) return AbortWith(client, object_key, upload_id, done.status());
  if ((done->status == 412 || done->status == 409) && condition_failed != nullptr) {
    *condition_failed = true;
  }
  // Complete may fail after its 200 has begun: the error is then in the body.
  if (done->status != 200 || s3xml::ParseError(done->body.chars())) {
    return AbortWith(client, object_key, upload_id,
                     client.Error("CompleteMultipartUpload", object_key, *done));
  }
  return static_cast<int>(parts);
}

}  // namespace turbozarr
