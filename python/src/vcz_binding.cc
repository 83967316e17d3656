// VCF Zarr bindings: a dataset opened from a group, and the `turbozarr vcz`
// commands run on it with their output returned (or written to files),
// for turbozarr.vcz.
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <tuple>

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include "bindings.h"
#include "errors.h"
#include "turbozarr/group.h"
#include "turbozarr/vcz.h"

namespace nb = nanobind;

namespace turbozarr::python {
namespace {

using vcz::VczDataset;

// The options of one command, from the keyword arguments Python passed on
// (None: not given). An unknown name is a TypeError naming it.
class Options {
 public:
  explicit Options(nb::dict d) : d_(std::move(d)) {}

  void Text(const char* name, std::optional<std::string>& out) {
    if (nb::object v = Take(name); v.is_valid() && !v.is_none()) out = nb::cast<std::string>(v);
  }
  void Text(const char* name, std::string& out) {
    if (nb::object v = Take(name); v.is_valid() && !v.is_none()) out = nb::cast<std::string>(v);
  }
  void Flag(const char* name, bool& out) {
    if (nb::object v = Take(name); v.is_valid() && !v.is_none()) out = nb::cast<bool>(v);
  }
  void Count(const char* name, std::optional<int64_t>& out) {
    if (nb::object v = Take(name); v.is_valid() && !v.is_none()) out = nb::cast<int64_t>(v);
  }
  void Subset(vcz::SubsetOptions& o) {
    Text("regions", o.regions);
    Text("regions_file", o.regions_file);
    Text("targets", o.targets);
    Text("targets_file", o.targets_file);
    Text("samples", o.samples);
    Text("samples_file", o.samples_file);
    Flag("force_samples", o.force_samples);
    Text("include", o.include);
    Text("exclude", o.exclude);
    if (nb::object v = Take("variants"); v.is_valid() && !v.is_none()) {
      o.variants = nb::cast<std::pair<int64_t, int64_t>>(v);
    }
  }
  void Export(vcz::ExportOptions& o) {
    Text("types", o.types);
    Text("exclude_types", o.exclude_types);
    Count("min_alleles", o.min_alleles);
    Count("max_alleles", o.max_alleles);
    Subset(o);
  }
  // After reading: anything left was not an option of the command.
  void CheckAllTaken(const char* command) const {
    for (auto [key, value] : d_) {
      if (!taken_.count(nb::cast<std::string>(key))) {
        throw nb::type_error(("vcz " + std::string(command) + ": unexpected option '" +
                              nb::cast<std::string>(key) + "'")
                                 .c_str());
      }
    }
  }

 private:
  nb::object Take(const char* name) {
    taken_.insert(name);
    return d_.contains(name) ? nb::object(d_[name]) : nb::object();
  }

  nb::dict d_;
  std::set<std::string> taken_;
};

// Runs `write` with the GIL released; returns what it wrote and the
// warnings it gave (--force-samples).
template <typename Write>
std::tuple<nb::bytes, std::string> Capture(Write write) {
  std::ostringstream out, warnings;
  {
    nb::gil_scoped_release release;
    Check(write(out, warnings));
  }
  const std::string text = out.str();
  return {nb::bytes(text.data(), text.size()), warnings.str()};
}

// Fields as (name, dtype name, dtype size, shape, values) tuples, for
// turbozarr.vcz to make numpy arrays of: numbers as a uint8 numpy array
// that owns the bytes (moved, not copied), strings as a list.
nb::list FieldsToPython(std::vector<vcz::FieldValues>& fields) {
  nb::list out;
  for (vcz::FieldValues& f : fields) {
    nb::object values;
    if (f.dtype.id() == DataTypeId::kString) {
      nb::list strings;
      for (const std::string& s : f.strings) strings.append(nb::str(s.data(), s.size()));
      values = strings;
    } else {
      // The bytes go to numpy as they are; freed, they return to the
      // engine's pool of buffers for the next block.
      auto* owned = new Buffer(std::move(f.bytes));
      nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<Buffer*>(p); });
      values = nb::cast(nb::ndarray<nb::numpy, uint8_t, nb::ndim<1>>(
          reinterpret_cast<uint8_t*>(owned->data()), {owned->size()}, owner));
    }
    out.append(nb::make_tuple(f.name, DataTypeIdName(f.dtype.id()), f.dtype.size(),
                              nb::cast(f.shape), values));
  }
  return out;
}

const vcz::VczTables* Tables(const VczDataset& d) {
  nb::gil_scoped_release release;
  return Unwrap(d.tables());
}

}  // namespace

