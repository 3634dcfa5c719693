#pragma once
// --ctc-weight W of heed transcribe and heed eval --speech (docs/MODELS.md#joint-ctc-training):
// beam search's hypotheses re-ranked by (1 - W) log P_att + W log P_ctc under the model's CTC
// head (decode/ctc_rescoring.h).
#include <CLI/CLI.hpp>

#include "heed/cli/validators.h"

namespace heed::cli {

inline CLI::Option* add_ctc_weight_option(CLI::App& app, double& weight) {
  return app.add_option("--ctc-weight", weight,
                        "W: re-rank the beam's transcripts by (1 - W) log P_att + W log P_ctc "
                        "under the model's CTC head (a model trained with model.ctc_weight; "
                        "--beam 2 or more); 0 = off")
      ->check(real_range(0, 1))
      ->capture_default_str();
}

}  // namespace heed::cli
