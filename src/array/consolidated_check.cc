#include "array/consolidated_check.h"

#include <map>
#include <set>

#include "array/metadata_io.h"
#include "array/node_path.h"

namespace turbozarr::internal {
namespace {

// A node's metadata as one comparable text: "array <document>" or
// "group <attributes>", each parsed and written back.
using Normalized = std::optional<std::string>;

std::string ArrayText(const ArrayMetadata& m) {
  if (m.zarr_format == 3) return "array " + DumpJsonDocument(ToV3Json(m));
  return "array " + DumpJsonDocument(ToV2ZarrayJson(m)) + DumpJsonDocument(m.attributes);
}

std::string GroupText(const JsonDocument& attributes) {
  return "group " + DumpJsonDocument(attributes.is_object() ? attributes
                                                            : JsonDocument::object());
}

// The copies as texts by member path; a copy that does not parse is left
// out (nullopt), named in a finding of the group's.
std::map<std::string, Normalized> V3Copies(const std::map<std::string, JsonDocument>& copies,
                                           const std::string& where) {
  std::map<std::string, Normalized> out;
  for (const auto& [rel, doc] : copies) {
    const std::string type = NodeTypeOf(doc);
    if (type == "array") {
      Result<ArrayMetadata> m = ParseV3ArrayMetadata(doc, where);
      out[rel] = m.ok() ? Normalized(ArrayText(*m)) : std::nullopt;
    } else if (type == "group") {
      out[rel] = GroupText(doc.value("attributes", JsonDocument::object()));
    } else {
      out[rel] = std::nullopt;
    }
  }
  return out;
}

std::map<std::string, Normalized> V2Copies(const JsonDocument& zmetadata,
                                           const std::string& where) {
  std::map<std::string, Normalized> out;
  Result<V2ConsolidatedMetadata> docs = ParseV2ConsolidatedMetadata(zmetadata, where);
  if (!docs.ok()) return out;
  auto attrs_of = [&](const std::string& rel) {
    auto it = docs->find(JoinKey(rel, kZattrs));
    return it != docs->end() ? it->second : JsonDocument();
  };
  for (const auto& [key, doc] : *docs) {
    const size_t slash = key.rfind('/');
    const std::string rel = slash == std::string::npos ? "" : key.substr(0, slash);
    const std::string name = key.substr(slash == std::string::npos ? 0 : slash + 1);
    if (rel.empty()) continue;  // the group's own documents
    if (name == kZarray) {
      Result<ArrayMetadata> m = ParseV2ArrayMetadata(doc, attrs_of(rel), where);
      out[rel] = m.ok() ? Normalized(ArrayText(*m)) : std::nullopt;
    } else if (name == kZgroup) {
      out[rel] = GroupText(attrs_of(rel));
    }
  }
  return out;
}

// The stored node at `path` as text; nullopt when nothing is there, "" when
// its documents do not parse (the walk reports those).
Result<Normalized> StoredText(Store& store, const std::string& path) {
  Result<NodeDocuments> docs = LoadNodeDocuments(store, path);
  if (!docs.ok()) {
    if (docs.status().code() == StatusCode::kIOError) return docs.status();
    return Normalized("");
  }
  if (docs->zarr_format == 0) return Normalized();
  if (docs->is_array()) {
    Result<ArrayMetadata> m = ArrayMetadataFromDocuments(store, path, *docs);
    return Normalized(m.ok() ? ArrayText(*m) : "");
  }
  if (!docs->is_group()) return Normalized("");
  if (docs->zarr_format == 3) {
    return Normalized(GroupText(docs->zarr_json->value("attributes", JsonDocument::object())));
  }
  TZ_ASSIGN_OR_RETURN(std::optional<JsonDocument> attrs,
                      LoadJsonDocument(store, MetadataKey(path, kZattrs)));
  return Normalized(GroupText(attrs ? *attrs : JsonDocument::object()));
}

std::string DocumentKey(const std::string& path, bool v3, bool array) {
  return MetadataKey(path, v3 ? kZarrJson : array ? kZarray : kZattrs);
}

}  // namespace

void CheckConsolidated(Store& store, const std::string& group_path,
                       const ConsolidatedCopies& copies,
                       const std::vector<std::string>* stored_nodes,
                       std::vector<VerifyFinding>& findings) {
  if (!copies.v3 && !copies.v2) return;
  const std::string group = "group " + DescribeNodePath(group_path);
  const std::string where = group + "'s consolidated metadata in " + store.Describe();
  const bool v3 = copies.v3.has_value();
  const std::map<std::string, Normalized> copied =
      v3 ? V3Copies(*copies.v3, where) : V2Copies(*copies.v2, where);
  const std::string readers =
      " (readers that open " + group + " consolidated use the copy)";
  for (const auto& [rel, copy] : copied) {
    const std::string path = JoinKey(group_path, rel);
    Result<Normalized> stored = StoredText(store, path);
    if (!stored.ok()) {
      findings.push_back({path, stored.status().message()});
      continue;
    }
    if (!*stored) {
      findings.push_back({path, "listed in the consolidated metadata of " + group +
                                    ", but no metadata of it is stored" + readers});
    } else if (copy && !(*stored)->empty() && **stored != *copy) {
      const bool array = copy->starts_with("array");
      findings.push_back({DocumentKey(path, v3, array),
                          "differs from its copy in the consolidated metadata of " + group +
                              readers});
    }
  }
  if (stored_nodes == nullptr) return;
  for (const std::string& node : *stored_nodes) {
    const std::string rel = group_path.empty() ? node : node.substr(group_path.size() + 1);
    if (!copied.count(rel)) {
      findings.push_back({node, "stored, but not in the consolidated metadata of " + group +
                                    ": readers that open it consolidated do not see it"});
    }
  }
}

}  // namespace turbozarr::internal
