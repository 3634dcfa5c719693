// heed.bleu, heed.chrf, heed.wer and heed.aer: the corpus scores of include/heed/metrics.h for
// lists of Python strings.
#include <heed/metrics.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "bindings.h"

namespace heed::python {

namespace py = pybind11;
using Lines = std::vector<std::string>;

void bind_metrics(py::module_& m) {
  const auto release = py::call_guard<py::gil_scoped_release>();
  // One reference per sentence (a list of lines) or several (a list of such lists). A str is
  // no list of lines to pybind11, so the two overloads never take each other's arguments.
  m.def("bleu", py::overload_cast<const Lines&, const Lines&>(&bleu), py::arg("hypotheses"),
        py::arg("references"), release,
        "Corpus BLEU (0..100) as sacreBLEU's default: line i of hypotheses against line i of "
        "references.");
  m.def("bleu", py::overload_cast<const Lines&, const std::vector<Lines>&>(&bleu),
        py::arg("hypotheses"), py::arg("references"), release,
        "Corpus BLEU with several references per sentence: references[r] is the r-th stream.");
  m.def("chrf", &chrf, py::arg("hypotheses"), py::arg("references"), py::arg("word_order") = 0,
        release, "Corpus chrF2 (0..100); word_order=2 gives chrF++.");
  m.def("wer", &wer, py::arg("hypotheses"), py::arg("references"), release,
        "Word error rate in percent over the corpus.");
  py::class_<AlignmentScores>(m, "AlignmentScores", "precision, recall and AER, in [0, 1]")
      .def_readonly("precision", &AlignmentScores::precision)
      .def_readonly("recall", &AlignmentScores::recall)
      .def_readonly("aer", &AlignmentScores::aer)
      .def("__repr__", [](const AlignmentScores& s) {
        return "AlignmentScores(precision=" + py::repr(py::float_(s.precision)).cast<std::string>() +
               ", recall=" + py::repr(py::float_(s.recall)).cast<std::string>() +
               ", aer=" + py::repr(py::float_(s.aer)).cast<std::string>() + ")";
      });
  m.def("aer", &aer, py::arg("hypotheses"), py::arg("gold"), py::arg("one_based") = false,
        release,
        "Alignment error rate of Pharaoh alignments ('i-j ...' per line) against gold ones "
        "('i?j' or 'i-j-P' mark possible links).");
}

}  // namespace heed::python