void BindVcz(nb::module_& m) {
  nb::class_<VczDataset>(m, "VczDataset")
      .def_prop_ro("num_variants", &VczDataset::num_variants)
      .def_prop_ro("num_samples", &VczDataset::num_samples)
      .def_prop_ro("num_contigs", &VczDataset::num_contigs)
      // The tables are read on first use (the GIL released while they are).
      .def_prop_ro("sample_ids", [](const VczDataset& d) { return Tables(d)->sample_ids; })
      .def_prop_ro("contig_ids", [](const VczDataset& d) { return Tables(d)->contig_ids; })
      .def_prop_ro("contig_lengths",
                   [](const VczDataset& d) { return Tables(d)->contig_lengths; })
      .def("describe", &VczDataset::Describe);

  m.def(
      "vcz_open",
      [](std::shared_ptr<Group> root) {
        nb::gil_scoped_release release;
        return std::const_pointer_cast<VczDataset>(Unwrap(VczDataset::Open(std::move(root))));
      },
      nb::arg("root"));

  m.def(
      "vcz_run",
      [](std::shared_ptr<VczDataset> d, const std::string& command, nb::dict kwargs) {
        Options o(std::move(kwargs));
        if (command == "index_stats" || command == "index_records" || command == "samples") {
          o.CheckAllTaken(command.c_str());
          return Capture([&](std::ostream& out, std::ostream&) {
            return command == "index_stats"     ? vcz::WriteContigStats(*d, out)
                   : command == "index_records" ? vcz::WriteRecordCount(*d, out)
                                                : vcz::WriteSampleList(*d, out);
          });
        }
        if (command == "query") {
          vcz::QueryOptions q;
          o.Text("format", q.format);
          o.Flag("disable_automatic_newline", q.disable_automatic_newline);
          o.Subset(q);
          o.CheckAllTaken("query");
          return Capture([&](std::ostream& out, std::ostream& warnings) {
            q.warnings = &warnings;
            return vcz::WriteQuery(*d, q, out);
          });
        }
        if (command == "view") {
          vcz::ViewOptions v;
          o.Flag("header_only", v.header_only);
          o.Flag("no_header", v.no_header);
          o.Flag("no_update", v.no_update);
          o.Flag("drop_genotypes", v.drop_genotypes);
          o.Text("fill_tags", v.fill_tags);
          o.Text("command_line", v.command_line);
          o.Export(v);
          o.CheckAllTaken("view");
          return Capture([&](std::ostream& out, std::ostream& warnings) {
            v.warnings = &warnings;
            return vcz::WriteVcf(*d, v, out);
          });
        }
        if (command == "view_plink") {
          vcz::PlinkOptions p;
          o.Text("output", p.output);
          o.Flag("no_bim", p.no_bim);
          o.Flag("no_fam", p.no_fam);
          o.Export(p);
          o.CheckAllTaken("view_plink");
          return Capture([&](std::ostream&, std::ostream& warnings) {
            p.warnings = &warnings;
            return vcz::WritePlink(*d, p);
          });
        }
        if (command == "view_bgen") {
          vcz::BgenOptions b;
          o.Text("output", b.output);
          o.Flag("no_bgi", b.no_bgi);
          o.Flag("no_sample_file", b.no_sample_file);
          o.Flag("no_header_samples", b.no_header_samples);
          o.Flag("unphased", b.unphased);
          o.Text("variant_id_field", b.variant_id_field);
          std::optional<int64_t> level;
          o.Count("compression_level", level);
          if (level) b.compression_level = static_cast<int>(*level);
          o.Flag("fixed_variant_size", b.fixed_variant_size);
          o.Count("total_string_length", b.total_string_length);
          std::optional<std::string> pad;
          o.Text("pad_byte", pad);
          if (pad && pad->size() != 1) {
            throw nb::value_error("vcz view_bgen: pad_byte must be a single character");
          }
          if (pad) b.pad_byte = (*pad)[0];
          o.Export(b);
          o.CheckAllTaken("view_bgen");
          return Capture([&](std::ostream& out, std::ostream& warnings) {
            b.warnings = &warnings;
            return vcz::WriteBgen(*d, b, out);
          });
        }
        throw nb::value_error(("vcz: unknown command '" + command + "'").c_str());
      },
      nb::arg("dataset"), nb::arg("command"), nb::arg("options"));

  // The fields' values: (name, dtype name, dtype size, shape, bytes or a
  // list of strings) each, for turbozarr.vcz.read to make numpy arrays of.
  m.def(
      "vcz_read",
      [](std::shared_ptr<VczDataset> d, const std::vector<std::string>& names, nb::dict kwargs) {
        Options o(std::move(kwargs));
        vcz::SubsetOptions subset;
        o.Subset(subset);
        o.CheckAllTaken("read");
        std::vector<vcz::FieldValues> fields;
        {
          nb::gil_scoped_release release;
          fields = Unwrap(vcz::ReadFields(*d, subset, names));
        }
        return FieldsToPython(fields);
      },
      nb::arg("dataset"), nb::arg("fields"), nb::arg("options"));

  // The same a block at a time, read ahead within a budget in bytes.
  nb::class_<vcz::VariantBlockReader>(m, "VczBlockReader")
      .def("next",
           [](vcz::VariantBlockReader& reader) -> nb::object {
             std::optional<std::vector<vcz::FieldValues>> fields;
             {
               nb::gil_scoped_release release;
               fields = Unwrap(reader.Next());
             }
             if (!fields) return nb::none();
             return FieldsToPython(*fields);
           })
      .def_prop_ro("peak_waiting_bytes", &vcz::VariantBlockReader::peak_waiting_bytes);
  m.def(
      "vcz_blocks",
      [](std::shared_ptr<VczDataset> d, const std::vector<std::string>& names,
         int64_t readahead_bytes, nb::dict kwargs) {
        Options o(std::move(kwargs));
        vcz::SubsetOptions subset;
        o.Subset(subset);
        o.CheckAllTaken("iter_blocks");
        nb::gil_scoped_release release;
        return Unwrap(vcz::VariantBlockReader::Open(d, subset, names, readahead_bytes));
      },
      nb::arg("dataset"), nb::arg("fields"), nb::arg("readahead_bytes"), nb::arg("options"));
}

}  // namespace turbozarr::python
