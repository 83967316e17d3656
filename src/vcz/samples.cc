#include "vcz/samples.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace turbozarr::vcz::internal {
namespace {

std::string Strip(const std::string& s) {
  const size_t first = s.find_first_not_of(" \t\r\n\f\v");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t\r\n\f\v") - first + 1);
}

std::string JoinNames(const std::set<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

}  // namespace

Result<std::vector<int64_t>> SelectSamples(const VczDataset& dataset,
                                           const std::optional<std::string>& samples,
                                           const std::optional<std::string>& samples_file,
                                           bool force_samples, std::ostream* warnings) {
  TZ_ASSIGN_OR_RETURN(const VczTables* tables, dataset.tables());
  const std::vector<std::string>& ids = tables->sample_ids;
  if (samples && samples_file) {
    return Status::InvalidArgument(
        "Cannot specify both a samples string (-s) and a samples file (-S)");
  }
  std::vector<int64_t> columns;
  if (!samples && !samples_file) {
    for (size_t c = 0; c < ids.size(); ++c) {
      if (!ids[c].empty()) columns.push_back(static_cast<int64_t>(c));
    }
    return columns;
  }

  std::string spec = samples ? *samples : *samples_file;
  const bool complement = !spec.empty() && spec.front() == '^';
  if (complement) spec.erase(0, 1);
  std::vector<std::string> names;
  if (samples_file) {
    std::ifstream in(spec);
    if (!in) return Status::NotFound("cannot open the samples file " + spec);
    for (std::string line; std::getline(in, line);) {
      line = Strip(line);
      if (!line.empty()) names.push_back(line);
    }
  } else {
    size_t begin = 0;
    while (true) {
      const size_t comma = spec.find(',', begin);
      names.push_back(spec.substr(begin, comma == std::string::npos ? comma : comma - begin));
      if (comma == std::string::npos) break;
      begin = comma + 1;
    }
  }
  if (std::find(names.begin(), names.end(), "") != names.end()) {
    return Status::InvalidArgument(
        "The empty string is not a valid sample name: it is the reserved ID of a null "
        "sample, which is never selectable.");
  }

  // Each ID's first column: thousands of names are looked up at once.
  std::unordered_map<std::string_view, int64_t> column_of;
  column_of.reserve(ids.size());
  for (size_t c = 0; c < ids.size(); ++c) column_of.emplace(ids[c], static_cast<int64_t>(c));
  std::set<std::string> unknown;
  for (const std::string& n : names) {
    if (!column_of.count(n)) unknown.insert(n);
  }
  if (!unknown.empty()) {
    if (!force_samples) {
      return Status::NotFound("subset called for sample(s) not in header: " +
                              JoinNames(unknown) +
                              ". Use \"--force-samples\" to ignore this error.");
    }
    if (warnings != nullptr) {
      *warnings << "warning: subset called for sample(s) not in header: " +
                       JoinNames(unknown) + ".\n";
    }
    names.erase(std::remove_if(names.begin(), names.end(),
                               [&](const std::string& n) { return unknown.count(n) > 0; }),
                names.end());
  }

  if (complement) {
    const std::unordered_set<std::string_view> dropped(names.begin(), names.end());
    for (size_t c = 0; c < ids.size(); ++c) {
      if (!ids[c].empty() && !dropped.count(ids[c])) columns.push_back(static_cast<int64_t>(c));
    }
    return columns;
  }
  std::unordered_set<std::string_view> seen;
  std::set<std::string> duplicates;
  for (const std::string& n : names) {
    if (!seen.insert(n).second) duplicates.insert(n);
  }
  if (!duplicates.empty()) {
    return Status::InvalidArgument("Duplicate sample name \"" + *duplicates.begin() + "\".");
  }
  for (const std::string& n : names) columns.push_back(column_of.at(n));
  return columns;
}

bool Consecutive(const std::vector<int64_t>& columns) {
  for (size_t c = 1; c < columns.size(); ++c) {
    if (columns[c] != columns[c - 1] + 1) return false;
  }
  return true;
}

}  // namespace turbozarr::vcz::internal
