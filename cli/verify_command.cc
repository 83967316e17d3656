// `turbozarr verify PATH [--path P] [--jobs N] [--json FILE|-] [--quiet]`:
// reads every stored byte of the array or hierarchy at PATH (Verify,
// turbozarr/verify.h) and the layouts of OME-Zarr images, sparse matrices
// and VCF Zarr datasets in it, then prints a table of the arrays, the
// findings and a summary line. `fsck` repairs what interrupted writes left;
// this only reads and reports.
//
// Exit status: 0 when nothing was found, 1 when something was (the store is
// damaged), 2 when the walk could not be made (usage, nothing at PATH, the
// store failing).
#include <algorithm>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "cli/commands.h"
#include "cli/location.h"
#include "cli/progress_bar.h"
#include "turbozarr/config.h"
#include "turbozarr/layout_checks.h"
#include "turbozarr/verify.h"

namespace turbozarr::cli {
namespace {

struct VerifyCommandOptions {
  std::string url;
  std::string path;
  int jobs = 0;
  std::string json;  // a file, or "-" for stdout
  bool quiet = false;
  bool progress = false;
  bool no_progress = false;
};

std::string Plural(uint64_t n, const std::string& word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

std::string Padded(std::string text, size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

// One line per array: path, verdict, chunks, bytes stored and decoded,
// findings.
void PrintTable(const VerifyReport& report, std::ostream& out) {
  size_t width = 5;
  for (const ArrayVerifyReport& a : report.arrays) width = std::max(width, a.path.size());
  out << Padded("array", width) << "  " << Padded("status", 18) << "  " << Padded("chunks", 8)
      << "  " << Padded("stored", 10) << "  " << Padded("decoded", 10) << "  findings\n";
  for (const ArrayVerifyReport& a : report.arrays) {
    out << Padded(a.path.empty() ? "/" : a.path, width) << "  "
        << Padded(std::string(ArrayVerdictName(a.verdict())), 18) << "  "
        << Padded(std::to_string(a.chunks_checked), 8) << "  "
        << Padded(FormatByteSize(a.stored_bytes), 10) << "  "
        << Padded(FormatByteSize(a.decoded_bytes), 10) << "  " << a.findings.size() << "\n";
  }
}

void PrintFindings(const VerifyReport& report, std::ostream& out) {
  auto print = [&](const std::vector<VerifyFinding>& findings) {
    for (const VerifyFinding& f : findings) out << "  " << f.key << ": " << f.message << "\n";
  };
  if (report.damaged()) out << "findings:\n";
  print(report.findings);
  for (const ArrayVerifyReport& a : report.arrays) print(a.findings);
  for (const LayoutReport& l : report.layouts) {
    for (const VerifyFinding& f : l.findings) {
      out << "  " << f.key << ": " << l.layout << ": " << f.message << "\n";
    }
  }
  for (const std::string& note : report.notes) out << "note: " << note << "\n";
}

void PrintSummary(const VerifyReport& report, std::ostream& out) {
  uint64_t chunks = 0, stored = 0, decoded = 0;
  std::vector<std::string> unchecked;
  for (const ArrayVerifyReport& a : report.arrays) {
    chunks += a.chunks_checked;
    stored += a.stored_bytes;
    decoded += a.decoded_bytes;
    if (a.verdict() == ArrayVerdict::kDecodedUnchecked) unchecked.push_back(a.path);
  }
  for (const LayoutReport& l : report.layouts) {
    out << l.layout << " layout at " << (l.path.empty() ? "/" : l.path) << ": "
        << (l.findings.empty() ? "consistent" : Plural(l.findings.size(), "finding")) << "\n";
  }
  if (!unchecked.empty()) {
    out << "decoded, unchecked (no checksum: damage that still decodes cannot be seen):";
    for (const std::string& p : unchecked) out << " " << (p.empty() ? "/" : p);
    out << "\n";
  }
  out << Plural(report.arrays.size(), "array") << ", " << Plural(chunks, "chunk") << ", "
      << FormatByteSize(stored) << " stored, " << FormatByteSize(decoded) << " decoded: "
      << (report.damaged() ? Plural(report.finding_count(), "finding") : "no damage found")
      << (report.stopped_early ? " (stopped at the first)" : "") << "\n";
}

Status WriteJson(const VerifyReport& report, const std::string& target) {
  const std::string text = report.ToJson().dump(2) + "\n";
  if (target == "-") {
    std::cout << text;
    return Status::OK();
  }
  std::ofstream file(target, std::ios::binary | std::ios::trunc);
  file << text;
  file.close();
  if (!file) return Status::IOError("verify: cannot write the report to '" + target + "'");
  return Status::OK();
}

Status RunVerify(const VerifyCommandOptions& o) {
  TZ_ASSIGN_OR_RETURN(Location location, OpenLocation(o.url, o.path, ReadOnly()));
  const ProgressBar::Mode mode = o.progress      ? ProgressBar::Mode::kAlways
                                 : o.no_progress || o.quiet ? ProgressBar::Mode::kNever
                                                            : ProgressBar::Mode::kAuto;
  std::optional<ProgressBar> bar;
  VerifyOptions options;
  options.jobs = o.jobs;
  options.layout_checks = DomainLayoutChecks();
  options.progress = [&](const VerifyProgress& p) {
    // The total is known once the walk has listed every array's keys.
    if (!bar) bar.emplace(location.Describe(), p.chunks_total, mode, "chunks");
    bar->Update(p.chunks_done);
    return true;
  };
  TZ_ASSIGN_OR_RETURN(VerifyReport report, Verify(location.store, location.path, options));
  if (bar) bar->Finish();

  // With the report on stdout, nothing else goes there.
  const bool json_on_stdout = o.json == "-";
  std::ostream& out = json_on_stdout ? std::cerr : std::cout;
  if (!o.quiet && !json_on_stdout) PrintTable(report, out);
  PrintFindings(report, out);
  PrintSummary(report, out);
  if (!o.json.empty()) TZ_RETURN_NOT_OK(WriteJson(report, o.json));
  if (!report.damaged()) return Status::OK();
  return Status::Corruption(location.Describe() + ": " +
                            Plural(report.finding_count(), "finding") + "; damaged");
}

}  // namespace

Command AddVerifyCommand(CLI::App& parent) {
  auto o = std::make_shared<VerifyCommandOptions>();
  CLI::App* app = parent.add_subcommand(
      "verify",
      "Read and decode every stored chunk below PATH, checking checksums, shard indexes, "
      "sizes and metadata; exit 1 when anything is damaged");
  app->add_option("PATH", o->url, "Store directory or URL")->required();
  app->add_option("--path", o->path, "Node inside the store (default: its root)");
  app->add_option("--jobs,-j", o->jobs, "Threads that decode (default: the engine's)")
      ->check(CLI::Range(1, kMaxThreads));
  app->add_option("--json", o->json, "Also write the report as JSON to FILE ('-': stdout)")
      ->type_name("FILE|-");
  app->add_flag("--quiet,-q", o->quiet, "Print only the findings and the summary line");
  app->add_flag("--progress", o->progress, "Always show progress on stderr");
  app->add_flag("--no-progress", o->no_progress, "Never show progress");
  // Damage is 1; anything that kept the walk from being made is 2.
  auto exit_status = [](const Status& s) { return s.code() == StatusCode::kCorruption ? 1 : 2; };
  return {app, [o] { return RunVerify(*o); }, exit_status};
}

}  // namespace turbozarr::cli
