#include "heed/cli/data_command.h"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>

#include "heed/base/enum_names.h"
#include "heed/base/error.h"
#include "heed/cli/data_aeslc.h"
#include "heed/cli/data_digits.h"
#include "heed/cli/data_images.h"
#include "heed/cli/enum_option.h"
#include "heed/data/g2p_split.h"
#include "heed/data/pronunciation_dictionary.h"

namespace heed::cli {
namespace {

// --stress: what to do with CMUdict's stress digits.
enum class Stress { keep, strip };
inline constexpr EnumName<Stress> kStressNames[] = {{Stress::keep, "keep"}, {Stress::strip, "strip"}};
constexpr std::span<const EnumName<Stress>> enum_names(Stress) { return kStressNames; }

void print_read(const std::string& what, const PronunciationDictionary& d,
                const DictionaryOptions& o) {
  const DictionaryStats& s = d.stats;
  // Words, pronunciations and words with several side by side, so that a file read in
  // the wrong form (variants glued into one pronunciation, say) shows at once.
  std::cout << "read " << what << ": " << d.words.size() << " words, " << d.pronunciations()
            << " pronunciations, " << d.words_with_several() << " words with several (from "
            << s.entries << " entry lines)\n";
  std::cout << "  dropped " << s.not_letters << " entry lines"
            << (o.letters_only ? " of words with characters other than letters and apostrophes"
                               : " (no --letters-only)")
            << "; merged " << s.duplicates << " repeated pronunciations"
            << (o.strip_stress ? " (identical once stress is stripped)" : "") << "; skipped "
            << s.skipped << " blank and comment lines\n";
}

void print_part(const char* name, const std::vector<WordPronunciations>& words,
                const std::string& dir) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "  %-5s %8zu words %8zu pronunciations  ", name, words.size(),
                count_pronunciations(words));
  const auto base = (std::filesystem::path(dir) / name).string();
  std::cout << buf << base << ".src, " << base << ".tgt\n";
}

class DataCommand : public Command {
 public:
  std::string name() const override { return "data"; }
  std::string description() const override {
    return "Prepare data: `data g2p` splits a pronunciation dictionary (CMUdict or yours) by "
           "word; `data images` generates image sets from Fashion-MNIST; `data aeslc` reads "
           "the email subject line corpus; `data digits` makes connected-digit utterances from "
           "the Free Spoken Digit Dataset";
  }

  void setup(CLI::App& app) override {
    app.require_subcommand(1);
    g2p_ = app.add_subcommand("g2p", "Train/dev/test files for grapheme-to-phoneme from a "
                                     "pronunciation dictionary, split by word");
    CLI::App& g = *g2p_;
    auto* cmudict = g.add_flag("--cmudict", use_cmudict_,
                               "the CMU Pronouncing Dictionary as tools/setup.sh installs it");
    auto* cmudict_path =
        g.add_option("--cmudict-path", cmudict_path_,
                     "the exported CMUdict text (default: $HEED_CMUDICT, else " +
                         std::string(kCmudictDefaultPath) + ")");
    auto* dict = g.add_option("--dict", dict_,
                              "a pronunciation dictionary: WORD<TAB>PRON1<TAB>PRON2... or "
                              "WORD  PHONES lines")
                     ->check(CLI::ExistingFile);
    auto* train = g.add_option("--train", train_, "an existing training dictionary (with --test)")
                      ->check(CLI::ExistingFile);
    auto* test = g.add_option("--test", test_, "an existing test dictionary (with --train)")
                     ->check(CLI::ExistingFile);
    cmudict_path->needs(cmudict);
    train->needs(test);
    test->needs(train);
    cmudict->excludes(dict)->excludes(train);
    dict->excludes(train);
    g.add_option("--out,-o", out_, "output directory (created if missing)")->required();
    g.add_option("--seed", options_.seed, "seed of the word shuffle")->capture_default_str();
    add_enum_option(g, "--stress", stress_, "strip drops stress digits (AH0 -> AH)");
    g.add_flag("--letters-only", letters_only_,
               "keep only words of letters and apostrophes (the usual CMUdict G2P benchmark)");
    g.add_option("--dev-fraction", options_.dev_fraction, "share of words for dev")
        ->capture_default_str();
    g.add_option("--test-fraction", options_.test_fraction,
                 "share of words for test (not with --train/--test)")
        ->capture_default_str();
    g.footer(
        "Source: exactly one of --cmudict, --dict FILE, or --train FILE --test FILE.\n"
        "Dictionary lines: WORD<TAB>PRON1<TAB>PRON2... (TABs between pronunciations, spaces\n"
        "between phones) or WORD  PHONES (spaces only, one pronunciation; repeat the word or\n"
        "write WORD(2) for variants).\n"
        "Writes train.src/train.tgt (a line per word and pronunciation) and dev/test .src/.tgt\n"
        "(a line per word, all its pronunciations tab-separated in .tgt). Words are lowercased.");
    images_.setup(app);
    aeslc_.setup(app);
    digits_.setup(app);
  }

