#include "errors.h"

#include <string_view>

#include <nanobind/stl/string.h>

namespace nb = nanobind;

namespace turbozarr::python {
namespace {

// Names of the exception classes in turbozarr/errors.py, by status code.
const char* ErrorClassName(StatusCode code) {
  switch (code) {
    case StatusCode::kNotFound:
      return "NotFoundError";
    case StatusCode::kCorruption:
      return "CorruptionError";
    case StatusCode::kInvalidArgument:
      return "InvalidArgumentError";
    case StatusCode::kIOError:
      return "StoreIOError";
    case StatusCode::kUnsupported:
      return "UnsupportedError";
    case StatusCode::kCancelled:
      return "CancelledError";
    case StatusCode::kAlreadyExists:
      return "AlreadyExistsError";
    case StatusCode::kOk:
      break;
  }
  return "TurbozarrError";
}

void RaiseStatus(const Status& status) {
  // Looked up on every failure rather than cached: failures are rare, and a
  // cached Python object would outlive the interpreter at shutdown.
  nb::object cls;
  try {
    cls = nb::module_::import_("turbozarr.errors").attr(ErrorClassName(status.code()));
  } catch (nb::python_error& e) {
    e.restore();
    return;
  }
  // A message may quote damaged bytes (a metadata document that is not
  // UTF-8): decoded strictly they would raise UnicodeDecodeError in place of
  // the error that names the key, so bytes that are not UTF-8 are escaped.
  const std::string& text = status.message();
  PyObject* message = PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()),
                                           "backslashreplace");
  if (message == nullptr) return;  // MemoryError is set
  PyErr_SetObject(cls.ptr(), message);
  Py_DECREF(message);
}

}  // namespace

JsonDocument ParseJsonArgument(const std::string& text, const char* what) {
  try {
    return JsonDocument::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw StatusError(Status::InvalidArgument(std::string("malformed JSON for ") + what +
                                              ": " + e.what()));
  }
}

void RegisterErrorTranslator() {
  nb::register_exception_translator(
      [](const std::exception_ptr& p, void*) {
        try {
          std::rethrow_exception(p);
        } catch (const StatusError& e) {
          RaiseStatus(e.status());
        }
      },
      nullptr);
}

void BindErrorHelpers(nb::module_& m) {
  m.def("_raise_status", [](int code, const std::string& message) {
    if (code <= static_cast<int>(StatusCode::kOk) ||
        code > static_cast<int>(StatusCode::kAlreadyExists)) {
      throw nb::value_error("not a failure status code");
    }
    Check(Status(static_cast<StatusCode>(code), message));
  });
}

}  // namespace turbozarr::python
