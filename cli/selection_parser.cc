#include "cli/selection_parser.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>

namespace turbozarr::cli {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> Split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  size_t begin = 0;
  while (true) {
    size_t end = text.find(sep, begin);
    if (end == std::string_view::npos) {
      parts.push_back(text.substr(begin));
      return parts;
    }
    parts.push_back(text.substr(begin, end - begin));
    begin = end + 1;
  }
}

// An optional integer: empty text gives nullopt.
Result<std::optional<int64_t>> ParseOptionalInt(std::string_view text,
                                                std::string_view item) {
  text = Trim(text);
  if (text.empty()) return std::optional<int64_t>();
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return Status::InvalidArgument("invalid index '" + std::string(item) +
                                   "' in selection: '" + std::string(text) +
                                   "' is not an integer");
  }
  return std::optional<int64_t>(value);
}

// Python's slice clamping for a positive step.
int64_t ClampSliceBound(int64_t value, int64_t extent) {
  if (value < 0) value += extent;
  return std::clamp<int64_t>(value, 0, extent);
}

struct Item {
  DimRange range;
  bool keeps_dimension = true;
};

Result<Item> ParseItem(std::string_view item, size_t dim, int64_t extent) {
  std::vector<std::string_view> parts = Split(item, ':');
  if (parts.size() > 3) {
    return Status::InvalidArgument("invalid slice '" + std::string(item) +
                                   "' in selection: too many ':'");
  }
  if (parts.size() == 1) {
    TZ_ASSIGN_OR_RETURN(std::optional<int64_t> index, ParseOptionalInt(parts[0], item));
    int64_t i = *index < 0 ? *index + extent : *index;
    if (i < 0 || i >= extent) {
      return Status::InvalidArgument(
          "index " + std::to_string(*index) + " is out of bounds for dimension " +
          std::to_string(dim) + " with size " + std::to_string(extent));
    }
    return Item{DimRange{i, i + 1, 1}, false};
  }
  TZ_ASSIGN_OR_RETURN(std::optional<int64_t> start, ParseOptionalInt(parts[0], item));
  TZ_ASSIGN_OR_RETURN(std::optional<int64_t> stop, ParseOptionalInt(parts[1], item));
  std::optional<int64_t> step;
  if (parts.size() == 3) {
    TZ_ASSIGN_OR_RETURN(step, ParseOptionalInt(parts[2], item));
  }
  int64_t s = step.value_or(1);
  if (s == 0) {
    return Status::InvalidArgument("invalid slice '" + std::string(item) +
                                   "' in selection: step cannot be zero");
  }
  if (s < 0) {
    return Status::InvalidArgument("invalid slice '" + std::string(item) +
                                   "' in selection: negative steps are not supported");
  }
  DimRange range;
  range.start = start ? ClampSliceBound(*start, extent) : 0;
  range.stop = stop ? ClampSliceBound(*stop, extent) : extent;
  range.stop = std::max(range.stop, range.start);
  range.step = s;
  return Item{range, true};
}

}  // namespace

Result<ParsedSelection> ParseSelection(std::string_view text,
                                       const std::vector<int64_t>& shape) {
  std::vector<std::string_view> items;
  if (!Trim(text).empty()) {
    for (std::string_view item : Split(text, ',')) items.push_back(Trim(item));
    // A trailing comma, as in "5,", is allowed (Python's tuple syntax).
    if (items.size() > 1 && items.back().empty()) items.pop_back();
  }
  std::optional<size_t> ellipsis;
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i] == "...") {
      if (ellipsis) {
        return Status::InvalidArgument("selection '" + std::string(text) +
                                       "' has more than one '...'");
      }
      ellipsis = i;
    } else if (items[i].empty()) {
      return Status::InvalidArgument("selection '" + std::string(text) +
                                     "' has an empty item");
    }
  }
  const size_t explicit_items = items.size() - (ellipsis ? 1 : 0);
  if (explicit_items > shape.size()) {
    return Status::InvalidArgument("too many indices in selection '" + std::string(text) +
                                   "': " + std::to_string(explicit_items) +
                                   " for an array of rank " +
                                   std::to_string(shape.size()));
  }
  // Expand "..." (or the implicit trailing one) into full slices.
  std::vector<std::string_view> expanded;
  const size_t fill = shape.size() - explicit_items;
  const size_t fill_at = ellipsis.value_or(items.size());
  for (size_t i = 0; i <= items.size(); ++i) {
    if (i == fill_at) expanded.insert(expanded.end(), fill, ":");
    if (i < items.size() && (!ellipsis || i != *ellipsis)) expanded.push_back(items[i]);
  }

  ParsedSelection result;
  std::vector<DimRange> dims;
  for (size_t d = 0; d < shape.size(); ++d) {
    TZ_ASSIGN_OR_RETURN(Item item, ParseItem(expanded[d], d, shape[d]));
    dims.push_back(item.range);
    if (item.keeps_dimension) result.result_shape.push_back(item.range.count());
  }
  result.selection = Selection(std::move(dims));
  return result;
}

Result<std::vector<int64_t>> ParseShapeList(std::string_view text,
                                            std::string_view what) {
  std::vector<int64_t> shape;
  if (Trim(text).empty()) {
    return Status::InvalidArgument(std::string(what) + " must not be empty");
  }
  for (std::string_view part : Split(text, ',')) {
    part = Trim(part);
    int64_t value = 0;
    auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (part.empty() || ec != std::errc() || end != part.data() + part.size() ||
        value <= 0) {
      return Status::InvalidArgument("invalid " + std::string(what) + " '" +
                                     std::string(text) + "': '" + std::string(part) +
                                     "' is not a positive integer");
    }
    shape.push_back(value);
  }
  return shape;
}

}  // namespace turbozarr::cli
