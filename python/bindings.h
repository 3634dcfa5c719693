#pragma once
// The parts of the Python module `heed` (docs/PYTHON.md), one per public header: module.cpp
// makes the module and calls each. All of them wrap the public C++ API (include/heed/) only.
#include <pybind11/pybind11.h>

namespace heed::python {

void bind_errors(pybind11::module_& m);      // heed.Error, heed.UsageError
void bind_translator(pybind11::module_& m);  // heed.Translator and its results
void bind_trainer(pybind11::module_& m);     // heed.Trainer, its progress and result
void bind_metrics(pybind11::module_& m);     // heed.bleu, chrf, wer, aer

}  // namespace heed::python
