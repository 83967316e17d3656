// VerifyReport (turbozarr/verify.h): the verdicts, and the JSON document of
// `turbozarr verify --json` and turbozarr.verify(), whose fields
// docs/cli.md lists. Field names and meanings stay; a change that breaks
// readers raises kVerifyReportVersion.
#include <algorithm>

#include "turbozarr/verify.h"

namespace turbozarr {
namespace {

using ojson = nlohmann::ordered_json;

ojson FindingsJson(const std::vector<VerifyFinding>& findings) {
  ojson out = ojson::array();
  for (const VerifyFinding& f : findings) {
    out.push_back({{"key", f.key}, {"message", f.message}});
  }
  return out;
}

}  // namespace

std::string_view ArrayVerdictName(ArrayVerdict verdict) {
  switch (verdict) {
    case ArrayVerdict::kVerified: return "verified";
    case ArrayVerdict::kDecodedUnchecked: return "decoded, unchecked";
    case ArrayVerdict::kDamaged: return "damaged";
  }
  return "damaged";
}

ArrayVerdict ArrayVerifyReport::verdict() const {
  if (!findings.empty()) return ArrayVerdict::kDamaged;
  return has_checksum ? ArrayVerdict::kVerified : ArrayVerdict::kDecodedUnchecked;
}

size_t VerifyReport::finding_count() const {
  size_t n = findings.size();
  for (const ArrayVerifyReport& a : arrays) n += a.findings.size();
  for (const LayoutReport& l : layouts) n += l.findings.size();
  return n;
}

bool VerifyReport::damaged() const { return finding_count() > 0; }

nlohmann::ordered_json VerifyReport::ToJson() const {
  ojson totals = {{"arrays", arrays.size()},
                  {"arrays_unchecked", 0},
                  {"chunks", 0},
                  {"stored_bytes", 0},
                  {"decoded_bytes", 0},
                  {"findings", finding_count()}};
  ojson array_list = ojson::array();
  uint64_t unchecked = 0, chunks = 0, stored = 0, decoded = 0;
  for (const ArrayVerifyReport& a : arrays) {
    unchecked += a.verdict() == ArrayVerdict::kDecodedUnchecked ? 1 : 0;
    chunks += a.chunks_checked;
    stored += a.stored_bytes;
    decoded += a.decoded_bytes;
    array_list.push_back({{"path", a.path},
                          {"zarr_format", a.zarr_format},
                          {"status", std::string(ArrayVerdictName(a.verdict()))},
                          {"checksum", a.has_checksum},
                          {"chunks", a.chunks_checked},
                          {"stored_bytes", a.stored_bytes},
                          {"decoded_bytes", a.decoded_bytes},
                          {"findings", FindingsJson(a.findings)}});
  }
  totals["arrays_unchecked"] = unchecked;
  totals["chunks"] = chunks;
  totals["stored_bytes"] = stored;
  totals["decoded_bytes"] = decoded;
  ojson layout_list = ojson::array();
  for (const LayoutReport& l : layouts) {
    layout_list.push_back(
        {{"layout", l.layout}, {"path", l.path}, {"findings", FindingsJson(l.findings)}});
  }
  return {{"version", kVerifyReportVersion},
          {"store", store},
          {"path", path},
          {"damaged", damaged()},
          {"stopped_early", stopped_early},
          {"totals", std::move(totals)},
          {"arrays", std::move(array_list)},
          {"findings", FindingsJson(findings)},
          {"layouts", std::move(layout_list)},
          {"notes", notes}};
}

}  // namespace turbozarr
