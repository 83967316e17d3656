// `turbozarr ome ...`: OME-Zarr images (docs/ome-zarr.md):
//
//   turbozarr ome info PATH          axes, levels, channels and labels
//   turbozarr ome create SRC DST     an image with its pyramid from an array
//   turbozarr ome downsample PATH    the pyramid rebuilt from level 0
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include "cli/commands.h"
#include "cli/location.h"
#include "cli/progress_bar.h"
#include "turbozarr/array_copy.h"
#include "turbozarr/checksum.h"
#include "turbozarr/group.h"
#include "turbozarr/ome.h"

namespace turbozarr::cli {
namespace {

using json = nlohmann::json;

struct ProgressFlags {
  bool progress = false;
  bool no_progress = false;
  ProgressBar::Mode mode() const {
    return progress ? ProgressBar::Mode::kAlways
                    : no_progress ? ProgressBar::Mode::kNever : ProgressBar::Mode::kAuto;
  }
};

struct InfoOptions {
  std::string url;
};

struct CreateOptions {
  std::string source, target;
  std::string axes;
  std::optional<int> levels;
  int64_t min_size = 256;
  std::string downsample = "y,x";
  std::string method = "mean";
  std::string pixel_sizes;
  std::string ngff;
  std::string name;
  int64_t memory_budget_mib = 512;
  bool overwrite = false;
  bool no_checksum = false;
  ProgressFlags progress;
};

struct DownsampleOptions {
  std::string url;
  std::optional<std::string> method;
  int64_t memory_budget_mib = 512;
  ProgressFlags progress;
};

std::string List(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + ")";
}

std::string List(const std::vector<double>& v) {
  std::ostringstream s;
  s << "(";
  for (size_t i = 0; i < v.size(); ++i) s << (i ? ", " : "") << v[i];
  s << ")";
  return s.str();
}

std::vector<std::string> Split(const std::string& text, char by) {
  std::vector<std::string> out;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, by)) {
    if (!part.empty()) out.push_back(part);
  }
  return out;
}

struct OpenedImage {
  std::shared_ptr<Group> group;
  ome::Multiscale multiscale;
  std::vector<std::shared_ptr<Array>> levels;
};

Result<OpenedImage> OpenImage(const std::string& url, bool writable) {
  TZ_ASSIGN_OR_RETURN(Location location,
                      OpenLocation(url, "", writable ? StoreOptions{} : ReadOnly()));
  OpenedImage image;
  TZ_ASSIGN_OR_RETURN(image.group, Group::Open(location.store, location.path));
  TZ_ASSIGN_OR_RETURN(image.multiscale,
                      ome::ParseMultiscale(image.group->attributes(), location.Describe()));
  for (const ome::Level& level : image.multiscale.levels) {
    TZ_ASSIGN_OR_RETURN(std::shared_ptr<Array> array, image.group->OpenArray(level.path));
    if (array->shape().size() != image.multiscale.axes.size()) {
      return Status::InvalidArgument(array->Describe() + " has " +
                                     std::to_string(array->shape().size()) +
                                     " dimensions; the image has " +
                                     std::to_string(image.multiscale.axes.size()) + " axes");
    }
    image.levels.push_back(std::move(array));
  }
  return image;
}

