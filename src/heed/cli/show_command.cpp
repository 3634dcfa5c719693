#include "heed/cli/show_command.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "heed/base/error.h"
#include "heed/cli/model_options.h"
#include "heed/cli/show_options.h"
#include "heed/cli/show_view.h"
#include "heed/cli/stdin_lines.h"
#include "heed/cli/validators.h"
#include "heed/data/text_file.h"
#include "heed/models/model_config.h"
#include "heed/store/model_dir.h"

namespace heed::cli {
namespace {

namespace fs = std::filesystem;

// The option that gives a form's items.
const char* option_of(ShowInput input) {
  return input == ShowInput::images ? "--images" : input == ShowInput::audio ? "--audio" : "--input";
}

// A model drawn from the other form's items than those given: the message says which. A
// memory network reads --input too, as bAbI text: it is no text model, and is named as such.
UsageError other_input(const std::string& dir, ModelKind kind, ShowInput wanted,
                       ShowInput given) {
  const bool stories = answers_questions(kind);
  const std::string holds = dir + " holds " +
                            (wanted == ShowInput::images  ? "an image model"
                             : wanted == ShowInput::audio ? "a speech model"
                             : stories                    ? "a memory network"
                                                          : "a text model") +
                            " (model.kind " + std::string(enum_name(kind)) + "): give ";
  const std::string not_given = std::string(", not ") + option_of(given);
  if (wanted == ShowInput::images) return UsageError(holds + "--images FILE" + not_given);
  if (wanted == ShowInput::audio)
    return UsageError(holds + "--audio FILE... (WAV files or speech manifests)" + not_given);
  return UsageError(holds + "--input FILE" +
                    (stories ? " (bAbI stories with their questions)" : "") + not_given + " (heed show " +
                    option_of(given) + " draws the " +
                    (given == ShowInput::images ? "image models: " : "speech models: ") +
                    kinds_shown_from(given) + ")");
}

// Parses the options, reads the model directory's config and hands over to the view of the
// model's family (show_view.h), after the checks of the form given (--input or --images).
class ShowCommand : public Command {
 public:
  std::string name() const override { return "show"; }
  std::string description() const override {
    return "Show what a model attends to: for a text model, sentence by sentence, attention and "
           "saliency maps side by side (SVG and PNG) and an HTML report with the n-best lists; "
           "for an image model (ram), where each glimpse looked, image by image (SVG and PNG), "
           "and a gallery page; for a speech model (las), each WAV file's spectrogram with "
           "each symbol's attention beneath it, and a report page";
  }

  void setup(CLI::App& app) override {
    add_model_options(app, options_.model);
    add_attention_options(app, options_.model);
    auto* input = app.add_option("--input,-i", options_.input,
                                 "text model: input file, one sentence per line; - reads stdin");
    auto* images = app.add_option("--images", options_.images,
                                  "image model (model.kind ram, fc, cnn, image2seq): gzipped "
                                  "IDX images (heed data images); draws the first "
                                  "--max-images of them");
    auto* audio = app.add_option("--audio", options_.audio,
                                 "speech model (model.kind las): WAV files (any rate, mixed down "
                                 "to mono) or speech manifests (.tsv: path TAB transcript)");
    input->excludes(images);
    audio->excludes(input);
    audio->excludes(images);
    app.add_option("--out,-o", options_.out,
                   "directory for the pictures and report.html (text, audio) or gallery.html "
                   "(images); created if missing")
        ->required();
    // The text form.
    const std::vector<CLI::Option*> text = {
        app.add_option("--beam,-k", options_.beam,
                       "text and audio: beam width; 1 = greedy decoding")
            ->capture_default_str()
            ->check(int_range(1, 1000)),
        app.add_option("--nbest,-n", options_.nbest,
                       "text: hypotheses listed per sentence, at most --beam (default: --beam, at "
                       "most 10)")
            ->check(int_range(1, 1000)),
        app.add_option("--max-sentences", options_.max_sentences,
                       "text: only the first N lines of the input (0: all)")
            ->capture_default_str()
            ->check(int_range(0, 100000000)),
        app.add_flag("--coverage", options_.coverage,
                     "text: draw each source token's coverage (its attention summed over the "
                     "output) under the attention map, for any model; a model with "
                     "model.coverage has it drawn anyway"),
        app.add_option("--batch-size,-b", options_.batch_size,
                       "text and audio: sentences (utterances) per batch")
            ->capture_default_str()
            ->check(int_range(1, 100000))};
    // The image form, named as in heed eval.
    const std::vector<CLI::Option*> image = {
        app.add_option("--targets,-t", options_.targets,
                       "images: class name per image (default: <split>.tgt beside "
                       "<split>-images-idx3-ubyte.gz)"),
        app.add_option("--max-images", options_.max_images, "images: draw the first N images")
            ->capture_default_str()
            ->check(int_range(1, 100000)),
        app.add_option("--paths", options_.paths,
                       "images: test-time paths: 1 follows the mean locations, M > 1 averages M "
                       "sampled paths and draws the first in full, the others faintly (default: "
                       "the model's model.sample_paths)")
            ->check(int_range(1, 1000)),
        app.add_option("--seed", options_.seed, "images: seed of the sampled paths")
            ->capture_default_str()};
    app.add_flag("--no-saliency", options_.no_saliency,
                 "skip the saliency maps (text: one backward pass per output token; images: the "
                 "pixel saliency of a recurrent attention model beside its glimpses)");
    for (CLI::Option* o : text) o->excludes(images);
    for (CLI::Option* o : image) o->excludes(input);
    for (CLI::Option* o : image) o->excludes(audio);
    for (std::size_t i = 1; i + 1 < text.size(); ++i) text[i]->excludes(audio);  // --nbest, --max-sentences
    app.add_option("--png-scale", options_.png_scale, "PNG pixels per SVG pixel")
        ->capture_default_str()
        ->check(real_range(0.25, 8));
    app.footer(
        "Text (--input): writes OUT/sentence-NNNN.svg and .png for input line NNNN (1-based):\n"
        "the best output's attention map (rows: output tokens, columns: source tokens) and its\n"
        "saliency map side by side; and OUT/report.html, one file with every line, its n-best\n"
        "list with scores and both maps. A model without attention gets the saliency map alone.\n"
        "Images (--images, model.kind ram, fc, cnn, image2seq): writes OUT/image-NNNN.svg and\n"
        ".png for image NNNN (0-based, as heed eval --locations counts): the image with each\n"
        "glimpse's squares, numbered, the path joining them, the label and the prediction, and beside it\n"
        "OUT/image-NNNN-saliency.svg and .png, the pixel saliency of the predicted class; for\n"
        "model.kind fc and cnn the saliency picture is image-NNNN itself; image2seq: each word's\n"
        "attention over the grid. OUT/gallery.html: every picture with its label and prediction\n"
        "and the error over them.\n"
        "Audio (--audio, model.kind las): writes OUT/utterance-NNNN.svg and .png for utterance\n"
        "NNNN (1-based, in the order given, a manifest's lines in its place): the log-mel\n"
        "spectrogram and beneath it, on the same time axis, each emitted symbol's attention\n"
        "over the listener's annotations, each drawn over the frames it covers; and\n"
        "OUT/report.html with every transcript (and a manifest's reference beside it).\n"
        "Exit codes: 0 done, 1 runtime error, 2 bad command line.");
  }

