#include "heed/translate/image_decoding.h"

#include "heed/decode/beam_search.h"
#include "heed/decode/greedy.h"
#include "heed/models/image_encoder.h"

namespace heed {

std::vector<DecodedImage> decode_images(const Seq2Seq& model, const Vocabulary& names,
                                        const Tensor& images, const DecodeOptions& options) {
  const TokenBatch src = image_source(images, model.config().image);
  const auto [gh, gw] = image_grid(model.config().image, images.dim(2), images.dim(3));
  const DecodeResult r = options.beam > 1 ? beam_search(model, src, options)
                                          : greedy_decode(model, src, options);
  std::vector<DecodedImage> out(static_cast<std::size_t>(src.batch));
  for (std::size_t b = 0; b < out.size(); ++b) {
    const Hypothesis& h = r.best(b);
    DecodedImage& d = out[b];
    d.tokens = h.tokens;
    d.words = names.decode(h.tokens, /*strip_specials=*/false);  // one word per step
    d.grid_rows = gh;
    d.grid_cols = gw;
    if (!h.attention.defined()) continue;
    const Tensor a = h.attention.to(DType::f32).contiguous();  // (length, L)
    const float* p = a.data<float>();
    for (std::size_t t = 0; t < d.words.size(); ++t)
      d.attention.emplace_back(p + static_cast<std::int64_t>(t) * src.len,
                               p + static_cast<std::int64_t>(t + 1) * src.len);
  }
  return out;
}

}  // namespace heed
