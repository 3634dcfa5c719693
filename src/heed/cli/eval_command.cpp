#include "heed/cli/eval_command.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <string>
#include <vector>

#include "heed/base/atomic_file.h"
#include "heed/base/error.h"
#include "heed/cli/eval_image_sequences.h"
#include "heed/cli/eval_questions.h"
#include "heed/cli/attention_window_option.h"
#include "heed/cli/ctc_weight_option.h"
#include "heed/cli/eval_speech.h"
#include "heed/cli/validators.h"
#include "heed/data/image_classes.h"
#include "heed/kernels/gemm.h"
#include "heed/metrics/bootstrap.h"
#include "heed/models/image_classifier.h"
#include "heed/models/model_registry.h"
#include "heed/store/model_dir.h"
#include "heed/tensor/arena.h"

namespace heed::cli {
namespace {

std::string percent(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

// How the model looked: ram's locations and glimpses, or the whole image.
std::string how(const ModelConfig& mc, std::int64_t paths) {
  if (mc.kind != ModelKind::ram) return std::string(enum_name(mc.kind)) + ", the whole image";
  const std::string where = mc.ram.random_locations
                                ? (paths == 1 ? std::string("random locations")
                                              : std::to_string(paths) + " random paths averaged")
                            : paths == 1 ? std::string("the mean locations")
                                         : std::to_string(paths) + " sampled paths averaged";
  return where + ", " + std::to_string(mc.ram.glimpses) + " glimpses";
}

// An option that does not fit the model's kind, or one it needs and lacks: a bad command line
// (exit 2), found once the model directory's config says the kind.
void check_usage(bool ok, const std::string& message) {
  if (!ok) throw UsageError(message);
}

class EvalCommand : public Command {
 public:
  std::string name() const override { return "eval"; }
  std::string description() const override {
    return "Test error of an image classifier (model.kind ram, fc, cnn) with a 95% bootstrap "
           "interval, of an image2seq model, of a memory network on bAbI (memn2n), or of a "
           "speech model on a .tsv manifest (las)";
  }

  void setup(CLI::App& app) override {
    app.add_option("--model,-m", dirs_, "model directory written by heed train; las: repeat it "
                   "for an ensemble (averaged probabilities)")
        ->required()
        ->allow_extra_args(false);
    app.add_option("--images,-i", images_,
                   "gzipped IDX images (heed data images); required for the image kinds");
    app.add_option("--targets,-t", targets_,
                   "class name per image (default: <split>.tgt beside <split>-images-idx3-ubyte.gz)");
    app.add_option("--weights", weights_, "best, last or a .safetensors file")
        ->capture_default_str();
    app.add_option("--paths", paths_,
                   "test-time paths: 1 follows the mean locations, M > 1 averages M sampled paths "
                   "(default: the model's model.sample_paths)")
        ->check(int_range(1, 1000));
    app.add_option("--locations", locations_,
                   "write every image's glimpse locations as JSON lines to this file");
    app.add_option("--beam", beam_, "image2seq, las: beam size (1 = greedy decoding)")
        ->check(int_range(1, 1000))->capture_default_str();
    max_len_option_ = app.add_option("--max-len", max_len_, "image2seq: the most output words "
                   "per image (EOS included); las: symbols per utterance (default: 2 per "
                   "annotation + 10)")->check(int_range(1, 100000))->capture_default_str();
    app.add_option("--attention", attention_,
                   "image2seq: write every image's output and grid attention as JSON lines to "
                   "this file; memn2n: every question's answer and hops");
    app.add_option("--speech", speech_, "las: a .tsv manifest of WAV paths and transcripts "
                   "(heed data digits' test.tsv)");
    app.add_option("--output", output_, "las: write every utterance's reference and output as "
                   "JSON lines to this file");
    add_attention_window_option(app, window_, "listener frames (annotations), las only,");
    add_ctc_weight_option(app, ctc_weight_);
    app.add_option("--babi", babi_, "memn2n: the bAbI tasks' directory (default: the model's "
                   "data.babi.dir)");
    app.add_option("--split", split_, "memn2n: test, train, or dev (the share of the training "
                   "questions the model held out)")->capture_default_str();
    app.add_option("--tasks", tasks_, "memn2n: all, or a list such as 1,2,5-7 (default: the "
                   "model's data.babi.tasks)");
    app.add_option("--json", json_, "memn2n: write the table as JSON to this file");
    app.add_option("--batch", batch_, "images (memn2n: questions) per batch")->check(int_range(1, 1000000))
        ->capture_default_str();
    app.add_option("--seed", seed_, "seed of the sampled paths and of the bootstrap")
        ->capture_default_str();
    app.add_option("--bootstrap", samples_, "bootstrap resamples")->check(int_range(10, 1000000))
        ->capture_default_str();
    app.add_option("--threads", threads_, "threads (0 = the OpenMP default)")
        ->check(int_range(0, 4096));
  }

  int run() override {
    if (threads_ > 0) kernels::set_num_threads(static_cast<int>(threads_));
    const std::string& dir_ = dirs_.front();
    const ModelKind kind = load_model_config(dir_).model.kind;
    if (transcribes_speech(kind)) {
      check_usage(!speech_.empty(), "--speech is required for model.kind las: a .tsv manifest "
                  "of WAV paths and transcripts");
      check_usage(images_.empty() && targets_.empty() && locations_.empty() && paths_ == 0 &&
                      attention_.empty() && babi_.empty() && tasks_.empty() && json_.empty() &&
                      split_ == "test",
                  "a las model transcribes speech: give --speech, --beam, --max-len, --output; "
                  "the other options are for the image kinds and memn2n");
      check_usage(dirs_.size() == 1 || weights_ == "best" || weights_ == "last",
                  "--weights FILE names one model's weights; an ensemble (several --model) "
                  "takes --weights best or last for every member");
      SpeechEval o;
      for (const std::string& d : dirs_) o.models.push_back({d, weights_});
      o.manifest = speech_;
      o.output = output_;
      o.beam = beam_;
      o.window = window_;
      o.ctc_weight = ctc_weight_;
      check_usage(ctc_weight_ == 0 || beam_ >= 2,
                  "--ctc-weight re-ranks beam search's transcripts: give --beam 2 or more");
      o.max_len = max_len_option_->count() > 0 ? max_len_ : 0;
      o.samples = samples_;
      o.seed = seed_;
      return eval_speech(o);
    }
    check_usage(speech_.empty() && output_.empty() && window_.empty() && ctc_weight_ == 0,
                "--speech, --output, --attention-window and --ctc-weight are for model.kind las");
    check_usage(dirs_.size() == 1, "--model more than once (an ensemble) is for model.kind las");
    if (answers_questions(kind)) {
      check_usage(images_.empty() && targets_.empty() && locations_.empty() && paths_ == 0 &&
                      beam_ == 1,
                  "a memn2n model answers bAbI questions: give --babi, --split, --tasks, --json, "
                  "--attention; --images, --targets, --paths, --locations and --beam are for "
                  "the image kinds");
      QuestionEval o;
      o.model_dir = dir_;
      o.weights = weights_;
      o.babi = babi_;
      o.split = split_;
      o.tasks = tasks_;
      o.json = json_;
      o.attention = attention_;
      o.batch = batch_;
      return eval_questions(o);
    }
    check_usage(babi_.empty() && tasks_.empty() && json_.empty() && split_ == "test",
                "--babi, --split, --tasks and --json are for model.kind memn2n");
    check_usage(!images_.empty(), "--images is required: the test images (a gzipped IDX file "
                "of heed data images)");
    const std::string targets = targets_.empty() ? default_targets_path(images_) : targets_;
    if (is_image_to_sequence(load_model_config(dir_).model.kind)) {
      check_usage(locations_.empty() && paths_ == 0, "--locations and --paths are for "
                  "model.kind ram; an image2seq model takes --beam, --max-len and --attention");
      ImageSequenceEval o;
      o.model_dir = dir_;
      o.weights = weights_;
      o.images = images_;
      o.targets = targets;
      o.attention = attention_;
      o.beam = beam_;
      o.max_len = max_len_;
      o.batch = batch_;
      o.samples = samples_;
      o.seed = seed_;
      check_images_file();
      return eval_image_sequences(o);
    }
    check_usage(attention_.empty() && beam_ == 1, "--beam and --attention are for model.kind "
                "image2seq; an image classifier takes --paths and --locations");
    LoadedImageModel m = load_image_model_dir(dir_, weights_);
    check_images_file();
    const ClassifiedImages set = read_classified_images(images_, targets, m.classes);
    const std::int64_t paths = paths_ > 0 ? paths_ : m.config.model.ram.sample_paths;
    const std::int64_t C = m.model->classes(), N = set.images.count;
    HEED_CHECK(N > 0, images_, ": holds no images");

    std::vector<std::int32_t> predicted(static_cast<std::size_t>(N));
    std::string jsonl;
    Rng rng(seed_);
    Arena arena;
    for (std::int64_t start = 0; start < N; start += batch_) {
      const std::int64_t end = std::min(N, start + batch_);
      std::vector<std::size_t> members(static_cast<std::size_t>(end - start));
      std::iota(members.begin(), members.end(), static_cast<std::size_t>(start));
      {
        ArenaScope scope(&arena);
        const ClassPrediction p = m.model->predict(
            Var(classifier_images(set.images, members, m.config.training.dtype)), paths, rng);
        const std::vector<double> probs = p.probabilities.to_vector();
        std::vector<std::vector<double>> where;
        if (!locations_.empty())
          for (const auto& path : p.paths) {
            where.emplace_back();
            for (const Tensor& l : path) {
              const std::vector<double> v = l.to_vector();
              where.back().insert(where.back().end(), v.begin(), v.end());
            }
          }
        for (std::size_t b = 0; b < members.size(); ++b) {
          const double* row = probs.data() + static_cast<std::ptrdiff_t>(b) * C;
          const auto guess = static_cast<std::int32_t>(std::max_element(row, row + C) - row);
          const std::size_t i = members[b];
          predicted[i] = guess;
          if (locations_.empty()) continue;
          nlohmann::json j;
          j["image"] = i;
          j["label"] = m.classes.token(set.labels[i]);
          j["predicted"] = m.classes.token(guess + Vocabulary::kSpecials);
          j["correct"] = guess + Vocabulary::kSpecials == set.labels[i];
          // What the prediction came from: per class, in the model's order (for comparing
          // with another implementation, e.g. tools/interop_roundtrip.py with PyTorch's).
          j["probabilities"] = std::vector<double>(row, row + C);
          nlohmann::json all = nlohmann::json::array();
          const std::size_t T = p.paths.empty() ? 0 : p.paths.front().size();
          for (const auto& w : where) {
            nlohmann::json path = nlohmann::json::array();
            for (std::size_t t = 0; t < T; ++t)
              path.push_back({w[(t * members.size() + b) * 2], w[(t * members.size() + b) * 2 + 1]});
            all.push_back(path);
          }
          j["paths"] = all;
          jsonl += j.dump() + "\n";
        }
      }
      arena.reset();
    }
    if (!locations_.empty()) write_file_atomically(locations_, jsonl);

    // The error with its bootstrap interval: one row (wrong, 1) per image.
    metrics::StatsTable table("error", 2, [](std::span<const double> s) {
      return s[1] > 0 ? 100.0 * s[0] / s[1] : 0.0;
    });
    std::vector<std::int64_t> right(static_cast<std::size_t>(C), 0), count(right.size(), 0);
    for (std::int64_t i = 0; i < N; ++i) {
      const std::int32_t y = set.labels[static_cast<std::size_t>(i)] - Vocabulary::kSpecials;
      const bool ok = predicted[static_cast<std::size_t>(i)] == y;
      const double row[2] = {ok ? 0.0 : 1.0, 1.0};
      table.add_row(row);
      ++count[static_cast<std::size_t>(y)];
      right[static_cast<std::size_t>(y)] += ok;
    }
    const metrics::ConfidenceInterval ci =
        metrics::bootstrap_ci(table, static_cast<std::size_t>(samples_), seed_);
    std::cout << "test error " << percent(ci.score) << "% (95% bootstrap interval "
              << percent(ci.lower) << "-" << percent(ci.upper) << "%, " << ci.samples
              << " resamples) on " << N << " images of " << set.images.rows << "x"
              << set.images.cols << "; " << how(m.config.model, paths) << "\n";
    std::size_t width = 5;
    for (std::int64_t c = 0; c < C; ++c)
      width = std::max(width, m.classes.token(static_cast<std::int32_t>(c) + Vocabulary::kSpecials).size());
    std::printf("%-*s %8s %9s\n", static_cast<int>(width), "class", "images", "accuracy");
    std::fflush(stdout);
    for (std::int64_t c = 0; c < C; ++c) {
      const auto k = static_cast<std::size_t>(c);
      const std::string name = m.classes.token(static_cast<std::int32_t>(c) + Vocabulary::kSpecials);
      std::printf("%-*s %8lld %8s%%\n", static_cast<int>(width), name.c_str(),
                  static_cast<long long>(count[k]),
                  count[k] ? percent(100.0 * static_cast<double>(right[k]) /
                                     static_cast<double>(count[k])).c_str()
                           : "-");
    }
    std::fflush(stdout);
    if (!locations_.empty()) std::cout << "glimpse locations: " << locations_ << "\n";
    return 0;
  }

 private:
  // The images are named before their targets are read: a missing --images would otherwise
  // be reported as a problem with the targets file beside it.
  void check_images_file() const {
    std::error_code ec;
    HEED_CHECK(std::filesystem::is_regular_file(images_, ec), images_,
               std::filesystem::is_directory(images_, ec)
                   ? ": is a directory; --images names a gzipped IDX file (heed data images)"
                   : ": no such file (--images: gzipped IDX images, as heed data images writes)");
  }

  std::vector<std::string> dirs_;
  std::string images_, targets_, weights_ = "best", locations_, attention_, speech_, output_,
      window_;
  CLI::Option* max_len_option_ = nullptr;
  std::string babi_, split_ = "test", tasks_, json_;
  double ctc_weight_ = 0.0;
  std::int64_t paths_ = 0, batch_ = 256, samples_ = 1000, threads_ = 0, beam_ = 1, max_len_ = 20;
  std::uint64_t seed_ = 1234;
};

}  // namespace

std::unique_ptr<Command> make_eval_command() { return std::make_unique<EvalCommand>(); }

}  // namespace heed::cli
