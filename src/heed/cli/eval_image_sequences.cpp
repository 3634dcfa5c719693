#include "heed/cli/eval_image_sequences.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <vector>

#include "heed/base/atomic_file.h"
#include "heed/base/error.h"
#include "heed/data/image_sequences.h"
#include "heed/metrics/bootstrap.h"
#include "heed/models/image_classifier.h"
#include "heed/tensor/arena.h"
#include "heed/translate/image_decoding.h"

namespace heed::cli {
namespace {

std::string join(const std::vector<std::string>& words) {
  std::string s;
  for (const std::string& w : words) s += (s.empty() ? "" : " ") + w;
  return s;
}

}  // namespace

int eval_image_sequences(const ImageSequenceEval& o) {
  const LoadedModel m = load_image_sequence_model_dir(o.model_dir, o.weights);
  const ImageSequences set = read_image_sequences(o.images, o.targets, m.tgt_vocab);
  const std::int64_t N = set.images.count;
  HEED_CHECK(N > 0, o.images, ": holds no images");
  DecodeOptions dopt;
  dopt.beam = o.beam;
  dopt.max_len = o.max_len;

  std::vector<bool> correct(static_cast<std::size_t>(N));
  std::string jsonl;
  std::int64_t gh = 0, gw = 0;
  Arena arena;
  for (std::int64_t start = 0; start < N; start += o.batch) {
    const std::int64_t end = std::min(N, start + o.batch);
    std::vector<std::size_t> members(static_cast<std::size_t>(end - start));
    std::iota(members.begin(), members.end(), static_cast<std::size_t>(start));
    {
      ArenaScope scope(&arena);
      const Tensor pixels = classifier_images(set.images, members, m.config.training.dtype);
      const std::vector<DecodedImage> out = decode_images(*m.model, m.tgt_vocab, pixels, dopt);
      for (std::size_t b = 0; b < members.size(); ++b) {
        const std::size_t i = members[b];
        const DecodedImage& d = out[b];
        gh = d.grid_rows;
        gw = d.grid_cols;
        correct[i] = d.tokens == set.targets[i];  // the names, then EOS
        if (o.attention.empty()) continue;
        nlohmann::ordered_json j;  // the keys in the documented order
        j["image"] = i;
        j["target"] = join(set.names[i]);
        j["output"] = join(d.words);
        j["correct"] = static_cast<bool>(correct[i]);
        j["grid"] = {d.grid_rows, d.grid_cols};
        j["attention"] = d.attention;
        jsonl += j.dump() + "\n";
      }
    }
    arena.reset();
  }
  if (!o.attention.empty()) write_file_atomically(o.attention, jsonl);

  // Sequence accuracy with its bootstrap interval: one row (correct, 1) per image.
  metrics::StatsTable table("sequence accuracy", 2, [](std::span<const double> s) {
    return s[1] > 0 ? 100.0 * s[0] / s[1] : 0.0;
  });
  std::map<std::size_t, std::pair<std::int64_t, std::int64_t>> by_items;  // items -> right, count
  for (std::int64_t i = 0; i < N; ++i) {
    const auto k = static_cast<std::size_t>(i);
    const double row[2] = {correct[k] ? 1.0 : 0.0, 1.0};
    table.add_row(row);
    auto& [right, count] = by_items[set.names[k].size()];
    right += correct[k];
    ++count;
  }
  const metrics::ConfidenceInterval ci =
      metrics::bootstrap_ci(table, static_cast<std::size_t>(o.samples), o.seed);
  const AttentionMode mode = m.config.model.attention_mode;
  const std::string how =
      (o.beam > 1 ? "beam " + std::to_string(o.beam) : std::string("greedy")) + ", " +
      (mode == AttentionMode::none ? std::string("no attention (the mean annotation)")
                                   : std::string(enum_name(mode)) + " attention") +
      " over a " + std::to_string(gh) + "x" + std::to_string(gw) + " grid";
  std::printf("sequence accuracy %.2f%% (95%% bootstrap interval %.2f-%.2f%%, %zu resamples) on "
              "%lld images of %lldx%lld; %s\n",
              ci.score, ci.lower, ci.upper, ci.samples, static_cast<long long>(N),
              static_cast<long long>(set.images.rows), static_cast<long long>(set.images.cols),
              how.c_str());
  std::printf("%5s %8s %9s\n", "items", "images", "accuracy");
  for (const auto& [items, rc] : by_items)
    std::printf("%5zu %8lld %8.2f%%\n", items, static_cast<long long>(rc.second),
                100.0 * static_cast<double>(rc.first) / static_cast<double>(rc.second));
  std::fflush(stdout);
  if (!o.attention.empty()) std::cout << "attention: " << o.attention << "\n";
  return 0;
}

}  // namespace heed::cli
