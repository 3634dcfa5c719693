#pragma once
// What a speech model attends to (docs/cli/show.md#speech): the utterance's
// log-mel spectrogram (time on x, mel bins on y, low bins at the bottom, in magma) and beneath
// it, on the same time axis, one row per emitted symbol with its attention over the listener's
// annotations. The pyramidal listener (model.kind las) gives one annotation per
// frames_per_annotation log-mel frames (pyramid x frame stacking), so each weight is drawn over
// the frames its annotation covers (the last annotation over what is left). Each row is
// divided by its own largest weight (or by twice the even share when that is larger, as the
// grid attention pictures do) and coloured in viridis; the symbol stands left of its row, the
// largest weight right of it, seconds under the rows.
//
// Drawn once with cairo onto an SVG or a PNG surface, as the other attention pictures.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace heed::viz {

struct SpectrogramAttentionPicture {
  std::int64_t frames = 0, mels = 0;
  std::vector<float> log_mel;                 // frames * mels, frame t's bins at t * mels
  double seconds_per_frame = 0.01;            // the hop: frame t is centred on t * this
  std::int64_t frames_per_annotation = 1;     // pyramid x stack
  std::vector<std::string> symbols;           // emitted symbols in order (EOS included)
  std::vector<std::vector<float>> attention;  // per symbol, one weight per annotation
  std::string title;
};

// The listener's annotations over frames frames: ceil(frames / frames_per_annotation).
std::int64_t annotations_over(std::int64_t frames, std::int64_t frames_per_annotation);

// One row's weights spread over the frames: frame t gets the weight of annotation
// t / frames_per_annotation. Throws heed::Error unless row has annotations_over(frames, ...)
// weights.
std::vector<float> attention_per_frame(const std::vector<float>& row, std::int64_t frames,
                                       std::int64_t frames_per_annotation);

// The spectrogram's colours, mels rows (the highest bin first) x frames columns: magma of the
// log energy between the utterance's loudest value less kDynamicRange and that value.
inline constexpr double kDynamicRange = 16.0;  // natural-log units: about 70 dB
std::vector<float> spectrogram_levels(const SpectrogramAttentionPicture& p);  // in [0, 1]

// Throws heed::Error for no frames or bins, a log_mel that is not frames * mels finite values,
// frames_per_annotation below 1, a number of attention rows other than the number of symbols,
// a row whose length is not annotations_over(frames, frames_per_annotation), or a weight that
// is negative or not finite.
void check_spectrogram_attention_picture(const SpectrogramAttentionPicture& p);

// An SVG document; its <title> is the title, its <desc> the symbols.
std::string spectrogram_attention_svg(const SpectrogramAttentionPicture& p);
// PNG bytes, the SVG's size x scale pixels (rounded up).
std::string spectrogram_attention_png(const SpectrogramAttentionPicture& p, double scale = 2.0);

}  // namespace heed::viz
