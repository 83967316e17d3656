// OME-Zarr (NGFF 0.4 on Zarr v2, 0.5 on Zarr v3): an image is a group whose
// `multiscales` metadata lists one array per resolution level, finest first,
// with the axes and each level's scale and translation in physical units.
//
// This header has the pieces that the Python package (turbozarr.ome) and the
// command line build images from:
// - Multiscale: the metadata, read from a group's attributes (either
//   version, errors naming the field) and written back as the version asks;
// - LevelMetadata: a level's array metadata, derived from level 0's;
// - DownsampleInto: one level from the level below, tile by tile on all
//   cores, within a memory budget, optionally over the part of the level
//   that a region of the level below touches (a pyramid rebuilt where it
//   changed).
//
// Thread safety: values and free functions; DownsampleInto writes its target
// array and may run beside other writers of other regions.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "turbozarr/array.h"
#include "turbozarr/metadata.h"
#include "turbozarr/status.h"
#include "turbozarr/verify.h"

namespace turbozarr::ome {

// How a level summarises the pixels of the level below (docs/ome-zarr.md
// has the exact rules, the rounding of integer means included).
enum class DownsampleMethod { kMean, kNearest, kLinear, kMode };
// "mean", "nearest", "linear", "mode".
std::string_view DownsampleMethodName(DownsampleMethod method);
// InvalidArgument naming the known methods for another name.
Result<DownsampleMethod> ParseDownsampleMethod(std::string_view name);

// OK when `method` can summarise pixels of `dtype`; InvalidArgument naming
// both otherwise (strings, complex numbers and float16 take no method, bool
// nearest and mode only). Callers check before they write level 0, so that
// a create that cannot build its pyramid writes nothing.
Status CheckDownsampleType(const DataType& dtype, DownsampleMethod method);

// One axis: its name ("t", "c", "z", "y", "x", ...), its type ("time",
// "channel", "space", or empty when unstated) and its unit (empty when
// unstated; NGFF's names: "micrometer", "second", ...).
struct Axis {
  std::string name;
  std::string type;
  std::string unit;
  bool operator==(const Axis&) const = default;
};

// One level: the array's path within the image group, and the
// coordinate transformations that place its pixels in physical space.
struct Level {
  std::string path;
  std::vector<double> scale;
  std::optional<std::vector<double>> translation;
  bool operator==(const Level&) const = default;
};

// The first entry of an image's `multiscales`.
struct Multiscale {
  std::string version;  // "0.4" or "0.5"
  std::string name;     // may be empty
  std::vector<Axis> axes;
  std::vector<Level> levels;  // finest first
  // "type": how the levels were made (turbozarr writes its method's name).
  std::string type;
  // "metadata" as stored (turbozarr writes the method and its rounding).
  nlohmann::json metadata;
};

// The multiscale of an image group's attributes: NGFF 0.4's top-level
// "multiscales", or 0.5's "ome" object with its "version". `where` names
// the group in errors: InvalidArgument naming the field for an attribute
// set that is not an image (no multiscales), a version it does not know,
// axes of unknown type or out of NGFF's order, levels whose transformations
// do not match the axes.
Result<Multiscale> ParseMultiscale(const nlohmann::json& attributes, std::string_view where);

// The attributes that describe `multiscale` (its version decides the
// layout), merged into `attributes` (other keys, "omero" say, kept; for 0.5
// inside "ome").
nlohmann::json WriteMultiscale(const Multiscale& multiscale,
                               nlohmann::json attributes = nlohmann::json::object());

// The shape of the level `factors` coarser than `shape`: floor(n / factor),
// at least 1, per axis (as ngio and ome-zarr-py size their levels).
std::vector<int64_t> DownsampledShape(const std::vector<int64_t>& shape,
                                      const std::vector<int64_t>& factors);

// The factors that make a level of shape `upper` from one of shape `lower`
// (the inverse of DownsampledShape): per axis the ratio of the levels'
// scales when given and consistent with the shapes (a level of 3 planes
// halved to 1 was made of 2 of them), else lower / upper, at least 1.
// Shapes no factors relate are left to DownsampleInto to refuse.
std::vector<int64_t> FactorsBetween(const std::vector<int64_t>& lower,
                                    const std::vector<int64_t>& upper,
                                    const std::vector<double>& lower_scale = {},
                                    const std::vector<double>& upper_scale = {});

// Level metadata derived from `base` (level 0's): the same data type,
// codecs, fill value and format, `shape`, and chunks (or shards) no larger
// than the level needs: each chunk dimension capped at the level's size (a
// shard's at the level's size rounded up to whole inner chunks).
ArrayMetadata LevelMetadata(const ArrayMetadata& base, const std::vector<int64_t>& shape);

struct DownsampleOptions {
  // Only the part of the target that this box of the source touches
  // ([start, stop) per axis, in source pixels); the whole when absent.
  std::optional<std::pair<std::vector<int64_t>, std::vector<int64_t>>> region;
  // The source's pixels, C order, when the caller holds them (level 0 of an
  // image being created): read from there instead of from the source
  // array's store.
  const void* source_pixels = nullptr;
  // Decoded bytes in flight at most (input and output tiles of all
  // threads); at least one tile's.
  int64_t memory_budget_bytes = int64_t{512} << 20;
  // Threads; 0: as many as the engine uses (turbozarr::Threads()).
  int threads = 0;
  // Called after each tile with the tiles done and the total.
  std::function<void(int64_t, int64_t)> progress;
};

// Writes `target` (a level of shape DownsampledShape(source.shape(),
// factors)) as `source` downsampled by `factors` with `method`: tile by
// tile, each tile one of the target's chunks (shards) so that no two
// threads write one, read from the source as the tile needs it.
Status DownsampleInto(const Array& source, Array& target, const std::vector<int64_t>& factors,
                      DownsampleMethod method, const DownsampleOptions& options = {});

// What BuildPyramid makes.
struct PyramidOptions {
  // The factors from each level to the next: one list per level after 0.
  std::vector<std::vector<int64_t>> factors;
  DownsampleMethod method = DownsampleMethod::kMean;
  // The image's axes, level 0's scale and (optional) translation.
  std::vector<Axis> axes;
  std::vector<double> scale;
  std::optional<std::vector<double>> translation;
  std::string version = "0.5";  // of the metadata returned
  std::string name;
  // Budget, threads and progress of each level's DownsampleInto (its
  // `region` and `source_pixels` are BuildPyramid's to set).
  DownsampleOptions downsample;
  // Replace arrays already at the levels' paths.
  bool overwrite = false;
};

// Creates levels 1.. of an image beside `level0` (an array named by the last
// component of its path, in the image group `image_path`): each named by its
// number, with LevelMetadata, downsampled from the level below
// (`level0_pixels`, when given, are level 0's pixels in C order, read
// instead of level 0). Returns the multiscale to write into the group's
// attributes: every level's path, its scale (the level below's times the
// factor) and its translation (moved to the centre of the window, or for
// nearest to the pixel taken), `type` the method's name and `metadata` its
// rounding.
Result<Multiscale> BuildPyramid(const Array& level0, std::string_view image_path,
                                const PyramidOptions& options,
                                const void* level0_pixels = nullptr);

// What `verify` (turbozarr/verify.h) asks of an image or labels group beyond
// its arrays' bytes: the multiscales metadata parses, every level's array is
// there with one dimension per axis and level 0's data type, and its shape
// follows from level 0's and the ratio of their scales (rounded down or
// up); every label a labels group lists is there. nullopt for a group that
// is neither.
std::optional<LayoutReport> CheckImageLayout(const std::shared_ptr<Group>& group);

}  // namespace turbozarr::ome
