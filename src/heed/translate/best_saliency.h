#pragma once
// The saliency map of each translation's best hypothesis (what `heed serve` answers with
// "saliency" and `heed show` draws): the hypothesis' own pieces are forced through the
// model again (LineTranslator::align_pieces with saliency), so nothing is lost to detokenising.
#include <cstddef>
#include <functional>
#include <vector>

#include "heed/translate/line_translator.h"

namespace heed {

// One map per translation: |best output| x |source| row-major, EOS included on both sides
// (the rows of the hypothesis' own output: no EOS row when it emitted none). Empty for a
// translation without a hypothesis or output, and where re-tokenising the rejoined source
// pieces does not give the same pieces back. Uses the parameters' gradient buffers: not
// concurrently with another saliency call on the same model (LineTranslator::align).
std::vector<std::vector<float>> best_hypothesis_saliency(
    const LineTranslator& translator, const std::vector<Translation>& translations,
    std::size_t batch_size, const std::function<void(std::size_t, std::size_t)>& progress = {});

}  // namespace heed