  int run() override {
    const ShowOptions& o = options_;
    if (o.input.empty() && o.images.empty() && o.audio.empty())
      throw UsageError(
          "give --input FILE (a text model's sentences, a memory network's bAbI stories), "
          "--images FILE (an image model's images) or --audio FILE... (a speech model's WAV "
          "files)");
    if (fs::exists(o.out) && !fs::is_directory(o.out))
      throw UsageError("--out " + o.out + ": is a file; --out names a directory to write into");
    const ShowInput given = !o.images.empty()  ? ShowInput::images
                            : !o.audio.empty() ? ShowInput::audio
                                               : ShowInput::sentences;
    std::vector<std::string> sentences;
    if (given == ShowInput::sentences) {
      check_sentence_options();
      sentences = read_sentences();
    } else if (given == ShowInput::images) {
      check_image_options();
    } else {
      check_audio_options();
    }
    const std::string& dir = o.model.dirs.front();
    const TrainConfig config = load_model_config(dir);
    const ModelKind kind = config.model.kind;
    const ShowView& view = show_view(kind);
    if (view.input != given) throw other_input(dir, kind, view.input, given);
    view.show(o, config, sentences);
    return 0;
  }

 private:
  void check_sentence_options() const {
    const ShowOptions& o = options_;
    if (o.nbest > o.beam)
      throw UsageError(detail::concat("--nbest ", o.nbest, " is larger than --beam ", o.beam,
                                      "; a beam of k keeps at most k hypotheses"));
    if (o.input != "-" && !fs::exists(o.input))
      throw UsageError("--input " + o.input + ": no such file");
    if (o.input != "-" && fs::is_directory(o.input))
      throw UsageError("--input " + o.input + ": is a directory, expected a file");
    if (o.model.specs().size() > 1 && !o.no_saliency)
      throw UsageError("saliency maps need a single model; give one --model, or --no-saliency");
  }

  // --input's lines (the first --max-sentences), read before the model so that a bad input is
  // named first; heed::Error when no line holds a sentence.
  std::vector<std::string> read_sentences() const {
    const ShowOptions& o = options_;
    std::vector<std::string> lines = o.input == "-" ? read_stdin_lines() : read_lines(o.input);
    if (o.max_sentences > 0 && lines.size() > static_cast<std::size_t>(o.max_sentences))
      lines.resize(static_cast<std::size_t>(o.max_sentences));
    HEED_CHECK(std::any_of(lines.begin(), lines.end(),
                           [](const std::string& l) {
                             return l.find_first_not_of(" \t") != std::string::npos;
                           }),
               o.input_name(), ": no sentence to show (",
               lines.empty() ? "no lines" : "every line is blank", ")");
    return lines;
  }

  void check_image_options() const {
    const ShowOptions& o = options_;
    if (!fs::exists(o.images)) throw UsageError("--images " + o.images + ": no such file");
    if (fs::is_directory(o.images))
      throw UsageError("--images " + o.images + ": is a directory, expected a file");
    if (!o.targets.empty() && !fs::exists(o.targets))
      throw UsageError("--targets " + o.targets + ": no such file");
    if (o.model.dirs.size() != 1 || o.model.weights.size() > 1)
      throw UsageError("--images draws one model: give one --model (and at most one --weights)");
  }

  void check_audio_options() const {
    const ShowOptions& o = options_;
    for (const std::string& a : o.audio) {
      if (!fs::exists(a)) throw UsageError("--audio " + a + ": no such file");
      if (fs::is_directory(a))
        throw UsageError("--audio " + a + ": is a directory, expected a WAV file or a manifest");
    }
    if (o.model.dirs.size() != 1 || o.model.weights.size() > 1)
      throw UsageError("--audio draws one model: give one --model (and at most one --weights)");
  }

  ShowOptions options_;
};

}  // namespace

std::unique_ptr<Command> make_show_command() { return std::make_unique<ShowCommand>(); }

}  // namespace heed::cli