Status RunInfo(const InfoOptions& o) {
  TZ_ASSIGN_OR_RETURN(OpenedImage image, OpenImage(o.url, false));
  const ome::Multiscale& m = image.multiscale;
  std::string out = "NGFF " + m.version + (m.name.empty() ? "" : " image '" + m.name + "'") + "\n";
  out += "axes:";
  for (const ome::Axis& a : m.axes) {
    out += " " + a.name + (a.type.empty() ? "" : " (" + a.type +
                                                      (a.unit.empty() ? "" : ", " + a.unit) + ")");
  }
  out += "\n";
  if (!m.type.empty()) out += "downsampled by: " + m.type + "\n";
  out += "levels:\n";
  for (size_t k = 0; k < m.levels.size(); ++k) {
    const Array& a = *image.levels[k];
    out += "  " + m.levels[k].path + "  shape " + List(a.shape()) + "  chunks " +
           List(a.metadata().InnerChunkShape().value_or(a.metadata().chunk_shape));
    if (a.metadata().InnerChunkShape()) out += "  shards " + List(a.metadata().chunk_shape);
    out += "  scale " + List(m.levels[k].scale);
    if (m.levels[k].translation) out += "  translation " + List(*m.levels[k].translation);
    out += "\n";
  }
  const json& attributes = image.group->attributes();
  const json& keys = m.version == "0.5" && attributes.contains("ome") ? attributes["ome"]
                                                                      : attributes;
  if (keys.contains("omero") && keys["omero"].contains("channels")) {
    out += "channels:";
    for (const json& c : keys["omero"]["channels"]) {
      out += " " + (c.contains("label") ? c["label"].get<std::string>() : std::string("?"));
    }
    out += "\n";
  }
  auto labels = image.group->OpenGroup("labels");
  if (labels.ok()) {
    const json& la = (*labels)->attributes();
    const json& lk = m.version == "0.5" && la.contains("ome") ? la["ome"] : la;
    if (lk.contains("labels")) {
      out += "labels:";
      for (const json& name : lk["labels"]) out += " " + name.get<std::string>();
      out += "\n";
    }
  }
  std::cout << out;
  return Status::OK();
}

// The progress of a level's tiles, on a bar measured in the level's bytes.
std::function<void(int64_t, int64_t)> TileProgress(ProgressBar& bar, uint64_t level_bytes,
                                                   uint64_t before) {
  return [&bar, level_bytes, before](int64_t done, int64_t total) {
    bar.Update(before + level_bytes * static_cast<uint64_t>(done) / static_cast<uint64_t>(total));
  };
}

uint64_t Bytes(const Array& a) {
  uint64_t n = a.dtype().size();
  for (int64_t s : a.shape()) n *= static_cast<uint64_t>(s);
  return n;
}

