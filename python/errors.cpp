// heed::Error and heed::UsageError as Python exceptions: heed.Error (a RuntimeError, as the
// C++ one is a std::runtime_error) and heed.UsageError, a kind of heed.Error. The message is
// the C++ what(), which names the file, line or key at fault.
#include <heed/error.h>
#include <pybind11/pybind11.h>

#include "bindings.h"

namespace heed::python {

void bind_errors(pybind11::module_& m) {
  // pybind11 tries the translators last-registered first: UsageError before Error.
  auto& error = pybind11::register_exception<Error>(m, "Error", PyExc_RuntimeError);
  pybind11::register_exception<UsageError>(m, "UsageError", error.ptr());
}

}  // namespace heed::python
