// Multipart upload: how the S3 store writes a value too large for one PUT.
//
// CreateMultipartUpload, then the parts (PUT ?partNumber&uploadId), several
// in flight at once through the client's transport, then
// CompleteMultipartUpload with the parts' ETags. Each part is signed (and
// its body hashed) just before it is handed to the transport, while earlier
// parts are on the wire, and no more than twice the transport's concurrency
// wait signed, so no signature ages in a queue. If any step fails the upload
// is aborted, so no partial object ever appears and no parts are left
// billed; the object appears at Complete, atomically. Parts point into the
// caller's value: nothing is copied.
//
// Thread safety: UploadMultipart may run from many threads at once.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "store/s3_client.h"

namespace turbozarr {

// The part size actually used for a value of `size` bytes: `part_size`,
// grown so that the value needs at most 10,000 parts.
uint64_t MultipartPartSize(uint64_t size, uint64_t part_size);

// Uploads `value` as object `object_key` in parts of about `part_size`
// bytes. Answers the number of parts used. `complete_headers` go with
// CompleteMultipartUpload (a condition: "If-Match: <etag>" or
// "If-None-Match: *"); when S3 refuses it for its condition (412, or 409 for
// a conditional write racing another), the upload is aborted, the error
// returned and *condition_failed set.
Result<int> UploadMultipart(const S3Client& client, std::string_view object_key,
                            ByteView value, uint64_t part_size,
                            std::vector<std::string> complete_headers = {},
                            bool* condition_failed = nullptr);

}  // namespace turbozarr
