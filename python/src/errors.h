// How turbozarr's Status becomes a Python exception.
//
// Binding code calls Check()/Unwrap(); a failure throws StatusError, which a
// translator registered at import turns into the matching class defined in
// turbozarr/errors.py (NotFoundError, CorruptionError, ...). The classes live
// in Python so that users can subclass and catch them like any Python error.
//
// Thread safety: StatusError is thrown on the calling thread; translation
// happens with the GIL held, after any released section has ended.
#pragma once

#include <exception>
#include <string>
#include <utility>

#include <nanobind/nanobind.h>
#include <nlohmann/json.hpp>

#include "turbozarr/metadata.h"
#include "turbozarr/status.h"

namespace turbozarr::python {

class StatusError : public std::exception {
 public:
  explicit StatusError(Status status) : status_(std::move(status)) {}
  const Status& status() const { return status_; }
  const char* what() const noexcept override { return status_.message().c_str(); }

 private:
  Status status_;
};

inline void Check(const Status& status) {
  if (!status.ok()) throw StatusError(status);
}

template <typename T>
T Unwrap(Result<T> result) {
  if (!result.ok()) throw StatusError(result.status());
  return std::move(result).value();
}

// Parses a JSON document handed over from Python; InvalidArgumentError names
// `what` on malformed input.
JsonDocument ParseJsonArgument(const std::string& text, const char* what);

// Installs the StatusError translator.
void RegisterErrorTranslator();

// Binds _raise_status(code, message), used by the tests to check the mapping
// of every code without having to provoke each failure.
void BindErrorHelpers(nanobind::module_& m);

}  // namespace turbozarr::python
