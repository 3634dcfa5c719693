// The compiled part of the Python module `heed` (heed._heed; python/heed/__init__.py re-exports
// it): the public C++ API of libheed.so for Python 3, with pybind11 (docs/PYTHON.md).
#include <heed/version.h>
#include <pybind11/pybind11.h>

#include "bindings.h"

PYBIND11_MODULE(_heed, m) {
  m.doc() = "heed: train attention models, translate with them, score and inspect the output";
  m.attr("__version__") = heed::version();
  heed::python::bind_errors(m);
  heed::python::bind_translator(m);
  heed::python::bind_trainer(m);
  heed::python::bind_metrics(m);
}
