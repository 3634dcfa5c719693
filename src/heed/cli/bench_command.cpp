#include "heed/cli/bench_command.h"

#include <CLI/CLI.hpp>

#include <iostream>
#include <sstream>
#include <string>

#include "heed/base/error.h"
#include "heed/base/enum_names.h"
#include "heed/cli/enum_option.h"
#include "heed/cli/validators.h"
#include "heed/measure/protocol.h"

namespace heed::cli {
namespace {

// What --only may name.
enum class Measurement { train, greedy, beam, infer };
inline constexpr EnumName<Measurement> kMeasurementNames[] = {{Measurement::train, "train"},
                                                              {Measurement::greedy, "greedy"},
                                                              {Measurement::beam, "beam"},
                                                              {Measurement::infer, "infer"}};
constexpr std::span<const EnumName<Measurement>> enum_names(Measurement) {
  return kMeasurementNames;
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

class BenchCommand : public Command {
 public:
  std::string name() const override { return "bench"; }
  std::string description() const override {
    return "Time training, greedy decoding and beam search on synthetic data (the reference "
           "protocol); one JSON line per measurement";
  }

  void setup(CLI::App& app) override {
    app.add_option("--config", config_,
                   "g2p | mt | luong | noattn | transformer | ram | memn2n | las | all (= g2p,mt,luong); "
                   "comma list ok")
        ->capture_default_str();
    app.add_option("--threads", opt_.threads, "threads for BLAS and heed's loops")
        ->capture_default_str();
    app.add_option("--steps", opt_.steps, "timed training steps (>= 20 for the protocol)")
        ->capture_default_str();
    app.add_option("--warmup", opt_.warmup, "untimed training steps first")->capture_default_str();
    app.add_option("--only", only_,
                   "comma list of train, greedy, beam (text configs), infer (ram, memn2n, las)")
        ->capture_default_str();
    app.add_option("--tag", opt_.tag, "free text copied into every line (e.g. a run id)");
    // The protocol's fixed sizes, as the reference's options (for quick runs and tests).
    app.add_option("--batch", opt_.batch,
                   "sentences (ram: images, memn2n: questions, las: utterances) per batch")
        ->capture_default_str();
    app.add_option("--decode-sents", opt_.decode_sents,
                   "greedy: timed sentences; infer: images (ram), questions (memn2n), utterances (las)")
        ->capture_default_str();
    app.add_option("--beam-sents", opt_.beam_sents, "beam: timed sentences")->capture_default_str();
    app.add_option("--decode-steps", opt_.decode_steps, "decoder steps per sentence (forced; las: symbols per utterance)")
        ->capture_default_str();
    app.add_option("--beam", opt_.beam, "beam width")->capture_default_str();
    app.add_option("--seed", opt_.seed, "data and initialisation seed")->capture_default_str();
    app.add_option("--location-filters", opt_.location_filters,
                   "text configs: location-aware attention with this many filters "
                   "(model.location_filters; 0 = off)")
        ->capture_default_str()
        ->check(int_range(0, 1000));
    app.add_option("--location-width", opt_.location_width,
                   "text configs: the location filters' width, odd (model.location_width)")
        ->capture_default_str()
        ->check(int_range(1, 1001));
    app.add_option("--shortlist", opt_.shortlist,
                   "text configs: decode with a vocabulary shortlist of this many target ids per "
                   "batch (the specials and random others; 0 = none)")
        ->capture_default_str()
        ->check(int_range(0, 1000000));
    app.add_option("--dropout", opt_.dropout,
                   "text configs: train with this dropout (model.dropout; the protocol's is 0)")
        ->capture_default_str()
        ->check(real_range(0, 0.99));
    app.add_flag("--coverage", opt_.coverage,
                 "text configs: the coverage vector in the attention score (model.coverage)");
    add_enum_option(app, "--precision", opt_.precision,
                    "the products (training: bf16 products, fp32 weights and optimiser; int8: "
                    "decoding's products with the weights, training stays fp32)");
    optimizer_option_ = add_enum_option(app, "--optimizer", optimizer_,
                    "config memn2n's training (the others train with Adam)");
    memn2n_dim_option_ = app.add_option("--memn2n-dim", memn2n_dim_,
                                        "config memn2n: d, the embedding size (default the "
                                        "paper's 50; examples/babi/config.yaml has 100)")
                             ->check(int_range(1, 4096));
    memn2n_hops_option_ = app.add_option("--memn2n-hops", memn2n_hops_,
                                         "config memn2n: K, the hops (default 3; "
                                         "examples/babi/config.yaml has 4)")
                              ->check(int_range(1, 16));
    app.footer(
        "Output: an \"info\" line per config (parameters, analytic FLOP terms), then one line per\n"
        "measurement: train (tgt_tok_per_s, src_tgt_tok_per_s, ms_per_step_median, loss_last,\n"
        "achieved_gflop_per_s, ...), greedy and beam (sent_per_s, ...), each with peak_rss_mb;\n"
        "config ram: train and infer (images_per_s, ...); config memn2n: train and infer\n"
        "(questions_per_s, ...); config las: train and infer (utterances_per_s, audio_s_per_s,\n"
        "...).");
  }

  int run() override {
    opt_.configs = split_commas(config_);
    HEED_CHECK(!opt_.configs.empty(), "--config is empty");
    opt_.train = opt_.greedy = opt_.beam_search = opt_.infer = false;
    for (const auto& m : split_commas(only_)) {
      switch (parse_enum<Measurement>(m, "--only")) {
        case Measurement::train: opt_.train = true; break;
        case Measurement::greedy: opt_.greedy = true; break;
        case Measurement::beam: opt_.beam_search = true; break;
        case Measurement::infer: opt_.infer = true; break;
      }
    }
    HEED_CHECK(opt_.train || opt_.greedy || opt_.beam_search || opt_.infer,
               "--only names no measurement");
    if (optimizer_option_->count() > 0) opt_.optimizer = optimizer_;
    if (memn2n_dim_option_->count() > 0) opt_.memn2n_dim = memn2n_dim_;
    if (memn2n_hops_option_->count() > 0) opt_.memn2n_hops = memn2n_hops_;
    measure::run_bench(opt_, std::cout);
    return 0;
  }

 private:
  measure::BenchOptions opt_;
  std::string config_ = "all";
  std::string only_ = "train,greedy,beam,infer";
  OptimizerKind optimizer_ = OptimizerKind::sgd;  // named in --help as the default
  CLI::Option* optimizer_option_ = nullptr;
  std::int64_t memn2n_dim_ = measure::kMemn2nBenchDim, memn2n_hops_ = measure::kMemn2nBenchHops;
  CLI::Option* memn2n_dim_option_ = nullptr;
  CLI::Option* memn2n_hops_option_ = nullptr;
};

}  // namespace

std::unique_ptr<Command> make_bench_command() { return std::make_unique<BenchCommand>(); }

}  // namespace heed::cli
