// heed.Trainer: `heed train` from Python (heed::Trainer). train() runs with the GIL released
// and takes it back for each call of the progress callback, which may end the run early by
// returning False (the state is saved, as for a stop request, so a later train() resumes).
// Ctrl-C in the callback's thread raises KeyboardInterrupt out of train() at the next step.
#include <heed/trainer.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <functional>
#include <iostream>
#include <stop_token>
#include <string>
#include <vector>

#include "bindings.h"

namespace heed::python {

namespace py = pybind11;

void bind_trainer(py::module_& m) {
  using Progress = Trainer::Progress;
  py::class_<Progress>(m, "Progress", "One training step, as the progress callback sees it")
      .def_readonly("step", &Progress::step, "steps done, this one included")
      .def_readonly("total_steps", &Progress::total_steps, "planned steps; 0 = unknown")
      .def_readonly("epoch", &Progress::epoch, "0-based")
      .def_readonly("loss", &Progress::loss, "this step's training loss per target token")
      .def_readonly("learning_rate", &Progress::learning_rate)
      .def_readonly("seconds", &Progress::seconds, "wall time of the run so far")
      .def_readonly("validated", &Progress::validated, "the dev set was scored after this step")
      .def_readonly("dev_score", &Progress::dev_score, "that score (training.metric)")
      .def_readonly("new_best", &Progress::new_best, "and it was the best so far")
      .def("__repr__", [](const Progress& p) {
        return "Progress(step=" + std::to_string(p.step) + ", total_steps=" +
               std::to_string(p.total_steps) + ", loss=" +
               py::repr(py::float_(p.loss)).cast<std::string>() + ")";
      });
  py::enum_<Trainer::Outcome>(m, "Outcome", "How a run ended")
      .value("finished", Trainer::Outcome::finished)
      .value("early_stopped", Trainer::Outcome::early_stopped)
      .value("stopped", Trainer::Outcome::stopped);
  using TrainResult = Trainer::Result;
  py::class_<TrainResult>(m, "TrainResult", "What Trainer.train returns")
      .def_readonly("outcome", &TrainResult::outcome)
      .def_readonly("step", &TrainResult::step, "steps done in all")
      .def_readonly("has_best", &TrainResult::has_best, "a dev score was recorded")
      .def_readonly("best_score", &TrainResult::best_score)
      .def_readonly("best_step", &TrainResult::best_step)
      .def_readonly("model_dir", &TrainResult::model_dir, "the directory written");

  py::class_<Trainer>(m, "Trainer", "A training run from a config (heed::Trainer, docs/CONFIG.md)")
      .def_static("from_file", &Trainer::from_file, py::arg("path"),
                  py::arg("overrides") = std::vector<std::string>{},
                  "A config file with 'key=value' overrides (as `heed train --set`).")
      .def_static("from_yaml", &Trainer::from_yaml, py::arg("yaml"),
                  py::arg("overrides") = std::vector<std::string>{}, py::arg("source") = "<yaml>",
                  "A config as YAML text; source names it in messages.")
      .def_property_readonly("config_yaml", &Trainer::config_yaml,
                             "the complete configuration, every key written")
      .def_property_readonly("model_dir", &Trainer::model_dir)
      .def(
          "train",
          [](Trainer& t, const py::object& on_progress, bool log) {
            t.set_log(log ? &std::cerr : nullptr);
            std::stop_source stop;
            std::function<void(const Progress&)> report;
            if (!on_progress.is_none()) {
              report = [&](const Progress& p) {
                py::gil_scoped_acquire gil;
                if (PyErr_CheckSignals() != 0) throw py::error_already_set();
                if (on_progress(p).is(py::bool_(false))) stop.request_stop();
              };
            } else {
              report = [](const Progress&) {
                py::gil_scoped_acquire gil;
                if (PyErr_CheckSignals() != 0) throw py::error_already_set();
              };
            }
            py::gil_scoped_release release;
            return t.train(report, stop.get_token());
          },
          py::arg("on_progress") = py::none(), py::kw_only(), py::arg("log") = false,
          "Trains, writing the config's output directory (resuming it when it holds a state). "
          "on_progress(Progress) runs after every step; returning False stops the run with its "
          "state saved. log=True writes heed train's progress lines to stderr.");
}

}  // namespace heed::python
