// `turbozarr cp SRC DST`: copies an array, or a group with everything below
// it, converting the format (--zarr-format), rechunking (--chunks),
// resharding (--shards) and recompressing (--codec / --codecs) on the way.
//
// Values are copied as decoded elements, so they round-trip exactly, by the
// engine's one copy (turbozarr/array_copy.h): unit by unit, a unit per
// thread, when every destination shard (or chunk) is made of whole source
// chunks, else in streamed blocks; either way within --memory.
#include <chrono>
#include <iostream>
#include <optional>

#include "cli/commands.h"
#include "cli/copy_plan.h"
#include "cli/location.h"
#include "cli/progress_bar.h"
#include "cli/selection_parser.h"
#include "turbozarr/array.h"
#include "turbozarr/array_copy.h"
#include "turbozarr/config.h"
#include "turbozarr/group.h"
#include "turbozarr/open_store.h"

namespace turbozarr::cli {
namespace {

using json = nlohmann::json;

struct CpOptions {
  std::string src_url;
  std::string dst_url;
  std::string src_path;
  std::string dst_path;
  std::optional<int> zarr_format;
  std::string chunks;
  std::string shards;
  std::vector<std::string> compressors;
  std::string codecs;
  std::string memory = "512M";
  bool overwrite = false;
  bool checksum = false;
  bool no_checksum = false;
  bool progress = false;
  bool no_progress = false;
  bool verbose = false;
};

struct CopyContext {
  CopyLayout layout;
  uint64_t memory_budget = 0;
  bool overwrite = false;
  ProgressBar::Mode progress = ProgressBar::Mode::kAuto;
  bool verbose = false;
};

Status ExplainExisting(Status status) {
  if (status.code() != StatusCode::kAlreadyExists) return status;
  return Status(status.code(), status.message() + "; pass --overwrite to replace it");
}

Status CopyOneArray(const Location& src, const Location& dst, const CopyContext& ctx) {
  const auto started = std::chrono::steady_clock::now();
  TZ_ASSIGN_OR_RETURN(std::shared_ptr<Array> source, Array::Open(src.store, src.path));
  TZ_ASSIGN_OR_RETURN(
      ArrayMetadata planned,
      PlanCopyMetadata(source->metadata(), ctx.layout, source->Describe()));
  CreateOptions create;
  create.overwrite = ctx.overwrite;
  Result<std::shared_ptr<Array>> created =
      Array::Create(dst.store, dst.path, std::move(planned), create);
  if (!created.ok()) return ExplainExisting(created.status());
  std::shared_ptr<Array> dest = *created;

  const DataType& dtype = source->dtype();
  const uint64_t total = Selection::All(source->shape()).num_elements() * dtype.size();
  ProgressBar bar(dst.path.empty() ? dst.store->Describe() : dst.path, total,
                  ctx.progress);
  auto report = [&](const char* how, int64_t written, int64_t units) {
    bar.Finish();
    if (!ctx.verbose) return;
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::cerr << "copied " << source->Describe() << " -> " << dest->Describe() << " "
              << how << ": " << written << " of " << units << " blocks, "
              << FormatByteSize(total) << " in " << seconds << " s\n";
  };

  CopyOptions options;
  options.memory_budget = ctx.memory_budget;
  options.progress = [&](uint64_t done) { bar.Update(done); };
  TZ_ASSIGN_OR_RETURN(CopyReport copied, turbozarr::CopyArray(*source, *dest, options));
  report(copied.route == CopyReport::Route::kUnits ? "unit by unit" : "in blocks",
         copied.written, copied.total);
  return Status::OK();
}

Status CopyNode(const Location& src, const Location& dst, const CopyContext& ctx) {
  TZ_ASSIGN_OR_RETURN(NodeInfo node, InspectLocation(src));
  if (node.kind == NodeKind::kArray) return CopyOneArray(src, dst, ctx);

  TZ_ASSIGN_OR_RETURN(std::shared_ptr<Group> source, Group::Open(src.store, src.path));
  GroupCreateOptions create;
  create.zarr_format = ctx.layout.zarr_format.value_or(source->zarr_format());
  create.attributes = source->attributes();
  create.overwrite = ctx.overwrite;
  Result<std::shared_ptr<Group>> created = Group::Create(dst.store, dst.path, create);
  if (!created.ok()) return ExplainExisting(created.status());
  TZ_ASSIGN_OR_RETURN(std::vector<NodeInfo> members, source->Members());
  for (const NodeInfo& member : members) {
    TZ_RETURN_NOT_OK(CopyNode(src.Child(member.name), dst.Child(member.name), ctx));
  }
  if (source->is_consolidated()) TZ_RETURN_NOT_OK((*created)->Consolidate());
  return Status::OK();
}

Result<CopyContext> MakeContext(const CpOptions& options) {
  CopyContext ctx;
  CopyLayout& layout = ctx.layout;
  layout.zarr_format = options.zarr_format;
  if (!options.chunks.empty()) {
    TZ_ASSIGN_OR_RETURN(layout.chunks, ParseShapeList(options.chunks, "--chunks"));
  }
  if (options.shards == "none") {
    layout.no_shards = true;
  } else if (!options.shards.empty()) {
    TZ_ASSIGN_OR_RETURN(layout.shards, ParseShapeList(options.shards, "--shards"));
  }
  for (const std::string& spec : options.compressors) {
    // "--codec zstd:3,crc32c" is the same as two --codec options.
    size_t begin = 0;
    while (begin <= spec.size()) {
      size_t end = std::min(spec.find(',', begin), spec.size());
      layout.compressors.push_back(spec.substr(begin, end - begin));
      begin = end + 1;
    }
  }
  if (!options.codecs.empty()) {
    json codecs = json::parse(options.codecs, nullptr, /*allow_exceptions=*/false);
    if (codecs.is_discarded()) {
      return Status::InvalidArgument("--codecs is not valid JSON: " + options.codecs);
    }
    layout.codecs = std::move(codecs);
  }
  if (options.checksum) layout.checksum = true;
  if (options.no_checksum) layout.checksum = false;
  TZ_ASSIGN_OR_RETURN(ctx.memory_budget, ParseByteSize(options.memory));
  ctx.overwrite = options.overwrite;
  if (options.progress) ctx.progress = ProgressBar::Mode::kAlways;
  if (options.no_progress) ctx.progress = ProgressBar::Mode::kNever;
  ctx.verbose = options.verbose;
  return ctx;
}

// A copy to "a/b/c" needs groups at "", "a" and "a/b": a v3 hierarchy has no
// implicit groups. Missing ones are created (in `zarr_format`); an array in
// the way is an error.
Status EnsureParentGroups(const Location& dst, int zarr_format) {
  if (dst.path.empty()) return Status::OK();
  std::vector<std::string> parents = {""};
  for (size_t slash = dst.path.find('/'); slash != std::string::npos;
       slash = dst.path.find('/', slash + 1)) {
    parents.push_back(dst.path.substr(0, slash));
  }
  for (const std::string& parent : parents) {
    Result<NodeInfo> node = InspectNode(dst.store, parent);
    if (node.ok() && node->kind == NodeKind::kArray) {
      return Status::InvalidArgument("cannot copy to " + dst.Describe() + ": '" + parent +
                                     "' is an array");
    }
    if (node.ok()) continue;
    if (node.status().code() != StatusCode::kNotFound) return node.status();
    GroupCreateOptions create;
    create.zarr_format = zarr_format;
    TZ_RETURN_NOT_OK(Group::Create(dst.store, parent, create).status());
  }
  return Status::OK();
}

Status RunCp(const CpOptions& options) {
  TZ_ASSIGN_OR_RETURN(CopyContext ctx, MakeContext(options));
  TZ_ASSIGN_OR_RETURN(Location src,
                      OpenLocation(options.src_url, options.src_path, ReadOnly()));
  // --overwrite of a whole zip archive writes a new one in its place; a copy
  // into an existing archive otherwise adds to it. Other stores ignore both.
  StoreOptions dst_options;
  dst_options.truncate = options.overwrite &&
                         SplitArchivePath(options.dst_url).second.empty() &&
                         options.dst_path.find_first_not_of('/') == std::string::npos;
  dst_options.append = !dst_options.truncate;
  TZ_ASSIGN_OR_RETURN(Location dst,
                      OpenLocation(options.dst_url, options.dst_path, dst_options));
  if (!dst.store->Capabilities().writable) {
    return Status::InvalidArgument(
        "cannot copy to " + dst.Describe() + ": the store is read-only");
  }
  TZ_ASSIGN_OR_RETURN(NodeInfo source, InspectLocation(src));
  TZ_RETURN_NOT_OK(
      EnsureParentGroups(dst, ctx.layout.zarr_format.value_or(source.zarr_format)));
  TZ_RETURN_NOT_OK(CopyNode(src, dst, ctx));
  // A zip archive is complete only once its directory is written.
  return dst.store->Flush();
}

}  // namespace

Command AddCpCommand(CLI::App& parent) {
  auto o = std::make_shared<CpOptions>();
  CLI::App* app = parent.add_subcommand(
      "cp",
      "Copy an array or a group (recursively), converting format, chunks and codecs");
  app->add_option("SRC", o->src_url, "Source store directory or URL")->required();
  app->add_option("DST", o->dst_url, "Destination store directory or URL")->required();
  app->add_option("--src-path", o->src_path, "Node inside the source store");
  app->add_option("--dst-path", o->dst_path, "Node inside the destination store");
  app->add_option("--zarr-format", o->zarr_format,
                  "Format of the copy (default: the source's)")
      ->check(CLI::IsMember({2, 3}));
  app->add_option("--chunks", o->chunks,
                  "Chunk shape, e.g. 100,100 (inner chunks when sharded; default: the "
                  "source's)");
  app->add_option(
      "--shards", o->shards,
      "Shard shape, e.g. 1000,1000, or 'none' (v3 only; default: the source's)");
  app->add_option("--codec", o->compressors,
                  "Compression replacing the source's: zstd[:LEVEL], gzip[:LEVEL], "
                  "blosc[:CNAME[:CLEVEL[:SHUFFLE]]], lz4, zlib[:LEVEL], bz2[:LEVEL], "
                  "lzma[:PRESET], crc32c or none; repeat (or separate with ',') for several")
      ->take_all();
  app->add_option("--codecs", o->codecs,
                  "A v3 codecs list (JSON) for each chunk, replacing the source's");
  app->add_flag("--checksum", o->checksum,
                "Give every chunk a checksum (default: when converting format, chunks, "
                "shards or codecs, unless --codecs gives the whole chain)");
  app->add_flag("--no-checksum", o->no_checksum,
                "Add no checksum (one the source's codecs have stays)");
  app->add_option("--memory", o->memory, "Memory for data in flight (default: 512M)");
  app->add_flag("--overwrite", o->overwrite, "Replace what is at the destination");
  app->add_flag("--progress", o->progress, "Always show a progress bar on stderr");
  app->add_flag("--no-progress", o->no_progress, "Never show a progress bar");
  app->add_flag("-v,--verbose", o->verbose, "Report each array copied on stderr");
  app->get_option("--codec")->excludes(app->get_option("--codecs"));
  app->get_option("--progress")->excludes(app->get_option("--no-progress"));
  app->get_option("--checksum")->excludes(app->get_option("--no-checksum"));
  return {app, [o] { return RunCp(*o); }};
}

}  // namespace turbozarr::cli
