// Verify (turbozarr/verify.h): the walk (verify_walk.h), then every array's
// stored chunks (verify_chunks.h), then the domain layers' checks of the
// groups the walk opened.
#include <memory>

#include "array/node_path.h"
#include "array/verify_chunks.h"
#include "array/verify_walk.h"
#include "turbozarr/config.h"
#include "turbozarr/verify.h"
#include "util/thread_pool.h"

namespace turbozarr {
namespace {

Result<std::shared_ptr<ThreadPool>> PoolFor(int jobs) {
  if (jobs == 0) return ThreadPool::Default();
  if (jobs < 0 || jobs > kMaxThreads) {
    return Status::InvalidArgument("verify: jobs must be from 1 to " +
                                   std::to_string(kMaxThreads) + " (0: the engine's " +
                                   std::to_string(Threads()) + "), not " +
                                   std::to_string(jobs));
  }
  return MakeThreadPool(jobs);
}

void RunLayoutChecks(const internal::VerifyWalk& walk, const VerifyOptions& options,
                     VerifyReport& report) {
  for (const std::shared_ptr<Group>& group : walk.groups) {
    for (const LayoutCheck& check : options.layout_checks) {
      if (std::optional<LayoutReport> found = check(group)) {
        report.layouts.push_back(std::move(*found));
      }
    }
  }
}

}  // namespace

Result<VerifyReport> Verify(std::shared_ptr<Store> store, std::string_view path,
                            const VerifyOptions& options) {
  TZ_ASSIGN_OR_RETURN(std::shared_ptr<ThreadPool> pool, PoolFor(options.jobs));
  TZ_ASSIGN_OR_RETURN(internal::VerifyWalk walk, internal::WalkForVerify(store, path));
  VerifyReport report;
  report.store = store->Describe();
  TZ_ASSIGN_OR_RETURN(report.path, NormalizeNodePath(path));
  report.findings = std::move(walk.findings);
  report.notes = std::move(walk.notes);

  uint64_t total = 0;
  for (const internal::ArrayTarget& t : walk.arrays) total += t.chunk_keys.size();
  internal::VerifyRun run(options, total);
  if (!report.findings.empty()) run.Found();
  for (internal::ArrayTarget& target : walk.arrays) {
    if (!target.report.findings.empty()) run.Found();
    if (target.array && !run.stopping()) {
      TZ_RETURN_NOT_OK(internal::CheckArrayChunks(*store, target, *pool, run));
    }
    report.arrays.push_back(std::move(target.report));
  }
  run.Finish();
  if (run.cancelled()) {
    return Status::Cancelled("verify of " + DescribeNodePath(report.path) + " in " +
                             report.store + ": stopped by its progress callback");
  }
  report.stopped_early = run.stopping();
  if (!report.stopped_early) RunLayoutChecks(walk, options, report);
  return report;
}

}  // namespace turbozarr
