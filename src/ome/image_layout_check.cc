// CheckImageLayout (turbozarr/ome.h): what `verify` asks of an OME-Zarr
// image or labels group beyond its arrays' bytes: the multiscales metadata
// parses, every level's array is there with one dimension per axis and the
// data type of level 0, each level's shape follows from level 0's and the
// ratio of their scales, and every label a labels group lists is there.
#include <cmath>
#include <string>

#include "turbozarr/group.h"
#include "turbozarr/ome.h"

namespace turbozarr::ome {
namespace {

using nlohmann::json;

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string out = "[";
  for (size_t d = 0; d < shape.size(); ++d) out += (d ? ", " : "") + std::to_string(shape[d]);
  return out + "]";
}

// The label names a labels group lists (NGFF 0.4 "labels", 0.5 "ome" ->
// "labels"), or null when it lists none.
const json* LabelList(const json& attrs) {
  if (auto it = attrs.find("labels"); it != attrs.end() && it->is_array()) return &*it;
  if (auto ome = attrs.find("ome"); ome != attrs.end() && ome->is_object()) {
    if (auto it = ome->find("labels"); it != ome->end() && it->is_array()) return &*it;
  }
  return nullptr;
}

bool IsImage(const json& attrs) {
  if (attrs.contains("multiscales")) return true;
  auto ome = attrs.find("ome");
  return ome != attrs.end() && ome->is_object() && ome->contains("multiscales");
}

// The shapes level `k` may have: level 0's divided by the ratio of the
// scales, rounded down (as turbozarr, ngio and ome-zarr-py size levels) or
// up (as some other writers do), at least 1.
bool FollowsFromLevel0(const std::vector<int64_t>& shape0, const std::vector<int64_t>& shape,
                       const std::vector<double>& scale0, const std::vector<double>& scale,
                       std::vector<int64_t>& expected) {
  bool ok = true;
  expected.assign(shape0.size(), 0);
  for (size_t d = 0; d < shape0.size(); ++d) {
    const double factor = scale0[d] != 0 ? scale[d] / scale0[d] : 1;
    const double exact = factor > 0 ? static_cast<double>(shape0[d]) / factor : 0;
    const auto low = std::max<int64_t>(1, static_cast<int64_t>(std::floor(exact + 1e-9)));
    const auto high = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(exact - 1e-9)));
    expected[d] = low;
    ok = ok && shape[d] >= low && shape[d] <= high;
  }
  return ok;
}

void CheckImage(const Group& group, const json& attrs, std::vector<VerifyFinding>& findings) {
  const std::string where = "image " + (group.path().empty() ? "/" : group.path());
  Result<Multiscale> parsed = ParseMultiscale(attrs, where);
  if (!parsed.ok()) {
    findings.push_back({group.path(), parsed.status().message()});
    return;
  }
  const Multiscale& m = *parsed;
  std::shared_ptr<Array> level0;
  for (size_t k = 0; k < m.levels.size(); ++k) {
    const Level& level = m.levels[k];
    const std::string key = JoinKey(group.path(), level.path);
    Result<std::shared_ptr<Array>> array = group.OpenArray(level.path);
    if (!array.ok()) {
      findings.push_back({key, "level " + std::to_string(k) + " of the multiscales: " +
                                   array.status().message()});
      continue;
    }
    const Array& a = **array;
    if (a.shape().size() != m.axes.size()) {
      findings.push_back({key, "level " + std::to_string(k) + " has " +
                                   std::to_string(a.shape().size()) + " dimensions for " +
                                   std::to_string(m.axes.size()) + " axes"});
      continue;
    }
    if (k == 0) {
      level0 = *array;
      continue;
    }
    if (!level0) continue;
    if (!(a.dtype() == level0->dtype())) {
      findings.push_back({key, "level " + std::to_string(k) + " is " + a.dtype().ToString() +
                                   ", level 0 " + level0->dtype().ToString()});
    }
    std::vector<int64_t> expected;
    if (!FollowsFromLevel0(level0->shape(), a.shape(), m.levels[0].scale, level.scale,
                           expected)) {
      findings.push_back({key, "level " + std::to_string(k) + " has shape " +
                                   ShapeText(a.shape()) + ", but level 0's " +
                                   ShapeText(level0->shape()) +
                                   " and the scales make it " + ShapeText(expected)});
    }
  }
}

void CheckLabels(const Group& group, const json& labels, std::vector<VerifyFinding>& findings) {
  for (const json& name : labels) {
    if (!name.is_string()) {
      findings.push_back({group.path(), "'labels' lists " + name.dump() + ", not a name"});
      continue;
    }
    Result<std::shared_ptr<Group>> label = group.OpenGroup(name.get<std::string>());
    if (!label.ok()) {
      findings.push_back({JoinKey(group.path(), name.get<std::string>()),
                          "listed in 'labels', but: " + label.status().message()});
    }
  }
}

}  // namespace

std::optional<LayoutReport> CheckImageLayout(const std::shared_ptr<Group>& group) {
  const json attrs = group->attributes();
  const json* labels = LabelList(attrs);
  const bool image = IsImage(attrs);
  if (!image && labels == nullptr) return std::nullopt;
  LayoutReport report{"ome-zarr", group->path(), {}};
  if (image) CheckImage(*group, attrs, report.findings);
  if (labels != nullptr) CheckLabels(*group, *labels, report.findings);
  return report;
}

}  // namespace turbozarr::ome