Status RunCreate(const CreateOptions& o) {
  TZ_ASSIGN_OR_RETURN(ome::DownsampleMethod method, ome::ParseDownsampleMethod(o.method));
  TZ_ASSIGN_OR_RETURN(Location from, OpenLocation(o.source, "", ReadOnly()));
  TZ_ASSIGN_OR_RETURN(std::shared_ptr<Array> source, Array::Open(from.store, from.path));
  // A pyramid that cannot be built is refused before anything is written.
  TZ_RETURN_NOT_OK(ome::CheckDownsampleType(source->dtype(), method));
  const size_t rank = source->shape().size();
  const std::string ngff = o.ngff.empty() ? (source->metadata().zarr_format == 2 ? "0.4" : "0.5")
                                          : o.ngff;
  if (ngff != "0.4" && ngff != "0.5") {
    return Status::InvalidArgument("--ngff must be 0.4 or 0.5, not '" + ngff + "'");
  }
  const int zarr_format = ngff == "0.4" ? 2 : 3;
  if (source->metadata().zarr_format != zarr_format) {
    return Status::InvalidArgument(
        source->Describe() + " is Zarr v" + std::to_string(source->metadata().zarr_format) +
        "; NGFF " + ngff + " images are Zarr v" + std::to_string(zarr_format) +
        " (convert it with `turbozarr cp` first)");
  }
  std::string names = o.axes.empty() ? std::string("tczyx").substr(5 - std::min<size_t>(rank, 5))
                                     : o.axes;
  if (names.size() != rank) {
    return Status::InvalidArgument("--axes '" + names + "' names " +
                                   std::to_string(names.size()) + " axes; " +
                                   source->Describe() + " has " + std::to_string(rank));
  }
  ome::PyramidOptions pyramid;
  pyramid.method = method;
  pyramid.version = ngff;
  pyramid.name = o.name;
  pyramid.overwrite = o.overwrite;
  pyramid.downsample.memory_budget_bytes = o.memory_budget_mib << 20;
  const std::map<char, std::pair<std::string, std::string>> kinds = {
      {'t', {"time", "second"}}, {'c', {"channel", ""}}, {'z', {"space", "micrometer"}},
      {'y', {"space", "micrometer"}}, {'x', {"space", "micrometer"}}};
  for (char c : names) {
    auto it = kinds.find(c);
    pyramid.axes.push_back({std::string(1, c), it == kinds.end() ? "" : it->second.first,
                            it == kinds.end() ? "" : it->second.second});
  }
  pyramid.scale.assign(rank, 1.0);
  for (const std::string& item : Split(o.pixel_sizes, ',')) {
    const size_t eq = item.find('=');
    const size_t d = names.find(eq == 1 ? item[0] : '\0');
    if (eq != 1 || d == std::string::npos) {
      return Status::InvalidArgument("--pixel-size takes axis=size pairs ('z=2,y=0.5'), not '" +
                                     item + "'");
    }
    pyramid.scale[d] = std::stod(item.substr(2));
  }
  std::vector<int64_t> step(rank, 1);
  for (const std::string& axis : Split(o.downsample, ',')) {
    const size_t d = axis.size() == 1 ? names.find(axis[0]) : std::string::npos;
    if (d == std::string::npos) {
      return Status::InvalidArgument("--downsample names axis '" + axis + "'; the axes are '" +
                                     names + "'");
    }
    step[d] = 2;
  }
  std::vector<int64_t> shape = source->shape();
  std::vector<uint64_t> level_bytes;  // of each level after 0, for the progress bar
  while (true) {
    if (o.levels) {
      if (static_cast<int>(pyramid.factors.size()) + 1 >= *o.levels) break;
    } else {
      int64_t largest = 0;
      for (size_t d = 0; d < rank; ++d) {
        if (step[d] > 1) largest = std::max(largest, shape[d]);
      }
      if (largest <= o.min_size) break;
    }
    pyramid.factors.push_back(step);
    shape = ome::DownsampledShape(shape, step);
    uint64_t bytes = source->dtype().size();
    for (int64_t n : shape) bytes *= static_cast<uint64_t>(n);
    level_bytes.push_back(bytes);
  }

  TZ_ASSIGN_OR_RETURN(Location to, OpenLocation(o.target, ""));
  GroupCreateOptions group_options;
  group_options.zarr_format = zarr_format;
  group_options.overwrite = o.overwrite;
  TZ_ASSIGN_OR_RETURN(std::shared_ptr<Group> image, Group::Create(to.store, to.path, group_options));
  ArrayMetadata base = source->metadata();
  base.attributes = json::object();
  // The image's levels carry a checksum (the levels take level 0's codecs).
  if (!o.no_checksum) AddChecksum(base);
  if (zarr_format == 3) {
    base.dimension_names.emplace();
    for (char c : names) base.dimension_names->push_back(std::string(1, c));
  }
  turbozarr::CreateOptions create;
  create.overwrite = o.overwrite;
  TZ_ASSIGN_OR_RETURN(std::shared_ptr<Array> level0, image->CreateArray("0", base, create));

  // One bar over level 0's bytes copied and then each level's written.
  uint64_t total = Bytes(*source);
  for (uint64_t bytes : level_bytes) total += bytes;
  ProgressBar bar(to.Describe(), total, o.progress.mode());
  CopyOptions copy;
  copy.memory_budget = static_cast<uint64_t>(o.memory_budget_mib) << 20;
  copy.progress = [&](uint64_t done) { bar.Update(done); };
  TZ_RETURN_NOT_OK(CopyArray(*source, *level0, copy).status());
  uint64_t finished = Bytes(*source);  // the levels before the current one
  size_t current = 0;
  pyramid.downsample.progress = [&](int64_t done, int64_t of) {
    const uint64_t bytes = current < level_bytes.size() ? level_bytes[current] : 0;
    bar.Update(finished + bytes * static_cast<uint64_t>(done) / static_cast<uint64_t>(of));
    if (done == of) {  // the level is written; the next starts from 0
      finished += bytes;
      ++current;
    }
  };
  TZ_ASSIGN_OR_RETURN(ome::Multiscale multiscale, ome::BuildPyramid(*level0, to.path, pyramid));
  bar.Finish();
  return image->SetAttributes(ome::WriteMultiscale(multiscale, image->attributes()));
}

