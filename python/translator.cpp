// heed.Translator: a model directory (or an ensemble) loaded once, translating a sentence or a
// list of them with the options of heed::Translator::Options as keyword arguments. Each
// hypothesis' attention, saliency and alignment come back as numpy arrays (made once, when the
// results are converted), beside the alignment's text as `heed translate` prints it.
#include <heed/translator.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"

namespace heed::python {

namespace py = pybind11;

namespace {

// One hypothesis as Python sees it: the arrays are None where the options did not ask for
// them.
struct Hypothesis {
  std::string text;
  double score = 0.0;
  std::vector<std::string> tokens;
  py::object attention = py::none();  // float32, len(tokens) x len(source)
  py::object saliency = py::none();   // the same layout; the best hypothesis only
  std::string alignment;              // the text, as `heed translate --alignment` appends it
  py::object alignment_array = py::none();
};

struct Result {
  std::vector<std::string> source;
  std::vector<Hypothesis> nbest;
  bool skipped = false;
  std::string best() const { return nbest.empty() ? std::string() : nbest.front().text; }
};

// A row-major rows x cols matrix of a C++ hypothesis as a float32 array of that shape; None
// for an empty one (not asked for).
py::object matrix(const std::vector<float>& values, std::size_t rows) {
  if (values.empty() || rows == 0) return py::none();
  const std::size_t cols = values.size() / rows;
  py::array_t<float> a({rows, cols});
  std::copy(values.begin(), values.end(), a.mutable_data());
  return a;
}

// The alignment text as an array. Hard and threshold alignments are Pharaoh links "i-j":
// int32 pairs (source, target), n x 2. A soft one is a row of comma-separated weights per
// output piece (or word): float32, rows x columns.
py::object alignment_array(const std::string& text, bool soft) {
  std::istringstream in(text);
  std::vector<std::string> items;
  for (std::string item; in >> item;) items.push_back(item);
  if (soft) {
    std::vector<float> weights;
    std::size_t cols = 0;
    for (const std::string& row : items) {
      std::size_t n = 0;
      for (const char* p = row.c_str(); *p;) {
        char* end = nullptr;
        weights.push_back(std::strtof(p, &end));
        ++n;
        p = *end == ',' ? end + 1 : end;
      }
      cols = n;
    }
    py::array_t<float> a({items.size(), cols});
    std::copy(weights.begin(), weights.end(), a.mutable_data());
    return a;
  }
  py::array_t<std::int32_t> a({items.size(), std::size_t{2}});
  auto links = a.mutable_unchecked<2>();
  for (std::size_t k = 0; k < items.size(); ++k) {
    const std::size_t dash = items[k].find('-');
    links(k, 0) = std::stoi(items[k].substr(0, dash));
    links(k, 1) = std::stoi(items[k].substr(dash + 1));
  }
  return a;
}

// Converts the C++ results, with the GIL held (it makes Python objects).
std::vector<Result> to_python(std::vector<Translator::Result>&& results, const Translator::Options& o) {
  const bool soft = o.alignment == "soft";
  std::vector<Result> out(results.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    Translator::Result& r = results[i];
    out[i].source = std::move(r.source);
    out[i].skipped = r.skipped;
    for (Translator::Hypothesis& h : r.nbest) {
      Hypothesis p;
      p.attention = matrix(h.attention, h.tokens.size());
      p.saliency = matrix(h.saliency, h.tokens.size());
      if (!o.alignment.empty()) p.alignment_array = alignment_array(h.alignment, soft);
      p.text = std::move(h.text);
      p.score = h.score;
      p.tokens = std::move(h.tokens);
      p.alignment = std::move(h.alignment);
      out[i].nbest.push_back(std::move(p));
    }
  }
  return out;
}

// The keyword arguments of translate(), defaults taken from Options so that they stay one.
Translator::Options options(int beam, int n_best, double alpha, double max_len_a, double max_len_b,
                            std::size_t batch_size, std::size_t threads, std::size_t max_input_tokens,
                            bool replace_unk, bool attention, bool saliency, const std::string& alignment,
                            bool alignment_words) {
  Translator::Options o;
  o.beam = beam;
  o.n_best = n_best;
  o.alpha = alpha;
  o.max_len_a = max_len_a;
  o.max_len_b = max_len_b;
  o.batch_size = batch_size;
  o.threads = threads;
  o.max_input_tokens = max_input_tokens;
  o.replace_unk = replace_unk;
  o.attention = attention;
  o.saliency = saliency;
  o.alignment = alignment;
  o.alignment_words = alignment_words;
  return o;
}

std::string quoted(const std::string& s) { return py::repr(py::str(s)).cast<std::string>(); }

}  // namespace

void bind_translator(py::module_& m) {
  py::class_<Hypothesis>(m, "Hypothesis", "One output of a sentence (Translator.translate)")
      .def_readonly("text", &Hypothesis::text, "the detokenised output")
      .def_readonly("score", &Hypothesis::score, "log-probability / length penalty")
      .def_readonly("tokens", &Hypothesis::tokens, "the output pieces ('</s>' last if emitted)")
      .def_readonly("attention", &Hypothesis::attention,
                    "float32 array len(tokens) x len(source), or None (attention=False)")
      .def_readonly("saliency", &Hypothesis::saliency,
                    "float32 array len(tokens) x len(source), or None (saliency=False; only the "
                    "best hypothesis has one)")
      .def_readonly("alignment", &Hypothesis::alignment, "the alignment's text ('' when not asked)")
      .def_readonly("alignment_array", &Hypothesis::alignment_array,
                    "hard or threshold: int32 (source, target) links, n x 2; soft: float32 "
                    "weights, outputs x sources; None when not asked")
      .def("__repr__", [](const Hypothesis& h) {
        return "Hypothesis(text=" + quoted(h.text) + ", score=" +
               py::repr(py::float_(h.score)).cast<std::string>() + ")";
      });
  py::class_<Result>(m, "Result", "A sentence's translation (Translator.translate)")
      .def_readonly("source", &Result::source, "the source pieces the encoder saw, '</s>' last")
      .def_readonly("nbest", &Result::nbest, "the hypotheses, best first; empty for an empty or skipped line")
      .def_readonly("skipped", &Result::skipped, "longer than max_input_tokens: not translated")
      .def_property_readonly("best", &Result::best, "the best hypothesis' text, '' when there is none")
      .def("__repr__", [](const Result& r) {
        return "Result(best=" + quoted(r.best()) + ", nbest=" + std::to_string(r.nbest.size()) +
               (r.skipped ? ", skipped=True)" : ")");
      });

  const Translator::Options d;
  // Lines in, results out; the GIL is released while heed decodes, so Python threads
  // translating with one Translator run at once (heed::Translator is thread-safe).
  auto translate = [](const Translator& t, const std::vector<std::string>& lines,
                      const Translator::Options& o) {
    std::vector<Translator::Result> results;
    {
      py::gil_scoped_release release;
      results = t.translate(lines, o);
    }
    return to_python(std::move(results), o);
  };
  py::class_<Translator>(m, "Translator",
                         "A trained model (or an ensemble) loaded once (heed::Translator)")
      .def_static("load", &Translator::load, py::arg("model_dir"), py::arg("weights") = "best",
                  py::call_guard<py::gil_scoped_release>(),
                  "Loads a model directory of `heed train`; weights: 'best', 'last' or a "
                  "weights file's path.")
      .def_static("load_ensemble", &Translator::load_ensemble, py::arg("model_dirs"),
                  py::call_guard<py::gil_scoped_release>(),
                  "Several model directories decoded as one ensemble.")
      .def(
          "translate",
          [translate](const Translator& t, const std::vector<std::string>& lines, int beam, int n_best,
                      double alpha, double max_len_a, double max_len_b, std::size_t batch_size,
                      std::size_t threads, std::size_t max_input_tokens, bool replace_unk,
                      bool attention, bool saliency, const std::string& alignment,
                      bool alignment_words) {
            return translate(t, lines,
                             options(beam, n_best, alpha, max_len_a, max_len_b, batch_size, threads,
                                     max_input_tokens, replace_unk, attention, saliency, alignment,
                                     alignment_words));
          },
          py::arg("lines"), py::kw_only(), py::arg("beam") = d.beam, py::arg("n_best") = d.n_best,
          py::arg("alpha") = d.alpha, py::arg("max_len_a") = d.max_len_a,
          py::arg("max_len_b") = d.max_len_b, py::arg("batch_size") = d.batch_size,
          py::arg("threads") = d.threads, py::arg("max_input_tokens") = d.max_input_tokens,
          py::arg("replace_unk") = d.replace_unk, py::arg("attention") = d.attention,
          py::arg("saliency") = d.saliency, py::arg("alignment") = d.alignment,
          py::arg("alignment_words") = d.alignment_words,
          "Translates a list of sentences: one Result each, in order. The keyword arguments are "
          "heed::Translator::Options (docs/API.md).")
      .def(
          "translate",
          [translate](const Translator& t, const std::string& line, int beam, int n_best,
                      double alpha, double max_len_a, double max_len_b, std::size_t batch_size,
                      std::size_t threads, std::size_t max_input_tokens, bool replace_unk,
                      bool attention, bool saliency, const std::string& alignment,
                      bool alignment_words) {
            return std::move(translate(t, {line},
                                       options(beam, n_best, alpha, max_len_a, max_len_b, batch_size,
                                               threads, max_input_tokens, replace_unk, attention,
                                               saliency, alignment, alignment_words))
                                 .front());
          },
          py::arg("line"), py::kw_only(), py::arg("beam") = d.beam, py::arg("n_best") = d.n_best,
          py::arg("alpha") = d.alpha, py::arg("max_len_a") = d.max_len_a,
          py::arg("max_len_b") = d.max_len_b, py::arg("batch_size") = d.batch_size,
          py::arg("threads") = d.threads, py::arg("max_input_tokens") = d.max_input_tokens,
          py::arg("replace_unk") = d.replace_unk, py::arg("attention") = d.attention,
          py::arg("saliency") = d.saliency, py::arg("alignment") = d.alignment,
          py::arg("alignment_words") = d.alignment_words,
          "Translates one sentence: its Result.")
      .def_property_readonly("has_attention", &Translator::has_attention,
                             "False for the no-attention model")
      .def_property_readonly("max_source_tokens", &Translator::max_source_tokens,
                             "the longest source every model takes; 0 = any");
}

}  // namespace heed::python
