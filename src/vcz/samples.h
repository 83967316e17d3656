// Sample selection (`-s/-S`, `^` to complement, `--force-samples`), with
// vcztools' rules and words: names in the order given (a complement keeps
// the dataset's order); null samples (ID "") are never selected; a name
// twice is refused, unless complemented; a name the dataset lacks is
// refused, or with --force-samples dropped with a warning.
//
// Thread safety: a pure function over the dataset's tables.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "turbozarr/status.h"
#include "turbozarr/vcz.h"

namespace turbozarr::vcz::internal {

// The columns (indexes into sample_id) that -s `samples` or -S
// `samples_file` select; every non-null sample when both are absent.
// `warnings`, when not null, receives what --force-samples dropped.
Result<std::vector<int64_t>> SelectSamples(const VczDataset& dataset,
                                           const std::optional<std::string>& samples,
                                           const std::optional<std::string>& samples_file,
                                           bool force_samples, std::ostream* warnings);

// Whether `columns` are consecutive samples (so their values in a row are
// one run); true for none or one.
bool Consecutive(const std::vector<int64_t>& columns);

}  // namespace turbozarr::vcz::internal
