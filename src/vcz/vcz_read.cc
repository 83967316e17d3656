// ReadFields: the values of chosen fields for the selected variants and
// samples, gathered block by block (turbozarr.vcz.read's engine).
#include <cstring>
#include <string>
#include <vector>

#include "turbozarr/vcz.h"
#include "vcz/variant_scan.h"

namespace turbozarr::vcz {

Result<std::vector<FieldValues>> ReadFields(const VczDataset& dataset,
                                            const SubsetOptions& options,
                                            const std::vector<std::string>& names) {
  TZ_ASSIGN_OR_RETURN(internal::VariantScan scan,
                      internal::VariantScan::Make(
                          dataset, options, internal::VariantScan::FilterSamples::kSelected));
  std::vector<FieldValues> out(names.size());
  std::vector<size_t> slots;
  for (size_t i = 0; i < names.size(); ++i) {
    TZ_ASSIGN_OR_RETURN(slots.emplace_back(), scan.Need(names[i]));
    TZ_ASSIGN_OR_RETURN(std::shared_ptr<Array> array, dataset.OpenArray(names[i]));
    FieldValues& f = out[i];
    f.name = names[i];
    f.dtype = array->dtype();
    const bool text = f.dtype.is_variable_length() || f.dtype.id() == DataTypeId::kFixedBytes ||
                      f.dtype.id() == DataTypeId::kFixedUnicode;
    if (text) f.dtype = DataType(DataTypeId::kString);
    f.shape = array->shape();
    f.shape[0] = 0;
    if (names[i].rfind("call_", 0) == 0) {
      f.shape[1] = static_cast<int64_t>(scan.columns().size());
    }
  }
  const std::vector<int64_t> columns = scan.columns();
  const std::vector<int64_t> kWholeRow = {0};  // a variant field's one unit per row
  TZ_RETURN_NOT_OK(scan.ForEachBlock([&](const internal::ScanBlock& block) -> Status {
    for (size_t i = 0; i < out.size(); ++i) {
      FieldValues& f = out[i];
      const internal::FieldBlock& b = (*block.fields)[slots[i]];
      const bool call = f.name.rfind("call_", 0) == 0;
      // Elements per kept unit: a sample's values for a call field, a
      // variant's otherwise; the units of a row: the selected samples, or
      // the row itself.
      const int64_t per_unit = call ? b.per_row_of(1) : b.per_variant();
      const size_t item = b.is_string() ? 0 : b.dtype().size();
      const std::vector<int64_t>& units = call ? columns : kWholeRow;
      for (int64_t r : block.rows) {
        for (int64_t u : units) {
          const int64_t first = r * b.per_variant() + u * per_unit;
          if (b.is_string()) {
            for (int64_t k = 0; k < per_unit; ++k) {
              f.strings.push_back(b.strings()[static_cast<size_t>(first + k)]);
            }
          } else {
            const uint8_t* from =
                static_cast<const uint8_t*>(b.numbers().data()) + first * static_cast<int64_t>(item);
            f.bytes.insert(f.bytes.end(), from, from + per_unit * static_cast<int64_t>(item));
          }
        }
        ++f.shape[0];
      }
    }
    return Status::OK();
  }));
  return out;
}

}  // namespace turbozarr::vcz
