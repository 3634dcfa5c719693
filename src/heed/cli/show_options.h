#pragma once
// The options of `heed show` (docs/cli/show.md) as the command parsed them; each view reads
// those of its form (--input, --images or --audio) and the shared ones.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "heed/cli/model_options.h"

namespace heed::cli {

struct ShowOptions {
  ModelFlags model;
  std::string input;    // a text model's sentences, one per line ("-": stdin); empty with --images
  std::string images;   // gzipped IDX images; empty with --input
  std::vector<std::string> audio;  // WAV files and speech manifests (.tsv); empty otherwise
  std::string targets;  // the images' labels (empty: <split>.tgt beside the images)
  std::string out;      // the directory written into
  // --input (--beam and --batch-size also with --audio)
  std::int64_t beam = 5, nbest = 0, max_sentences = 0;
  std::size_t batch_size = 32;
  // --images
  std::int64_t max_images = 16, paths = 0;
  std::uint64_t seed = 1234;
  // both
  double png_scale = 2.0;
  bool no_saliency = false;
  bool coverage = false;  // text: the coverage strip for any model (a coverage model always)

  // --input as messages and the report name it.
  std::string input_name() const { return input == "-" ? "<stdin>" : input; }
};

}  // namespace heed::cli
