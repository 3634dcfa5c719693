// heed bench: the protocol's analytic FLOP terms against the reference's numbers, the
// synthetic data rules, and the command's JSON lines on a tiny run.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "heed/base/error.h"
#include "heed/cli/bench_command.h"
#include "heed/measure/memn2n_bench.h"
#include "heed/measure/protocol.h"
#include "support/bf16.h"

namespace heed {
namespace {

using Json = nlohmann::json;

// Runs `heed bench <args>` in process and returns its standard output.
std::string run_bench_command(const std::string& args) {
  auto cmd = cli::make_bench_command();
  CLI::App app{"bench"};
  cmd->setup(app);
  app.parse(args, false);
  std::ostringstream captured;
  std::streambuf* old = std::cout.rdbuf(captured.rdbuf());
  try {
    cmd->run();
  } catch (...) {
    std::cout.rdbuf(old);
    throw;
  }
  std::cout.rdbuf(old);
  return captured.str();
}

std::vector<Json> json_lines(const std::string& text) {
  std::vector<Json> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out.push_back(Json::parse(line));  // throws if not JSON
  return out;
}

TEST(BenchProtocol, FlopTermsMatchTheReference) {
  // bench.py's flop_terms for each config (printed by the reference).
  struct Expected {
    const char* name;
    std::int64_t src, sent, tgt, pair;
  };
  for (const Expected& e : {Expected{"g2p", 1441792, 131072, 2007040, 1536},
                            Expected{"mt", 1835008, 131072, 6324224, 1536},
                            Expected{"luong", 2228224, 0, 6979584, 1024},
                            Expected{"noattn", 1572864, 131072, 6193152, 0}}) {
    const measure::FlopTerms t = measure::flop_terms(measure::bench_config(e.name));
    EXPECT_EQ(t.per_src_token, e.src) << e.name;
    EXPECT_EQ(t.per_sentence, e.sent) << e.name;
    EXPECT_EQ(t.per_tgt_step, e.tgt) << e.name;
    EXPECT_EQ(t.per_tgt_step_per_src_token, e.pair) << e.name;
  }
}

// heed's own config: per layer 2 (4 d^2 + 2 d F) for the projections and the feed-forward
// network, the encoder-decoder attention's 2 d^2 per step and 2 d^2 per source token, and
// 2 (2 d) per step and source token; d 256, F 1024, 2 layers each side, V 80.
TEST(BenchProtocol, TransformerFlopTerms) {
  const measure::FlopTerms t = measure::flop_terms(measure::bench_config("transformer"));
  EXPECT_EQ(t.per_src_token, 2 * 1572864 + 2 * 262144);
  EXPECT_EQ(t.per_sentence, 0);
  EXPECT_EQ(t.per_tgt_step, 2 * (1572864 + 262144) + 2 * 256 * 80);
  EXPECT_EQ(t.per_tgt_step_per_src_token, 2 * 2 * 2 * 256);
  const ModelConfig m = measure::model_config(measure::bench_config("transformer"));
  EXPECT_EQ(m.kind, ModelKind::transformer);
  EXPECT_EQ(m.transformer.d_model, 256);
  EXPECT_EQ(m.enc_layers, 2);
}

TEST(BenchProtocol, FlopSums) {
  const measure::FlopTerms t{10, 100, 1000, 1};
  const std::vector<std::int64_t> sl{2, 3}, tl{4, 5};
  // (10*2 + 100 + 1000*4 + 2*4) + (10*3 + 100 + 1000*5 + 3*5)
  EXPECT_DOUBLE_EQ(measure::fwd_flops(t, sl, tl), 4128.0 + 5145.0);
  // per sentence: 10 m + 100 + rows * steps * (1000 + m)
  EXPECT_DOUBLE_EQ(measure::decode_fwd_flops(t, sl, 30, 5),
                   (20 + 100 + 150 * 1002.0) + (30 + 100 + 150 * 1003.0));
}

TEST(BenchProtocol, SyntheticBatchesFollowTheRules) {
  const auto batches = measure::make_batches(3, 16, 6, 12, 32, 80, 1234);
  ASSERT_EQ(batches.size(), 3u);
  for (const auto& b : batches) {
    ASSERT_EQ(b.src.batch, 16);
    std::int64_t longest_src = 0, longest_tgt = 0;
    for (std::int64_t r = 0; r < 16; ++r) {
      const std::int64_t m = b.src.lengths[r], n = b.tgt_in.lengths[r];
      EXPECT_GE(m, 6);
      EXPECT_LE(m, 12);
      EXPECT_GE(n, 6);
      EXPECT_LE(n, 12);
      longest_src = std::max(longest_src, m);
      longest_tgt = std::max(longest_tgt, n);
      for (std::int64_t j = 0; j < b.src.len; ++j) {
        const std::int32_t x = b.src.ids[r * b.src.len + j];
        if (j < m) {
          EXPECT_GE(x, 3);
          EXPECT_LT(x, 32);
        } else {
          EXPECT_EQ(x, kPad);
        }
      }
      const std::int32_t* out = b.tgt_out.data() + r * b.tgt_in.len;
      const std::int32_t* in = b.tgt_in.ids.data() + r * b.tgt_in.len;
      EXPECT_EQ(in[0], kBos);
      for (std::int64_t j = 0; j < b.tgt_in.len; ++j) {
        if (j < n - 1) {
          EXPECT_GE(out[j], 3);
          EXPECT_LT(out[j], 80);
        } else if (j == n - 1) {
          EXPECT_EQ(out[j], kEos);  // the target length counts the EOS
        } else {
          EXPECT_EQ(out[j], kPad);
          EXPECT_EQ(in[j], kPad);
        }
        if (j >= 1 && j < n) {
          EXPECT_EQ(in[j], out[j - 1]);
        }
      }
    }
    EXPECT_EQ(b.src.len, longest_src);  // each batch padded to its own longest
    EXPECT_EQ(b.tgt_in.len, longest_tgt);
  }
  // Same seed, same data.
  EXPECT_EQ(measure::make_batches(3, 16, 6, 12, 32, 80, 1234)[2].src.ids, batches[2].src.ids);
}

TEST(BenchProtocol, UnknownConfigThrows) {
  EXPECT_THROW(measure::bench_config("gpt"), Error);
  EXPECT_THROW(run_bench_command("--config gpt"), Error);
  EXPECT_THROW(run_bench_command("--config g2p --only train,sample"), Error);
  EXPECT_THROW(run_bench_command("--config g2p --steps 0"), Error);
}

TEST(BenchCommand, TrainPrintsInfoAndTrainLines) {
  const auto lines = json_lines(
      run_bench_command("--config g2p --steps 1 --warmup 0 --only train --threads 1 --tag t1"));
  ASSERT_EQ(lines.size(), 2u);
  const Json& info = lines[0];
  EXPECT_EQ(info.at("measure"), "info");
  EXPECT_EQ(info.at("config"), "g2p");
  EXPECT_EQ(info.at("tag"), "t1");
  EXPECT_EQ(info.at("threads"), 1);
  EXPECT_EQ(info.at("params"), 1810000);  // the reference's parameter count
  EXPECT_EQ(info.at("train_flops_per_tgt_token_at_mean_len"), 10431659);
  EXPECT_EQ(info.at("flop_terms_fwd").at("per_tgt_step"), 2007040);

  const Json& train = lines[1];
  EXPECT_EQ(train.at("measure"), "train");
  EXPECT_EQ(train.at("config"), "g2p");
  EXPECT_EQ(train.at("steps"), 1);
  for (const char* key :
       {"seconds", "tgt_tok_per_s", "src_tgt_tok_per_s", "ms_per_step_median", "ms_per_step_mean",
        "achieved_gflop_per_s", "train_gflop", "peak_rss_mb"}) {
    ASSERT_TRUE(train.contains(key)) << key;
    EXPECT_GT(train.at(key).get<double>(), 0.0) << key;
  }
  EXPECT_GE(train.at("tgt_tokens").get<int>(), 64 * 6);
  EXPECT_LE(train.at("tgt_tokens").get<int>(), 64 * 12);
  EXPECT_GE(train.at("padded_tgt_positions").get<int>(), train.at("tgt_tokens").get<int>());
  // An untrained model over 80 classes: the loss is near log(80) = 4.38.
  EXPECT_NEAR(train.at("loss_last").get<double>(), std::log(80.0), 0.5);
  EXPECT_TRUE(train.at("loss_first_warmup").is_null());  // no warm-up step ran
}

TEST(BenchCommand, DecodeLines) {
  const auto lines = json_lines(run_bench_command(
      "--config g2p --only greedy,beam --threads 1 --batch 4 --decode-sents 8 --beam-sents 4 "
      "--decode-steps 3 --beam 2"));
  ASSERT_EQ(lines.size(), 3u);
  const Json& greedy = lines[1];
  EXPECT_EQ(greedy.at("measure"), "greedy");
  EXPECT_EQ(greedy.at("sentences"), 8);
  EXPECT_EQ(greedy.at("steps_per_sentence"), 3);
  EXPECT_GT(greedy.at("sent_per_s").get<double>(), 0.0);
  EXPECT_GT(greedy.at("peak_rss_mb").get<double>(), 0.0);
  ASSERT_EQ(greedy.at("attention_shape").size(), 3u);
  EXPECT_EQ(greedy.at("attention_shape")[0], 4);
  EXPECT_EQ(greedy.at("attention_shape")[1], 3);
  const Json& beam = lines[2];
  EXPECT_EQ(beam.at("measure"), "beam");
  EXPECT_EQ(beam.at("sentences"), 4);
  EXPECT_EQ(beam.at("beam"), 2);
  EXPECT_GT(beam.at("sent_per_s").get<double>(), 0.0);
  ASSERT_EQ(beam.at("attention_shape").size(), 4u);
  EXPECT_EQ(beam.at("attention_shape")[2], 3);
}

TEST(BenchCommand, Bf16LinesSayTheirPrecisionAndTrainTheSameModel) {
  HEED_SKIP_WITHOUT_BF16();
  const auto fp32 = json_lines(run_bench_command(
      "--config g2p --steps 2 --warmup 0 --only train,greedy --threads 1 --batch 4 "
      "--decode-sents 4 --decode-steps 2"));
  const auto bf16 = json_lines(run_bench_command(
      "--config g2p --steps 2 --warmup 0 --only train,greedy --threads 1 --batch 4 "
      "--decode-sents 4 --decode-steps 2 --precision bf16"));
  ASSERT_EQ(fp32.size(), 3u);
  ASSERT_EQ(bf16.size(), 3u);
  for (std::size_t i : {1u, 2u}) {
    EXPECT_EQ(fp32[i].at("precision"), "fp32");
    EXPECT_EQ(bf16[i].at("precision"), "bf16");
  }
  // bf16 products move the loss a little, not a lot.
  const double a = fp32[1].at("loss_last").get<double>(), b = bf16[1].at("loss_last").get<double>();
  EXPECT_NEAR(a, b, 0.05);
  // A precision heed does not have is a usage error, naming the choices.
  EXPECT_THROW(run_bench_command("--config g2p --precision fp16"), CLI::ValidationError);
  EXPECT_THROW(run_bench_command("--config g2p --only train,beams"), Error);
}

TEST(BenchCommand, Int8DecodesInt8AndTrainsAsFp32) {
  const std::string common =
      "--config g2p --steps 2 --warmup 0 --only train,greedy,beam --threads 1 --batch 4 "
      "--decode-sents 4 --decode-steps 2";
  const auto fp32 = json_lines(run_bench_command(common));
  const auto int8 = json_lines(run_bench_command(common + " --precision int8"));
  ASSERT_EQ(int8.size(), 4u);
  for (std::size_t i : {1u, 2u, 3u}) EXPECT_EQ(int8[i].at("precision"), "int8");
  // Training stays fp32: the same loss, bit for bit.
  EXPECT_EQ(fp32[1].at("loss_last").get<double>(), int8[1].at("loss_last").get<double>());
  EXPECT_THROW(run_bench_command("--config memn2n --precision int8 --threads 1"), Error);
  EXPECT_THROW(run_bench_command("--config ram --precision int8 --threads 1"), Error);
}

TEST(BenchCommand, NoAttentionHasNoAttentionShape) {
  const auto lines = json_lines(run_bench_command(
      "--config noattn --only greedy --threads 1 --batch 2 --decode-sents 2 --decode-steps 2"));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_TRUE(lines[1].at("attention_shape").is_null());
}

TEST(BenchCommand, TransformerTrainsAndDecodes) {
  const auto lines = json_lines(run_bench_command(
      "--config transformer --steps 2 --warmup 0 --threads 1 --batch 4 --decode-sents 4 "
      "--beam-sents 2 --beam 2 --decode-steps 3"));
  ASSERT_EQ(lines.size(), 4u);  // info, train, greedy, beam
  EXPECT_EQ(lines[0].at("config"), "transformer");
  EXPECT_GT(lines[1].at("tgt_tok_per_s").get<double>(), 0.0);
  EXPECT_FALSE(lines[2].at("attention_shape").is_null());
}

// --dropout: training with the models' dropout, as real recipes train (not the protocol); the
// lines say so. Only the text configs take it, and only a probability below 1.
TEST(BenchCommand, DropoutTrainsWithItAndSaysSo) {
  const auto lines = json_lines(run_bench_command(
      "--config transformer --only train --steps 2 --warmup 0 --threads 2 --batch 8 "
      "--dropout 0.3"));
  ASSERT_EQ(lines.size(), 2u);  // info, train
  EXPECT_EQ(lines[1].at("dropout").get<double>(), 0.3);
  EXPECT_TRUE(std::isfinite(lines[1].at("loss_last").get<double>()));
  const auto plain = json_lines(
      run_bench_command("--config g2p --only train --steps 1 --warmup 0 --threads 1 --batch 4"));
  EXPECT_FALSE(plain[1].contains("dropout"));
  EXPECT_THROW(run_bench_command("--config transformer --only train --dropout 1"),
               CLI::ValidationError);
  try {
    run_bench_command("--config ram --only train --steps 1 --dropout 0.1");
    ADD_FAILURE() << "config ram took --dropout";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--dropout is for the text configs"), std::string::npos)
        << e.what();
  }
}

// --config ram: the recurrent attention model's images per second (measure/ram_bench.h), in the
// lines tools/torch_ram.py prints too and bench/compare reads.
TEST(BenchCommand, RamPrintsInfoTrainAndInferLines) {
  const auto lines = json_lines(run_bench_command(
      "--config ram --steps 2 --warmup 1 --threads 1 --batch 4 --decode-sents 8 --tag r1"));
  ASSERT_EQ(lines.size(), 3u);
  const Json& info = lines[0];
  EXPECT_EQ(info.at("measure"), "info");
  EXPECT_EQ(info.at("config"), "ram");
  EXPECT_EQ(info.at("tag"), "r1");
  EXPECT_EQ(info.at("params"), 226061);  // the paper's sizes, as tools/torch_ram.py counts them
  EXPECT_EQ(info.at("config_detail").at("glimpses"), 6);
  const Json& train = lines[1];
  EXPECT_EQ(train.at("measure"), "train");
  EXPECT_EQ(train.at("images"), 8);
  for (const char* key : {"seconds", "images_per_s", "ms_per_step_median", "forward_ms_median",
                          "backward_ms_median", "peak_rss_mb"}) {
    ASSERT_TRUE(train.contains(key)) << key;
    EXPECT_GT(train.at(key).get<double>(), 0.0) << key;
  }
  EXPECT_NEAR(train.at("loss_last").get<double>(), std::log(10.0), 1.0);  // untrained, 10 classes
  const Json& infer = lines[2];
  EXPECT_EQ(infer.at("measure"), "infer");
  EXPECT_EQ(infer.at("images"), 8);
  EXPECT_GT(infer.at("images_per_s").get<double>(), 0.0);
  // --only picks the measurements; the text configs have no infer, ram no greedy or beam.
  EXPECT_EQ(json_lines(run_bench_command("--config ram --only infer --threads 1 --batch 2 "
                                         "--decode-sents 2")).size(), 2u);
  EXPECT_EQ(json_lines(run_bench_command("--config ram --only greedy --threads 1")).size(), 1u);
}

// --config memn2n: the end-to-end memory network's questions per second
// (measure/memn2n_bench.h), in the lines tools/torch_memn2n.py prints too and bench/compare reads.
// The keys of each JSON line of text, in the order printed.
std::vector<std::vector<std::string>> keys_in_order(const std::string& text) {
  std::vector<std::vector<std::string>> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    out.emplace_back();
    const nlohmann::ordered_json j = nlohmann::ordered_json::parse(line);
    for (const auto& [key, value] : j.items()) out.back().push_back(key);
  }
  return out;
}

TEST(BenchCommand, Memn2nPrintsInfoTrainAndInferLines) {
  const std::string text = run_bench_command(
      "--config memn2n --steps 2 --warmup 1 --threads 1 --batch 32 --decode-sents 64 --tag m1");
  const auto lines = json_lines(text);
  const auto keys = keys_in_order(text);
  ASSERT_EQ(lines.size(), 3u);
  const Json& info = lines[0];
  EXPECT_EQ(info.at("measure"), "info");
  EXPECT_EQ(info.at("config"), "memn2n");
  EXPECT_EQ(info.at("model"), "memn2n");
  EXPECT_EQ(info.at("tag"), "m1");
  EXPECT_EQ(info.at("batch"), 32);
  // 4 tables (180, 50) and 4 temporal tables (50, 50), as tools/torch_memn2n.py counts them.
  EXPECT_EQ(info.at("params"), 46000);
  EXPECT_EQ(info.at("config_detail").at("hops"), 3);
  EXPECT_EQ(info.at("step_threads"), 1);  // 32 x 50 x 180: too small a product for threads
  const Json& train = lines[1];
  EXPECT_EQ(train.at("measure"), "train");
  EXPECT_EQ(train.at("precision"), "fp32");
  EXPECT_EQ(train.at("optimizer"), "sgd");
  EXPECT_EQ(train.at("steps"), 2);
  EXPECT_EQ(train.at("batch"), 32);
  EXPECT_EQ(train.at("questions"), 64);
  // Every field of the reference's train line, in its order.
  EXPECT_EQ(keys[1], (std::vector<std::string>{
                      "config", "threads", "heed", "tag", "measure", "precision", "optimizer",
                      "steps", "batch", "questions", "seconds", "questions_per_s",
                      "ms_per_step_mean", "ms_per_step_median", "loss_last", "forward_ms_median",
                      "backward_ms_median", "update_ms_median", "peak_rss_mb"}));
  // Steps of 32 questions take a good part of a millisecond: none of these rounds to 0.
  for (const char* key : {"questions_per_s", "ms_per_step_median", "forward_ms_median",
                          "backward_ms_median", "peak_rss_mb"}) {
    EXPECT_GT(train.at(key).get<double>(), 0.0) << key;
  }
  // Untrained (tables N(0, 0.1^2)): close to the uniform guess over 180 words.
  EXPECT_NEAR(train.at("loss_last").get<double>(), std::log(180.0), 0.5);
  const Json& infer = lines[2];
  EXPECT_EQ(infer.at("measure"), "infer");
  EXPECT_EQ(infer.at("questions"), 64);  // 2 batches of 32
  EXPECT_EQ(infer.at("batch"), 32);
  EXPECT_GT(infer.at("questions_per_s").get<double>(), 0.0);
  EXPECT_EQ(keys[2], (std::vector<std::string>{"config", "threads", "heed", "tag", "measure",
                                            "precision", "questions", "batch", "seconds",
                                            "questions_per_s", "peak_rss_mb"}));
}

// --config las: listen, attend and spell in utterances per second (measure/las_bench.h), in the
// lines tools/torch_las.py prints too and bench/compare reads.
TEST(BenchCommand, LasPrintsInfoTrainAndInferLines) {
  const std::string text = run_bench_command(
      "--config las --steps 2 --warmup 1 --threads 1 --batch 4 --decode-sents 8 "
      "--decode-steps 3 --tag l1");
  const auto lines = json_lines(text);
  const auto keys = keys_in_order(text);
  ASSERT_EQ(lines.size(), 3u);
  const Json& info = lines[0];
  EXPECT_EQ(info.at("config"), "las");
  EXPECT_EQ(info.at("model"), "las");
  EXPECT_EQ(info.at("tag"), "l1");
  // examples/digits' model, as tools/torch_las.py counts it (and heed serve's /info of it).
  EXPECT_EQ(info.at("params"), 897230);
  EXPECT_EQ(info.at("config_detail").at("pyramid"), 4);
  const Json& train = lines[1];
  EXPECT_EQ(train.at("measure"), "train");
  EXPECT_EQ(train.at("utterances"), 8);
  EXPECT_EQ(keys[1], (std::vector<std::string>{
                      "config", "threads", "heed", "tag", "measure", "precision", "steps",
                      "batch", "utterances", "seconds", "utterances_per_s", "audio_s_per_s",
                      "ms_per_step_mean", "ms_per_step_median", "loss_last", "forward_ms_median",
                      "backward_ms_median", "update_ms_median", "peak_rss_mb"}));
  // 4 utterances of 1..7 words: 4 x 17..150 stacked frames of 30 ms a step.
  const double audio_per_step = train.at("audio_s_per_s").get<double>() *
                                train.at("seconds").get<double>() / 2;
  EXPECT_GE(audio_per_step, 4 * 17 * 0.03 - 0.1);
  EXPECT_LE(audio_per_step, 4 * 150 * 0.03 + 0.1);
  // Untrained: close to the uniform guess over 14 symbols.
  EXPECT_NEAR(train.at("loss_last").get<double>(), std::log(14.0), 0.5);
  const Json& infer = lines[2];
  EXPECT_EQ(infer.at("measure"), "infer");
  EXPECT_EQ(infer.at("utterances"), 8);  // 2 batches of 4
  EXPECT_EQ(infer.at("decode_steps"), 3);
  EXPECT_GT(infer.at("utterances_per_s").get<double>(), 0.0);
  EXPECT_EQ(keys[2], (std::vector<std::string>{"config", "threads", "heed", "tag", "measure",
                                            "precision", "utterances", "batch", "decode_steps",
                                            "seconds", "utterances_per_s", "audio_s_per_s",
                                            "peak_rss_mb"}));
}

TEST(BenchCommand, Memn2nTakesSgdOrAdamAndNothingElse) {
  const auto adam = json_lines(run_bench_command(
      "--config memn2n --only train --optimizer adam --steps 1 --warmup 0 --threads 1 --batch 2"));
  ASSERT_EQ(adam.size(), 2u);
  EXPECT_EQ(adam[1].at("optimizer"), "adam");
  EXPECT_EQ(json_lines(run_bench_command("--config memn2n --only infer --threads 1 --batch 2 "
                                         "--decode-sents 2")).size(), 2u);
  EXPECT_EQ(json_lines(run_bench_command("--config memn2n --only greedy --threads 1")).size(), 1u);
  // adamw is heed train's, not the protocol's; the other configs train with Adam only.
  EXPECT_THROW(run_bench_command("--config memn2n --optimizer adamw --threads 1"), Error);
  EXPECT_THROW(run_bench_command("--config g2p,memn2n --optimizer sgd --threads 1"), Error);
  EXPECT_THROW(run_bench_command("--config memn2n --optimizer rmsprop"), CLI::ValidationError);
  // Other sizes, as examples/babi/config.yaml's d = 100 and 4 hops: five tables (180, 100) and
  // five temporal tables (50, 100), as tools/torch_memn2n.py counts them; memn2n's options only.
  const auto sized = json_lines(run_bench_command(
      "--config memn2n --only train --memn2n-dim 100 --memn2n-hops 4 --steps 1 --warmup 0 "
      "--threads 1 --batch 2"));
  ASSERT_EQ(sized.size(), 2u);
  EXPECT_EQ(sized[0].at("config_detail").at("dim"), 100);
  EXPECT_EQ(sized[0].at("config_detail").at("hops"), 4);
  EXPECT_EQ(sized[0].at("params"), 5 * 180 * 100 + 5 * 50 * 100);
  EXPECT_THROW(run_bench_command("--config g2p --memn2n-hops 4 --threads 1"), Error);
  EXPECT_THROW(run_bench_command("--config memn2n --memn2n-hops 0"), CLI::ValidationError);
  // The memory network trains in fp32 only, as heed train's memn2n.
  EXPECT_THROW(run_bench_command("--config memn2n --precision bf16 --threads 1"), Error);
}

TEST(BenchProtocol, Memn2nQuestionsFollowTheReferenceDistribution) {
  Rng rng(5);
  const auto questions = measure::memn2n_bench_questions(4000, rng);
  ASSERT_EQ(questions.size(), 4000u);
  double statements = 0;
  std::int64_t shortest = 100, longest = 0;
  for (const EncodedQuestion& q : questions) {
    const auto n = static_cast<std::int64_t>(q.story.size());
    shortest = std::min(shortest, n);
    longest = std::max(longest, n);
    statements += static_cast<double>(n);
    for (const auto& s : q.story) {
      ASSERT_GE(s.size(), 3u);
      ASSERT_LE(s.size(), 10u);
      for (std::int32_t w : s) ASSERT_TRUE(w >= 4 && w <= 179) << w;
    }
    ASSERT_GE(q.question.size(), 3u);
    ASSERT_LE(q.question.size(), 6u);
    for (std::int32_t w : q.question) ASSERT_TRUE(w >= 4 && w <= 179) << w;
    ASSERT_TRUE(q.answer >= 4 && q.answer <= 179) << q.answer;
  }
  EXPECT_EQ(shortest, 2);
  EXPECT_GE(longest, 41);  // P(the least of three draws > 40) = (10/49)^3: 34 expected in 4,000
  // The least of three draws uniform in 2..50: E = 2 + sum_{k=1}^{48} ((49 - k) / 49)^3
  // = 13.76; the mean of 4,000 questions (sd about 9.7) lies within 0.6 of it.
  EXPECT_NEAR(statements / 4000.0, 13.76, 0.6);
}

}  // namespace
}  // namespace heed
