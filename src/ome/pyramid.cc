// DownsampleInto: a level from the level below, one target chunk (or shard)
// per task, so that no two threads write one chunk and every chunk is
// written whole (no read-modify-write of what another task wrote).
#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

#include "ome/downsample.h"
#include "turbozarr/config.h"
#include "turbozarr/ome.h"

namespace turbozarr::ome {
namespace {

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t d = 0; d < shape.size(); ++d) s += (d ? ", " : "") + std::to_string(shape[d]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

int64_t Product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

// Copies the box [start, start + shape) of a C-order array of `full` shape
// into `out` (C order, `shape`), a row of the last axis at a time.
void CopyBox(const std::byte* full, const std::vector<int64_t>& full_shape,
             const std::vector<int64_t>& start, const std::vector<int64_t>& shape, size_t item,
             std::byte* out) {
  const size_t rank = full_shape.size();
  std::vector<int64_t> stride(rank, 1);
  for (size_t d = rank - 1; d > 0; --d) stride[d - 1] = stride[d] * full_shape[d];
  const size_t row_bytes = static_cast<size_t>(shape[rank - 1]) * item;
  const int64_t rows = Product(shape) / std::max<int64_t>(shape[rank - 1], 1);
  std::vector<int64_t> index(rank, 0);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t offset = start[rank - 1];
    for (size_t d = 0; d + 1 < rank; ++d) offset += (start[d] + index[d]) * stride[d];
    std::memcpy(out + r * row_bytes, full + offset * static_cast<int64_t>(item), row_bytes);
    for (size_t d = rank - 1; d-- > 0;) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
}

Selection BoxSelection(const std::vector<int64_t>& start, const std::vector<int64_t>& stop) {
  std::vector<DimRange> dims;
  for (size_t d = 0; d < start.size(); ++d) dims.push_back({start[d], stop[d], 1});
  return Selection(std::move(dims));
}

}  // namespace

ArrayMetadata LevelMetadata(const ArrayMetadata& base, const std::vector<int64_t>& shape) {
  ArrayMetadata m = base;
  m.shape = shape;
  m.attributes = nlohmann::json::object();
  // A level has its own shape: a rectilinear base's edges do not fit it, and
  // the level takes the regular grid of the base's (longest) chunks.
  m.chunk_edges.clear();
  const std::optional<std::vector<int64_t>> inner = base.InnerChunkShape();
  for (size_t d = 0; d < shape.size(); ++d) {
    const int64_t size = std::max<int64_t>(shape[d], 1);
    if (inner) {  // a shard stays a whole number of inner chunks
      const int64_t unit = (*inner)[d];
      m.chunk_shape[d] = std::min(m.chunk_shape[d], (size + unit - 1) / unit * unit);
    } else {
      m.chunk_shape[d] = std::min(m.chunk_shape[d], size);
    }
  }
  return m;
}

Status DownsampleInto(const Array& source, Array& target, const std::vector<int64_t>& factors,
                      DownsampleMethod method, const DownsampleOptions& options) {
  const std::vector<int64_t>& in_shape = source.shape();
  const size_t rank = in_shape.size();
  if (factors.size() != rank || rank == 0) {
    return Status::InvalidArgument(target.Describe() + ": " + std::to_string(factors.size()) +
                                   " downsampling factors for " + std::to_string(rank) +
                                   " axes");
  }
  for (int64_t f : factors) {
    if (f < 1) {
      return Status::InvalidArgument(target.Describe() + ": a downsampling factor is " +
                                     std::to_string(f));
    }
  }
  const std::vector<int64_t> want = DownsampledShape(in_shape, factors);
  if (target.shape() != want) {
    return Status::InvalidArgument(target.Describe() + " has shape " +
                                   ShapeText(target.shape()) + "; " + source.Describe() + " " +
                                   ShapeText(in_shape) + " downsampled by " +
                                   ShapeText(factors) + " has " + ShapeText(want));
  }
  if (target.dtype().id() != source.dtype().id() ||
      target.dtype().size() != source.dtype().size()) {
    return Status::InvalidArgument(target.Describe() + " holds " + target.dtype().ToString() +
                                   ", " + source.Describe() + " " + source.dtype().ToString());
  }
  // The target's chunks (shards) that the region touches.
  const std::vector<int64_t>& unit = target.metadata().chunk_shape;
  std::vector<int64_t> first(rank, 0), last(rank, 0);  // chunk indexes, [first, last)
  for (size_t d = 0; d < rank; ++d) {
    int64_t lo = 0, hi = want[d];
    if (options.region) {
      const auto& [start, stop] = *options.region;
      if (start.size() != rank || stop.size() != rank) {
        return Status::InvalidArgument(target.Describe() + ": a region of " +
                                       std::to_string(start.size()) + " axes");
      }
      lo = std::min(std::clamp<int64_t>(start[d], 0, in_shape[d]) / factors[d], want[d]);
      hi = std::min((std::clamp<int64_t>(stop[d], 0, in_shape[d]) + factors[d] - 1) / factors[d],
                    want[d]);
    }
    if (hi <= lo) return Status::OK();  // an empty region changes nothing
    first[d] = lo / unit[d];
    last[d] = (hi + unit[d] - 1) / unit[d];
  }
  std::vector<int64_t> counts(rank);
  for (size_t d = 0; d < rank; ++d) counts[d] = last[d] - first[d];
  const int64_t tiles = Product(counts);

  const size_t item = source.dtype().size();
  std::vector<int64_t> in_tile(rank);
  for (size_t d = 0; d < rank; ++d) in_tile[d] = std::min(unit[d] * factors[d], in_shape[d]);
  const int64_t tile_bytes = (Product(in_tile) + Product(unit)) * static_cast<int64_t>(item);
  int threads = options.threads > 0 ? options.threads : Threads();
  threads = static_cast<int>(std::clamp<int64_t>(
      std::min<int64_t>(options.memory_budget_bytes / std::max<int64_t>(tile_bytes, 1), tiles),
      1, threads));

  std::atomic<int64_t> next{0}, done{0};
  std::mutex failure_mutex;
  Status failure;
  std::atomic<bool> failed{false};
  auto work = [&]() {
    // Each worker reads and writes inline: the tiles are the parallelism.
    Result<std::shared_ptr<ThreadPool>> pool = MakeThreadPool(1);
    std::vector<std::byte> in, out;
    for (int64_t t = next++; t < tiles && !failed; t = next++) {
      std::vector<int64_t> tile_start(rank), tile_stop(rank), src_start(rank), src_stop(rank);
      std::vector<int64_t> src_shape(rank);
      int64_t rest = t;
      for (size_t d = rank; d-- > 0;) {
        const int64_t c = first[d] + rest % counts[d];
        rest /= counts[d];
        tile_start[d] = c * unit[d];
        tile_stop[d] = std::min((c + 1) * unit[d], want[d]);
        src_start[d] = tile_start[d] * factors[d];
        src_stop[d] = std::min(tile_stop[d] * factors[d], in_shape[d]);
        src_shape[d] = src_stop[d] - src_start[d];
      }
      std::vector<int64_t> tile_shape(rank);
      for (size_t d = 0; d < rank; ++d) tile_shape[d] = tile_stop[d] - tile_start[d];
      in.resize(static_cast<size_t>(Product(src_shape)) * item);
      out.resize(static_cast<size_t>(Product(tile_shape)) * item);
      Status s;
      if (options.source_pixels) {
        CopyBox(static_cast<const std::byte*>(options.source_pixels), in_shape, src_start,
                src_shape, item, in.data());
      } else {
        ReadOptions read;
        if (pool.ok()) read.pool = *pool;
        s = source.Read(BoxSelection(src_start, src_stop),
                        ElementSpan(in.data(), source.dtype(), Product(src_shape)), read);
      }
      if (s.ok()) {
        s = internal::Downsample(source.dtype(), in.data(), src_shape, factors, method,
                                 out.data());
      }
      if (s.ok()) {
        WriteOptions write;
        if (pool.ok()) write.pool = *pool;
        s = target.Write(BoxSelection(tile_start, tile_stop), out.data(), write);
      }
      if (!s.ok()) {
        std::lock_guard<std::mutex> lock(failure_mutex);
        if (failure.ok()) failure = s;
        failed = true;
        return;
      }
      const int64_t finished = ++done;
      if (options.progress) {
        std::lock_guard<std::mutex> lock(failure_mutex);
        options.progress(finished, tiles);
      }
    }
  };
  std::vector<std::thread> workers;
  for (int i = 1; i < threads; ++i) workers.emplace_back(work);
  work();
  for (std::thread& w : workers) w.join();
  return failure;
}

Result<Multiscale> BuildPyramid(const Array& level0, std::string_view image_path,
                                const PyramidOptions& options, const void* level0_pixels) {
  const size_t rank = level0.shape().size();
  if (options.axes.size() != rank || options.scale.size() != rank ||
      (options.translation && options.translation->size() != rank)) {
    return Status::InvalidArgument(level0.Describe() + ": " + std::to_string(rank) +
                                   " dimensions, " + std::to_string(options.axes.size()) +
                                   " axes, " + std::to_string(options.scale.size()) +
                                   " scales");
  }
  if (Status s = CheckDownsampleType(level0.dtype(), options.method); !s.ok()) {
    return Status::InvalidArgument(level0.Describe() + ": " + s.message());
  }
  Multiscale m;
  m.version = options.version;
  m.name = options.name;
  m.axes = options.axes;
  m.type = std::string(DownsampleMethodName(options.method));
  m.metadata = {{"method", "turbozarr " + m.type},
                {"rounding", "integer means round half to even"},
                {"sizes", "each level floor(n / factor), at least 1"}};
  const std::string& path = level0.path();
  const size_t slash = path.rfind('/');
  m.levels.push_back({slash == std::string::npos ? path : path.substr(slash + 1), options.scale,
                      options.translation});
  std::shared_ptr<Array> lower;  // null: level 0
  std::vector<double> scale = options.scale;
  std::vector<double> shift = options.translation.value_or(std::vector<double>(rank, 0.0));
  for (size_t k = 0; k < options.factors.size(); ++k) {
    std::vector<int64_t> f = options.factors[k];
    const Array& below = lower ? *lower : level0;
    if (f.size() != rank) {
      return Status::InvalidArgument(level0.Describe() + ": " + std::to_string(f.size()) +
                                     " factors for level " + std::to_string(k + 1) + " of " +
                                     std::to_string(rank) + " axes");
    }
    // An axis shorter than its factor (z = 3 halved twice, or z = 1) is
    // summarised whole: the level's one plane covers the planes there are,
    // so its scale and placement follow those, not the factor asked for.
    for (size_t d = 0; d < rank; ++d) {
      if (below.shape()[d] > 0 && f[d] > below.shape()[d]) f[d] = below.shape()[d];
    }
    const std::string name = std::to_string(k + 1);
    const std::string level_path = image_path.empty() ? name : std::string(image_path) + "/" + name;
    CreateOptions create;
    create.overwrite = options.overwrite;
    TZ_ASSIGN_OR_RETURN(
        std::shared_ptr<Array> level,
        Array::Create(level0.store(), level_path,
                      LevelMetadata(level0.metadata(), DownsampledShape(below.shape(), f)),
                      create));
    DownsampleOptions downsample = options.downsample;
    downsample.region.reset();
    downsample.source_pixels = lower ? nullptr : level0_pixels;
    TZ_RETURN_NOT_OK(DownsampleInto(below, *level, f, options.method, downsample));
    bool moved = options.translation.has_value();
    for (size_t d = 0; d < rank; ++d) {
      const double offset = options.method == DownsampleMethod::kNearest
                                ? static_cast<double>(f[d] / 2)
                                : static_cast<double>(f[d] - 1) / 2;
      shift[d] += offset * scale[d];
      scale[d] *= static_cast<double>(f[d]);
      moved = moved || shift[d] != 0;
    }
    m.levels.push_back({name, scale, moved ? std::optional<std::vector<double>>(shift)
                                           : std::nullopt});
    lower = std::move(level);
  }
  return m;
}

}  // namespace turbozarr::ome
