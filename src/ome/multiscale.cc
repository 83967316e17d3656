// NGFF multiscales metadata: read from either version's layout, checked
// against the rules of the specification that a reader relies on, and
// written back in the layout its version asks for.
#include <algorithm>
#include <string>

#include "turbozarr/ome.h"

namespace turbozarr::ome {
namespace {

using nlohmann::json;

constexpr std::string_view kMethodNames[] = {"mean", "nearest", "linear", "mode"};

Status Invalid(std::string_view where, const std::string& what) {
  return Status::InvalidArgument(std::string(where) + ": " + what);
}

// The rank of an axis type in NGFF's order: time, then channel, then space.
int TypeRank(const std::string& type) {
  if (type == "time") return 0;
  if (type == "channel") return 1;
  return 2;  // space (or unstated: an axis named like a space axis)
}

Result<Axis> ParseAxis(const json& j, std::string_view where, size_t i) {
  const std::string field = "multiscales[0].axes[" + std::to_string(i) + "]";
  Axis axis;
  if (j.is_string()) {  // NGFF 0.3 spelled axes as bare names
    axis.name = j.get<std::string>();
  } else if (j.is_object() && j.contains("name") && j["name"].is_string()) {
    axis.name = j["name"].get<std::string>();
    if (j.contains("type")) {
      if (!j["type"].is_string()) return Invalid(where, field + ".type is not a string");
      axis.type = j["type"].get<std::string>();
    }
    if (j.contains("unit")) {
      if (!j["unit"].is_string()) return Invalid(where, field + ".unit is not a string");
      axis.unit = j["unit"].get<std::string>();
    }
  } else {
    return Invalid(where, field + " has no \"name\"");
  }
  if (!axis.type.empty() && axis.type != "space" && axis.type != "time" &&
      axis.type != "channel") {
    return Invalid(where, field + ".type is \"" + axis.type +
                              "\"; known types: space, time, channel");
  }
  return axis;
}

Result<std::vector<double>> Numbers(const json& j, std::string_view where,
                                    const std::string& field, size_t rank) {
  if (!j.is_array() || j.size() != rank) {
    return Invalid(where, field + " must be a list of " + std::to_string(rank) +
                              " numbers, one per axis");
  }
  std::vector<double> out;
  for (const json& v : j) {
    if (!v.is_number()) return Invalid(where, field + " holds " + v.dump() + ", not a number");
    out.push_back(v.get<double>());
  }
  return out;
}

Result<Level> ParseLevel(const json& j, std::string_view where, size_t i, size_t rank) {
  const std::string field = "multiscales[0].datasets[" + std::to_string(i) + "]";
  if (!j.is_object() || !j.contains("path") || !j["path"].is_string()) {
    return Invalid(where, field + " has no \"path\"");
  }
  Level level;
  level.path = j["path"].get<std::string>();
  const json& transforms = j.contains("coordinateTransformations")
                               ? j["coordinateTransformations"]
                               : json();
  if (!transforms.is_array() || transforms.empty()) {
    return Invalid(where, field + ".coordinateTransformations must list a scale");
  }
  for (size_t t = 0; t < transforms.size(); ++t) {
    const json& x = transforms[t];
    const std::string tfield = field + ".coordinateTransformations[" + std::to_string(t) + "]";
    const std::string type = x.is_object() && x.contains("type") && x["type"].is_string()
                                 ? x["type"].get<std::string>()
                                 : "";
    if (type == "scale" && t == 0) {
      if (!x.contains("scale")) return Invalid(where, tfield + " has no \"scale\" list");
      TZ_ASSIGN_OR_RETURN(level.scale, Numbers(x["scale"], where, tfield + ".scale", rank));
    } else if (type == "translation" && t == 1) {
      if (!x.contains("translation")) {
        return Invalid(where, tfield + " has no \"translation\" list");
      }
      TZ_ASSIGN_OR_RETURN(level.translation,
                          Numbers(x["translation"], where, tfield + ".translation", rank));
    } else {
      return Invalid(where, tfield + " is \"" + type +
                                "\"; a level has a scale, then at most a translation");
    }
  }
  return level;
}

json TransformsJson(const Level& level) {
  json t = json::array({{{"type", "scale"}, {"scale", level.scale}}});
  if (level.translation) {
    t.push_back({{"type", "translation"}, {"translation", *level.translation}});
  }
  return t;
}

}  // namespace

std::string_view DownsampleMethodName(DownsampleMethod method) {
  return kMethodNames[static_cast<int>(method)];
}

Result<DownsampleMethod> ParseDownsampleMethod(std::string_view name) {
  for (size_t i = 0; i < std::size(kMethodNames); ++i) {
    if (name == kMethodNames[i]) return static_cast<DownsampleMethod>(i);
  }
  return Status::InvalidArgument("unknown downsampling method '" + std::string(name) +
                                 "'; known: mean, nearest, linear, mode");
}

Result<Multiscale> ParseMultiscale(const json& attributes, std::string_view where) {
  Multiscale m;
  const json* holder = &attributes;
  if (attributes.is_object() && attributes.contains("ome")) {  // NGFF 0.5
    const json& ome = attributes["ome"];
    if (!ome.is_object() || !ome.contains("version") || !ome["version"].is_string()) {
      return Invalid(where, "ome.version is missing");
    }
    m.version = ome["version"].get<std::string>();
    if (m.version != "0.5") {
      return Invalid(where, "ome.version is \"" + m.version +
                                "\"; this reader knows NGFF 0.4 and 0.5");
    }
    holder = &ome;
  }
  if (!holder->is_object() || !holder->contains("multiscales")) {
    return Invalid(where, "not an OME-Zarr image: no \"multiscales\" in its attributes");
  }
  const json& list = (*holder)["multiscales"];
  if (!list.is_array() || list.empty() || !list[0].is_object()) {
    return Invalid(where, "\"multiscales\" must be a non-empty list of objects");
  }
  const json& j = list[0];
  if (m.version.empty()) {  // NGFF 0.4 keeps the version in the multiscale
    if (!j.contains("version") || !j["version"].is_string()) {
      return Invalid(where, "multiscales[0].version is missing");
    }
    m.version = j["version"].get<std::string>();
    if (m.version != "0.4") {
      return Invalid(where, "multiscales[0].version is \"" + m.version +
                                "\"; this reader knows NGFF 0.4 and 0.5");
    }
  }
  if (j.contains("name") && j["name"].is_string()) m.name = j["name"].get<std::string>();
  if (j.contains("type") && j["type"].is_string()) m.type = j["type"].get<std::string>();
  if (j.contains("metadata")) m.metadata = j["metadata"];
  if (!j.contains("axes") || !j["axes"].is_array()) {
    return Invalid(where, "multiscales[0].axes is missing");
  }
  const json& axes = j["axes"];
  if (axes.size() < 2 || axes.size() > 5) {
    return Invalid(where, "multiscales[0].axes has " + std::to_string(axes.size()) +
                              " axes; NGFF images have 2 to 5");
  }
  int space = 0, time = 0, channel = 0, untyped = 0;
  for (size_t i = 0; i < axes.size(); ++i) {
    TZ_ASSIGN_OR_RETURN(Axis axis, ParseAxis(axes[i], where, i));
    for (const Axis& seen : m.axes) {
      if (seen.name == axis.name) {
        return Invalid(where, "multiscales[0].axes names \"" + axis.name + "\" twice");
      }
    }
    if (!m.axes.empty() && TypeRank(axis.type) < TypeRank(m.axes.back().type)) {
      return Invalid(where, "multiscales[0].axes[" + std::to_string(i) + "] (\"" + axis.name +
                                "\", " + axis.type +
                                ") comes after a " + m.axes.back().type +
                                " axis; NGFF orders time, channel, then space");
    }
    space += axis.type == "space";
    time += axis.type == "time";
    channel += axis.type == "channel";
    untyped += axis.type.empty();
    m.axes.push_back(std::move(axis));
  }
  if (time > 1 || channel > 1 || space > 3 || space + untyped < 2) {
    return Invalid(where, "multiscales[0].axes has " + std::to_string(space) + " space, " +
                              std::to_string(time) + " time and " + std::to_string(channel) +
                              " channel axes; NGFF wants 2 or 3 space axes, at most one of "
                              "the others");
  }
  if (!j.contains("datasets") || !j["datasets"].is_array() || j["datasets"].empty()) {
    return Invalid(where, "multiscales[0].datasets must list the levels");
  }
  for (size_t i = 0; i < j["datasets"].size(); ++i) {
    TZ_ASSIGN_OR_RETURN(Level level, ParseLevel(j["datasets"][i], where, i, m.axes.size()));
    m.levels.push_back(std::move(level));
  }
  return m;
}

json WriteMultiscale(const Multiscale& m, json attributes) {
  json axes = json::array();
  for (const Axis& a : m.axes) {
    json axis = {{"name", a.name}};
    if (!a.type.empty()) axis["type"] = a.type;
    if (!a.unit.empty()) axis["unit"] = a.unit;
    axes.push_back(std::move(axis));
  }
  json datasets = json::array();
  for (const Level& level : m.levels) {
    datasets.push_back({{"path", level.path}, {"coordinateTransformations", TransformsJson(level)}});
  }
  json multiscale = json::object();
  if (m.version == "0.4") multiscale["version"] = m.version;
  if (!m.name.empty()) multiscale["name"] = m.name;
  multiscale["axes"] = std::move(axes);
  multiscale["datasets"] = std::move(datasets);
  if (!m.type.empty()) multiscale["type"] = m.type;
  if (!m.metadata.is_null()) multiscale["metadata"] = m.metadata;
  if (!attributes.is_object()) attributes = json::object();
  if (m.version == "0.4") {
    attributes["multiscales"] = json::array({std::move(multiscale)});
  } else {
    json& ome = attributes["ome"];
    if (!ome.is_object()) ome = json::object();
    ome["version"] = m.version;
    ome["multiscales"] = json::array({std::move(multiscale)});
  }
  return attributes;
}

}  // namespace turbozarr::ome