Status RunDownsample(const DownsampleOptions& o) {
  TZ_ASSIGN_OR_RETURN(OpenedImage image, OpenImage(o.url, true));
  const std::string name = o.method.value_or(image.multiscale.type.empty()
                                                 ? "mean" : image.multiscale.type);
  TZ_ASSIGN_OR_RETURN(ome::DownsampleMethod method, ome::ParseDownsampleMethod(name));
  uint64_t total = 0;
  for (size_t k = 1; k < image.levels.size(); ++k) total += Bytes(*image.levels[k]);
  ProgressBar bar(o.url, total, o.progress.mode());
  uint64_t before = 0;
  for (size_t k = 1; k < image.levels.size(); ++k) {
    const Array& lower = *image.levels[k - 1];
    Array& upper = *image.levels[k];
    const std::vector<int64_t> factors =
        ome::FactorsBetween(lower.shape(), upper.shape(), image.multiscale.levels[k - 1].scale,
                            image.multiscale.levels[k].scale);
    ome::DownsampleOptions options;
    options.memory_budget_bytes = o.memory_budget_mib << 20;
    options.progress = TileProgress(bar, Bytes(upper), before);
    TZ_RETURN_NOT_OK(ome::DownsampleInto(lower, upper, factors, method, options));
    before += Bytes(upper);
  }
  bar.Finish();
  return Status::OK();
}

void AddProgressFlags(CLI::App* app, ProgressFlags& flags) {
  app->add_flag("--progress", flags.progress, "Always show a progress bar on stderr");
  app->add_flag("--no-progress", flags.no_progress, "Never show a progress bar");
  app->get_option("--progress")->excludes(app->get_option("--no-progress"));
}

}  // namespace

Command AddOmeCommand(CLI::App& parent) {
  CLI::App* app = parent.add_subcommand(
      "ome", "Create, inspect and downsample OME-Zarr images (NGFF 0.4 and 0.5)");
  app->require_subcommand(1);

  auto info = std::make_shared<InfoOptions>();
  CLI::App* info_app = app->add_subcommand("info", "Axes, levels, channels and labels of an image");
  info_app->add_option("PATH", info->url, "OME-Zarr image: directory or URL")->required();

  auto create = std::make_shared<CreateOptions>();
  CLI::App* create_app = app->add_subcommand(
      "create", "An OME-Zarr image with its pyramid, level 0 copied from a Zarr array");
  create_app->add_option("SRC", create->source, "The Zarr array of level 0")->required();
  create_app->add_option("DST", create->target, "The new image's location")->required();
  create_app->add_option("--axes", create->axes,
                         "Axis names from t, c, z, y, x (default: the last ones of tczyx)");
  create_app->add_option("--levels", create->levels, "Levels in all (default: by --min-size)")
      ->check(CLI::Range(1, 64));
  create_app->add_option("--min-size", create->min_size,
                         "Add levels while the largest downsampled axis is above this "
                         "(default 256)");
  create_app->add_option("--downsample", create->downsample,
                         "The axes halved at each level (default y,x)");
  create_app->add_option("--method", create->method,
                         "mean, nearest, linear or mode (default mean)");
  create_app->add_option("--pixel-size", create->pixel_sizes,
                         "Level 0's pixel size per axis, in its unit: z=2,y=0.5,x=0.5");
  create_app->add_option("--ngff", create->ngff,
                         "0.4 (Zarr v2) or 0.5 (Zarr v3); default: the source's format");
  create_app->add_option("--name", create->name, "The image's name");
  create_app->add_option("--memory-budget", create->memory_budget_mib,
                         "MiB in flight (default 512)");
  create_app->add_flag("--overwrite", create->overwrite, "Replace what is at DST");
  create_app->add_flag("--no-checksum", create->no_checksum,
                       "Keep the source's codecs as they are (default: every level's "
                       "chunks get a checksum)");
  AddProgressFlags(create_app, create->progress);

  auto downsample = std::make_shared<DownsampleOptions>();
  CLI::App* downsample_app = app->add_subcommand(
      "downsample", "Rebuild an image's coarser levels from level 0");
  downsample_app->add_option("PATH", downsample->url, "OME-Zarr image: directory or URL")
      ->required();
  downsample_app->add_option("--method", downsample->method,
                             "mean, nearest, linear or mode (default: the image's own)");
  downsample_app->add_option("--memory-budget", downsample->memory_budget_mib,
                             "MiB in flight (default 512)");
  AddProgressFlags(downsample_app, downsample->progress);

  return {app, [info, info_app, create, create_app, downsample, downsample_app]() -> Status {
            if (info_app->parsed()) return RunInfo(*info);
            if (create_app->parsed()) return RunCreate(*create);
            if (downsample_app->parsed()) return RunDownsample(*downsample);
            return Status::InvalidArgument("ome: a subcommand is required");
          }};
}

}  // namespace turbozarr::cli
