// turbozarr.sparse's engine: the first pass over a source (CountStats), the
// tile writer and the tile reader, all on numpy buffers with the GIL
// released. Element types arrive as numpy's names ("int32", "float32"),
// which are the v3 names too.
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>

#include "bindings.h"
#include "errors.h"
#include "py_buffer.h"
#include "turbozarr/sparse.h"

namespace nb = nanobind;

namespace turbozarr::python {
namespace {

DataType TypeNamed(const std::string& name) {
  return Unwrap(ParseV3DataType(nlohmann::json(name)));
}

// A CSR block of numpy buffers, held for the call.
struct CsrBuffers {
  CsrBuffers(nb::handle indptr, const std::string& indptr_type, nb::handle indices,
             const std::string& indices_type, nb::handle values, const std::string& values_type)
      : indptr_view(indptr, false), indices_view(indices, false), values_view(values, false) {
    rows.indptr = indptr_view.data();
    rows.indptr_type = TypeNamed(indptr_type);
    rows.indices = indices_view.data();
    rows.indices_type = TypeNamed(indices_type);
    rows.values = values_view.data();
    rows.values_type = TypeNamed(values_type);
    const size_t ptrs = indptr_view.size() / rows.indptr_type.size();
    if (ptrs == 0) Check(Status::InvalidArgument("indptr is empty"));
    rows.rows = static_cast<int64_t>(ptrs) - 1;
    // The nonzeros the row pointers address must be in the buffers.
    int64_t first = 0, last = 0;
    if (rows.indptr_type.size() == 8) {
      std::memcpy(&first, rows.indptr, 8);
      std::memcpy(&last, static_cast<const std::byte*>(rows.indptr) + 8 * rows.rows, 8);
    } else {
      int32_t a = 0, b = 0;
      std::memcpy(&a, rows.indptr, 4);
      std::memcpy(&b, static_cast<const std::byte*>(rows.indptr) + 4 * rows.rows, 4);
      first = a;
      last = b;
    }
    const int64_t have_indices =
        static_cast<int64_t>(indices_view.size() / rows.indices_type.size());
    const int64_t have_values = static_cast<int64_t>(values_view.size() / rows.values_type.size());
    if (first < 0 || last < first || last > have_indices || last > have_values) {
      Check(Status::InvalidArgument(
          "the row pointers address nonzeros [" + std::to_string(first) + ", " +
          std::to_string(last) + "), but indices hold " + std::to_string(have_indices) +
          " and values " + std::to_string(have_values)));
    }
  }
  PyBufferView indptr_view, indices_view, values_view;
  sparse::CsrRows rows;
};

nb::bytes Bytes(const void* data, size_t size) {
  return nb::bytes(static_cast<const char*>(data), size);
}

}  // namespace

void BindSparse(nb::module_& m) {
  nb::class_<sparse::CountStats>(m, "SparseCountStats")
      .def(nb::init<int64_t>(), nb::arg("genes"))
      .def(
          "add",
          [](sparse::CountStats& s, nb::handle indptr, const std::string& indptr_type,
             nb::handle indices, const std::string& indices_type, nb::handle values,
             const std::string& values_type, int64_t first_cell) {
            CsrBuffers b(indptr, indptr_type, indices, indices_type, values, values_type);
            nb::gil_scoped_release release;
            Check(s.Add(b.rows, first_cell));
          },
          nb::arg("indptr"), nb::arg("indptr_type"), nb::arg("indices"), nb::arg("indices_type"),
          nb::arg("values"), nb::arg("values_type"), nb::arg("first_cell"))
      .def_prop_ro("nonzeros", &sparse::CountStats::nonzeros)
      .def("gene_totals",
           [](const sparse::CountStats& s) {
             return Bytes(s.gene_totals().data(), s.gene_totals().size() * sizeof(double));
           })
      .def(
          "choose_layout",
          [](const sparse::CountStats& s, const std::string& layout_json) {
            sparse::Layout layout =
                Unwrap(sparse::Layout::FromJson(ParseJsonArgument(layout_json, "layout"),
                                                "the new matrix"));
            s.ChooseValueTypes(layout);
            return layout.ToJson().dump();
          },
          nb::arg("layout"));

  m.def(
      "sparse_gene_order",
      [](const sparse::CountStats& s) {
        std::vector<int32_t> order = sparse::GeneOrder(s.gene_totals());
        return Bytes(order.data(), order.size() * 4);
      },
      nb::arg("stats"));

  nb::class_<sparse::MatrixWriter>(m, "SparseMatrixWriter")
      .def(
          "write_tile",
          [](sparse::MatrixWriter& w, int64_t tile, nb::handle indptr,
             const std::string& indptr_type, nb::handle indices, const std::string& indices_type,
             nb::handle values, const std::string& values_type) {
            CsrBuffers b(indptr, indptr_type, indices, indices_type, values, values_type);
            nb::gil_scoped_release release;
            Check(w.WriteTile(tile, b.rows));
          },
          nb::arg("tile"), nb::arg("indptr"), nb::arg("indptr_type"), nb::arg("indices"),
          nb::arg("indices_type"), nb::arg("values"), nb::arg("values_type"))
      .def("finish", [](sparse::MatrixWriter& w) {
        nb::gil_scoped_release release;
        Check(w.Finish());
      });

  m.def(
      "sparse_create",
      [](std::shared_ptr<Store> store, const std::string& path, const std::string& layout_json,
         nb::handle gene_order, bool overwrite) {
        sparse::Layout layout = Unwrap(sparse::Layout::FromJson(
            ParseJsonArgument(layout_json, "layout"), "the new matrix"));
        PyBufferView order_view(gene_order, false);
        const auto* p = static_cast<const int32_t*>(order_view.data());
        std::vector<int32_t> order(p, p + order_view.size() / 4);
        nb::gil_scoped_release release;
        std::unique_ptr<sparse::MatrixWriter> w = Unwrap(sparse::MatrixWriter::Create(
            std::move(store), path, std::move(layout), std::move(order), overwrite));
        return std::shared_ptr<sparse::MatrixWriter>(std::move(w));
      },
      nb::arg("store"), nb::arg("path"), nb::arg("layout"), nb::arg("gene_order"),
      nb::arg("overwrite"));

  nb::class_<sparse::Matrix>(m, "SparseMatrix")
      .def_prop_ro("layout", [](const sparse::Matrix& x) { return x.layout().ToJson().dump(); })
      .def_prop_ro("nonzeros", &sparse::Matrix::nonzeros)
      .def("gene_order",
           [](const sparse::Matrix& x) {
             return Bytes(x.gene_order().data(), x.gene_order().size() * 4);
           })
      .def("tile_sizes",
           [](const sparse::Matrix& x) {
             std::vector<int64_t> v;
             for (int64_t t = 0; t < x.layout().tiles(); ++t) {
               v.push_back(x.tile_size(t).nonzeros);
               v.push_back(x.tile_size(t).exceptions);
             }
             return Bytes(v.data(), v.size() * 8);
           })
      .def("describe", &sparse::Matrix::Describe)
      .def(
          "read_tile",
          [](const sparse::Matrix& x, int64_t tile, nb::handle indptr, nb::handle indices,
             nb::handle values, nb::handle gene_map, bool sorted, int threads) {
            PyBufferView p(indptr, true), i(indices, true), v(values, true);
            std::optional<PyBufferView> map;
            if (!gene_map.is_none()) {
              map.emplace(gene_map, false);
              if (map->size() != static_cast<size_t>(x.layout().genes) * 4) {
                Check(Status::InvalidArgument("the gene map must hold one int32 per gene"));
              }
            }
            const int64_t cells = x.layout().TileCells(tile);
            if (tile >= 0 && tile < x.layout().tiles() &&
                p.size() < static_cast<size_t>(cells + 1) * 4) {
              Check(Status::InvalidArgument("indptr holds fewer than cells + 1 int32"));
            }
            const int64_t capacity = std::min<int64_t>(
                static_cast<int64_t>(i.size() / 4),
                static_cast<int64_t>(v.size() / x.layout().counts.size()));
            sparse::TileTarget target{static_cast<int32_t*>(p.data()),
                                      static_cast<int32_t*>(i.data()), v.data(), capacity};
            sparse::DecodeOptions options;
            options.gene_map = map ? static_cast<const int32_t*>(map->data()) : nullptr;
            options.sorted = sorted;
            options.threads = threads;
            nb::gil_scoped_release release;
            return Unwrap(x.ReadTile(tile, target, options));
          },
          nb::arg("tile"), nb::arg("indptr"), nb::arg("indices"), nb::arg("values"),
          nb::arg("gene_map").none(), nb::arg("sorted"), nb::arg("threads"));

  m.def(
      "sparse_open",
      [](std::shared_ptr<Store> store, const std::string& path) {
        nb::gil_scoped_release release;
        return std::const_pointer_cast<sparse::Matrix>(
            Unwrap(sparse::Matrix::Open(std::move(store), path)));
      },
      nb::arg("store"), nb::arg("path"));

  m.def(
      "sparse_gather_rows",
      [](nb::handle indptr, bool wide_indptr, nb::handle indices, nb::handle values,
         int64_t value_size, nb::handle rows, nb::handle out_indptr, nb::handle out_indices,
         nb::handle out_values) {
        PyBufferView p(indptr, false), i(indices, false), v(values, false), r(rows, false);
        PyBufferView op(out_indptr, true), oi(out_indices, true), ov(out_values, true);
        const size_t ptr_size = wide_indptr ? 8 : 4;
        auto ptr_at = [&](int64_t k) -> int64_t {
          if (wide_indptr) return static_cast<const int64_t*>(p.data())[k];
          return static_cast<const int32_t*>(p.data())[k];
        };
        const auto* wanted = static_cast<const int64_t*>(r.data());
        const int64_t count = static_cast<int64_t>(r.size() / 8);
        const int64_t block_rows = static_cast<int64_t>(p.size() / ptr_size) - 1;
        const int64_t have = std::min<int64_t>(static_cast<int64_t>(i.size() / 4),
                                               static_cast<int64_t>(v.size() / value_size));
        int64_t need = 0;
        for (int64_t k = 0; k < count; ++k) {
          if (wanted[k] < 0 || wanted[k] >= block_rows) {
            Check(Status::InvalidArgument("row " + std::to_string(wanted[k]) +
                                          " is outside the block's " +
                                          std::to_string(block_rows)));
          }
          const int64_t a = ptr_at(wanted[k]), b = ptr_at(wanted[k] + 1);
          if (a < 0 || b < a || b > have) {
            Check(Status::InvalidArgument("the block's row pointers run beyond its nonzeros"));
          }
          need += b - a;
        }
        if (op.size() < static_cast<size_t>(count + 1) * 8 ||
            oi.size() < static_cast<size_t>(need) * 4 ||
            ov.size() < static_cast<size_t>(need * value_size)) {
          Check(Status::InvalidArgument("the gather's output buffers are too small"));
        }
        nb::gil_scoped_release release;
        auto* out_ptr = static_cast<int64_t*>(op.data());
        auto* out_idx = static_cast<int32_t*>(oi.data());
        const auto* idx = static_cast<const int32_t*>(i.data());
        if (wide_indptr) {
          return sparse::GatherRows(static_cast<const int64_t*>(p.data()), idx, v.data(),
                                    static_cast<size_t>(value_size), wanted, count, out_ptr,
                                    out_idx, ov.data());
        }
        return sparse::GatherRows(static_cast<const int32_t*>(p.data()), idx, v.data(),
                                  static_cast<size_t>(value_size), wanted, count, out_ptr,
                                  out_idx, ov.data());
      },
      nb::arg("indptr"), nb::arg("wide_indptr"), nb::arg("indices"), nb::arg("values"),
      nb::arg("value_size"), nb::arg("rows"), nb::arg("out_indptr"), nb::arg("out_indices"),
      nb::arg("out_values"));
}

}  // namespace turbozarr::python