  int run() override {
    if (images_.parsed()) return images_.run();
    if (aeslc_.parsed()) return aeslc_.run();
    if (digits_.parsed()) return digits_.run();
    if (!g2p_->parsed()) return 2;
    HEED_CHECK(use_cmudict_ + !dict_.empty() + !train_.empty() == 1,
               "give exactly one source: --cmudict, --dict FILE, or --train FILE --test FILE");
    DictionaryOptions dopt;
    dopt.strip_stress = stress_ == Stress::strip;
    dopt.letters_only = letters_only_;
    G2pSplit split;
    if (!train_.empty()) {
      HEED_CHECK(g2p_->count("--test-fraction") == 0,
                 "--test-fraction does not apply to --train/--test (the test file is the test set)");
      PronunciationDictionary tr = read_nonempty(train_, train_, dopt);
      PronunciationDictionary te = read_nonempty(test_, test_, dopt);
      split = split_existing(std::move(tr.words), std::move(te.words), options_);
      std::cout << "  removed " << split.overlap_removed
                << " training words that are also in the test file\n";
      std::cout << "dev carved from train by word, seed " << options_.seed << ", dev fraction "
                << options_.dev_fraction << ":\n";
    } else {
      std::string path = dict_;
      std::string what = dict_;
      if (use_cmudict_) {
        path = cmudict_path_.empty() ? default_cmudict_path() : cmudict_path_;
        HEED_CHECK(std::filesystem::exists(path), path,
                   ": the CMU Pronouncing Dictionary is not installed there; run tools/setup.sh "
                   "(it installs the npm package cmu-pronouncing-dictionary@",
                   kCmudictVersion, " and exports it), or give --cmudict-path FILE");
        what = "CMUdict (" + path + ")";
      }
      PronunciationDictionary d = read_nonempty(path, what, dopt);
      split = split_by_word(std::move(d.words), options_);
      std::cout << "split by word, seed " << options_.seed << ", dev fraction "
                << options_.dev_fraction << ", test fraction " << options_.test_fraction << ":\n";
    }
    // A dictionary too small for the fractions asked would leave dev or test empty, and a
    // training config pointing at them would fail later with a less clear message.
    const bool carved_test = train_.empty();
    HEED_CHECK((split.dev.size() > 0 || options_.dev_fraction <= 0) &&
                   (split.test.size() > 0 || options_.test_fraction <= 0 || !carved_test),
               "the split leaves ", split.train.size(), " words for train, ", split.dev.size(),
               " for dev and ", split.test.size(), " for test (dev fraction ",
               options_.dev_fraction,
               carved_test ? detail::concat(", test fraction ", options_.test_fraction) : "",
               "): the dictionary is too small; give a larger one or raise the fractions "
               "(0 for no dev or test set)");
    write_g2p_split(split, out_);
    print_part("train", split.train, out_);
    print_part("dev", split.dev, out_);
    print_part("test", split.test, out_);
    return 0;
  }

 private:
  static PronunciationDictionary read_nonempty(const std::string& path, const std::string& what,
                                               const DictionaryOptions& o) {
    PronunciationDictionary d = read_pronunciation_dictionary(path, o);
    print_read(what, d, o);
    HEED_CHECK(!d.words.empty(), path, ": no entries left to use",
               o.letters_only ? " (all dropped by --letters-only)" : "");
    return d;
  }

  CLI::App* g2p_ = nullptr;
  bool use_cmudict_ = false, letters_only_ = false;
  std::string cmudict_path_, dict_, train_, test_, out_;
  Stress stress_ = Stress::keep;
  G2pSplitOptions options_;
  DataImages images_;
  DataAeslc aeslc_;
  DataDigits digits_;
};

}  // namespace

std::unique_ptr<Command> make_data_command() { return std::make_unique<DataCommand>(); }

}  // namespace heed::cli
