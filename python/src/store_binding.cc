// Store bindings: opening stores by URL or path (with S3 options), the store
// wrappers (throttled, metrics, caching), flushing, and raw key access (used
// by tests and tools to inspect stored chunks or damage them on purpose).
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.h"
#include "errors.h"
#include "py_buffer.h"
#include "turbozarr/open_store.h"
#include "turbozarr/store.h"
#include "turbozarr/store_wrappers.h"

namespace nb = nanobind;

namespace turbozarr::python {

namespace {

std::chrono::milliseconds Milliseconds(nb::handle seconds) {
  return std::chrono::milliseconds(std::llround(nb::cast<double>(seconds) * 1e3));
}

// S3 and connection options by their Python names (turbozarr._store checks
// names and values first); what is absent stays unset, for the AWS
// environment and shared files to fill in. The connection options go to
// both remote stores' transports (the URL picks which is used).
void SetRemoteOptions(const nb::dict& given, StoreOptions* options) {
  S3Options& o = options->s3;
  HttpOptions& h = options->http;
  for (auto [name_obj, value] : given) {
    const std::string name = nb::cast<std::string>(name_obj);
    if (name == "endpoint_url") {
      o.endpoint = nb::cast<std::string>(value);
    } else if (name == "region") {
      o.region = nb::cast<std::string>(value);
    } else if (name == "access_key_id") {
      o.access_key_id = nb::cast<std::string>(value);
    } else if (name == "secret_access_key") {
      o.secret_access_key = nb::cast<std::string>(value);
    } else if (name == "session_token") {
      o.session_token = nb::cast<std::string>(value);
    } else if (name == "profile") {
      options->s3_profile = nb::cast<std::string>(value);
    } else if (name == "addressing") {
      const std::string a = nb::cast<std::string>(value);
      o.addressing = a == "path"      ? S3Addressing::kPath
                     : a == "virtual" ? S3Addressing::kVirtualHosted
                                      : S3Addressing::kAuto;
    } else if (name == "connect_timeout") {
      o.http.connect_timeout = h.connect_timeout = Milliseconds(value);
    } else if (name == "idle_timeout") {
      o.http.idle_timeout = h.idle_timeout = Milliseconds(value);
    } else if (name == "request_timeout") {
      o.http.request_timeout = h.request_timeout = Milliseconds(value);
    } else if (name == "deadline") {
      o.http.deadline = h.deadline = Milliseconds(value);
    } else if (name == "max_concurrency") {
      o.http.max_concurrency = h.max_concurrency = nb::cast<int>(value);
    } else if (name == "max_retries") {
      o.http.max_retries = h.max_retries = nb::cast<int>(value);
    } else if (name == "max_connections") {
      o.http.max_connections = h.max_connections = nb::cast<int>(value);
    } else if (name == "ca_file") {
      o.http.ca_file = h.ca_file = nb::cast<std::string>(value);
    } else if (name == "http2") {
      o.http.http2 = h.http2 = nb::cast<bool>(value);
    } else {
      throw nb::value_error(("unknown S3 option '" + name + "'").c_str());
    }
  }
}

MetricsStore& AsMetricsStore(Store& s) {
  auto* m = dynamic_cast<MetricsStore*>(&s);
  if (m == nullptr) {
    throw nb::type_error(("store " + s.Describe() + " does not count metrics").c_str());
  }
  return *m;
}

// The value of `key`, fetched with the GIL released.
std::optional<Buffer> FetchValue(Store& s, const std::string& key) {
  Result<std::optional<Buffer>> r = [&] {
    nb::gil_scoped_release release;
    return s.Get(key);
  }();
  return Unwrap(std::move(r));
}

}  // namespace

void BindStore(nb::module_& m) {
  nb::class_<Store>(m, "Store")
      .def(
          "get",
          [](Store& s, const std::string& key) -> nb::object {
            std::optional<Buffer> value = FetchValue(s, key);
            if (!value) return nb::none();
            return nb::bytes(reinterpret_cast<const char*>(value->data()), value->size());
          },
          nb::arg("key"), "The value of `key` as bytes, or None if absent.")
      .def(
          "sizes",
          [](Store& s, const std::vector<std::string>& keys) {
            std::vector<std::optional<uint64_t>> sizes;
            sizes.reserve(keys.size());
            Status status;
            {
              nb::gil_scoped_release release;
              for (const std::string& key : keys) {
                Result<std::optional<uint64_t>> size = s.Size(key);
                if (!size.ok()) {
                  status = size.status();
                  break;
                }
                sizes.push_back(*size);
              }
            }
            Check(status);
            return sizes;
          },
          nb::arg("keys"),
          "The size of each key's value in bytes, None where absent (nothing is read).")
      .def(
          "get_array",
          [](Store& s, const std::string& key) -> nb::object {
            std::optional<Buffer> value = FetchValue(s, key);
            if (!value) return nb::none();
            // The array owns the fetched buffer: no copy of the value.
            auto* owned = new Buffer(std::move(*value));
            nb::capsule owner(owned,
                              [](void* p) noexcept { delete static_cast<Buffer*>(p); });
            const size_t shape[1] = {owned->size()};
            return nb::cast(nb::ndarray<nb::numpy, uint8_t, nb::ndim<1>>(
                reinterpret_cast<uint8_t*>(owned->data()), 1, shape, owner));
          },
          nb::arg("key"),
          "The value of `key` as a numpy uint8 array that owns it (no copy), or None.")
      .def(
          "set",
          [](Store& s, const std::string& key, nb::handle value) {
            // Any C-contiguous buffer (bytes, numpy, memoryview); the view
            // holds it while the GIL is released.
            PyBufferView bytes(value, /*writable=*/false);
            nb::gil_scoped_release release;
            Check(s.Set(key, ByteView(static_cast<const std::byte*>(bytes.data()),
                                      bytes.size())));
          },
          nb::arg("key"), nb::arg("value"))
      .def(
          "erase",
          [](Store& s, const std::string& key) {
            nb::gil_scoped_release release;
            Check(s.Erase(key));
          },
          nb::arg("key"))
      .def(
          "list",
          [](Store& s, const std::string& prefix) {
            nb::gil_scoped_release release;
            return Unwrap(s.List(prefix));
          },
          nb::arg("prefix") = "", "Every key under `prefix`, sorted.")
      .def(
          "flush",
          [](Store& s) {
            nb::gil_scoped_release release;
            Check(s.Flush());
          },
          "Completes what was written in the store's own format (a zip archive's "
          "central directory); a no-op for directory and memory stores. Writing may "
          "continue afterwards.")
      .def(
          "close",
          [](Store& s) {
            nb::gil_scoped_release release;
            Check(s.Flush());
          },
          "Same as flush(): the store stays usable, and is released with the last "
          "reference to it.")
      .def("__enter__", [](nb::object self) { return self; })
      .def(
          "__exit__",
          [](Store& s, nb::handle, nb::handle, nb::handle) {
            nb::gil_scoped_release release;
            Check(s.Flush());
          },
          nb::arg("exc_type").none(), nb::arg("exc").none(), nb::arg("tb").none())
      .def_prop_ro("writable", [](const Store& s) { return s.Capabilities().writable; })
      .def("describe", &Store::Describe)
      .def("__repr__",
           [](const Store& s) { return "<turbozarr.Store " + s.Describe() + ">"; });

  m.def(
      "open_store",
      [](const std::string& url, bool read_only, bool truncate, bool append,
         const nb::dict& s3) {
        StoreOptions options;
        options.read_only = read_only;
        options.truncate = truncate;
        options.append = append;
        SetRemoteOptions(s3, &options);
        nb::gil_scoped_release release;  // opening an archive reads its directory
        return Unwrap(OpenStore(url, options));
      },
      nb::arg("url"), nb::arg("read_only") = false, nb::arg("truncate") = false,
      nb::arg("append") = false, nb::arg("s3") = nb::dict(),
      "A store from a path or URL: a directory, 'file://', 'memory://', a '.zip' "
      "path or 'zip://' URL, 'http(s)://' or 's3://'. read_only refuses writes; "
      "truncate starts a new zip archive in place of an existing one; append adds "
      "to an existing zip archive; s3 holds S3 and connection options (see "
      "turbozarr.open_store).");
  m.def(
      "memory_store", [] { return MakeMemoryStore(); }, "A new, empty in-memory store.");
  m.def(
      "local_store",
      [](const std::string& root, bool durable) {
        return Unwrap(MakeLocalStore(root, {.durable = durable}));
      },
      nb::arg("root"), nb::arg("durable") = false);

  m.def(
      "throttled_store",
      [](std::shared_ptr<Store> inner, double latency, double bytes_per_second,
         int connections) {
        ThrottleOptions o;
        o.latency = std::chrono::microseconds(std::llround(latency * 1e6));
        o.bytes_per_second = bytes_per_second;
        o.connections = connections;
        return MakeThrottledStore(std::move(inner), o);
      },
      nb::arg("inner"), nb::arg("latency"), nb::arg("bytes_per_second"),
      nb::arg("connections"), "latency in seconds; 0 means no limit for the others.");
  m.def(
      "metrics_store",
      [](std::shared_ptr<Store> inner) -> std::shared_ptr<Store> {
        return MakeMetricsStore(std::move(inner));
      },
      nb::arg("inner"));
  m.def(
      "store_metrics",
      [](Store& s) {
        const StoreMetrics m = AsMetricsStore(s).metrics();
        nb::dict d;
        d["gets"] = m.gets;
        d["get_misses"] = m.get_misses;
        d["bytes_read"] = m.bytes_read;
        d["get_many_calls"] = m.get_many_calls;
        d["sets"] = m.sets;
        d["bytes_written"] = m.bytes_written;
        d["erases"] = m.erases;
        d["lists"] = m.lists;
        d["seconds"] = m.seconds;
        return d;
      },
      nb::arg("store"), "The counts of a store made by metrics_store, as a dict.");
  m.def(
      "reset_store_metrics", [](Store& s) { AsMetricsStore(s).ResetMetrics(); },
      nb::arg("store"));
  m.def(
      "fault_store",
      [](std::shared_ptr<Store> inner, std::vector<std::string> faults, double rate,
         std::string key_contains, uint64_t seed, double spike) -> std::shared_ptr<Store> {
        FaultOptions o;
        for (const std::string& f : faults) {
          if (f == "read_error") o.faults.push_back(Fault::kReadError);
          else if (f == "reset") o.faults.push_back(Fault::kReset);
          else if (f == "short_read") o.faults.push_back(Fault::kShortRead);
          else if (f == "write_error") o.faults.push_back(Fault::kWriteError);
          else if (f == "partial_write") o.faults.push_back(Fault::kPartialWrite);
          else if (f == "latency_spike") o.faults.push_back(Fault::kLatencySpike);
          else throw nb::value_error(("unknown fault '" + f + "'").c_str());
        }
        o.rate = rate;
        o.key_contains = std::move(key_contains);
        o.seed = seed;
        o.spike = std::chrono::milliseconds(std::llround(spike * 1e3));
        return MakeFaultStore(std::move(inner), std::move(o));
      },
      nb::arg("inner"), nb::arg("faults"), nb::arg("rate"), nb::arg("key_contains"),
      nb::arg("seed"), nb::arg("spike"), "spike in seconds.");
  m.def(
      "fault_store_injected",
      [](Store& s) {
        auto* f = dynamic_cast<FaultStore*>(&s);
        if (f == nullptr) throw nb::type_error("not a store made by fault_store");
        return f->injected();
      },
      nb::arg("store"));
  m.def(
      "caching_store",
      [](std::shared_ptr<Store> inner, uint64_t capacity_bytes) {
        return MakeCachingStore(std::move(inner), capacity_bytes);
      },
      nb::arg("inner"), nb::arg("capacity_bytes"));
}

}  // namespace turbozarr::python
