#pragma once
// The body of `GET /info` (docs/cli/serve.md#get-info): what the server decodes with, so that
// a client can check it talks to the model it expects.
//   {"model": "runs/g2p", "kind": "bahdanau" (the first member's), "attention": true,
//    "max_source_length": 0,
//    "limits": {"max_sentences": 64, "max_sentence_bytes": 4096, "max_beam": 64,
//               "max_input_len": 1000},
//    "members": [{"dir": "runs/g2p", "weights": "runs/g2p/best.safetensors", "step": 4000,
//                 "kind": "bahdanau", "attention": "soft", "parameters": 1234567,
//                 "sizes": {"emb_dim": 128, "encoder": "gru", "enc_hidden": 256, ...},
//                 "vocabularies": {"source": {"size": 30, "tokenizer": "char"},
//                                  "target": {"size": 45, "tokenizer": "whitespace"}},
//                 "training": {"steps": 5000, "metric": "wer", "best_score": 7.9,
//                              "best_step": 4000, "stop_reason": "max_steps"} or null}]}
// One member per model of an ensemble. Built once when the server starts: it describes the
// weights loaded then, and the training state as it was then.
//
// A memory network (model.kind memn2n) has the same keys where they apply, and an example for
// the live page to start from:
//   {"model": "runs/babi", "kind": "memn2n", "attention": true,
//    "limits": {"max_line_bytes": 4096},
//    "members": [{"dir", "weights", "step", "kind": "memn2n", "attention": "soft",
//                 "parameters": 12345, "sizes": {"emb_dim": 20, "hops": 3, "memory_size": 50,
//                 "position_encoding": true, "temporal_encoding": true},
//                 "vocabularies": {"words": {"size": 40}}, "training": {...} or null}],
//    "example": {"story": "Mary moved to the bathroom.\n...", "question": "Where is Mary?",
//                "unknown": 0}}
// The example is the one of a few bAbI-like stories (task 1's moves, task 2's objects, task 6's
// yes/no) whose words the vocabulary lacks fewest of ("unknown" of them; ties: the first).
#include <cstddef>
#include <string>
#include <vector>

#include "heed/serve/request.h"
#include "heed/store/model_dir.h"
#include "heed/translate/line_translator.h"

namespace heed::serve {

// dirs: each member's model directory (its training state is read from there; a missing
// state gives "training": null); fewer dirs than members leave the rest's "dir" empty.
std::string model_info(const LineTranslator& translator, const std::string& model,
                       const std::vector<std::string>& dirs, const RequestLimits& limits,
                       std::size_t max_input_tokens);

// A speech model (model.kind las): the same keys where they apply, its features and the limits
// of POST /transcribe:
//   {"model": "runs/digits", "kind": "las", "attention": true,
//    "limits": {"max_beam": 64, "max_audio_seconds": 60, "max_body_bytes": 1048576},
//    "audio": {"sample_rate": 8000, "mels": 40, "stack": 3, "normalize": true,
//              "pyramid": 4, "frames_per_annotation": 12, "seconds_per_frame": 0.01},
//    "members": [{"dir", "weights", "step", "kind": "las", "attention": "soft",
//                 "parameters": 123456, "sizes": {...},
//                 "vocabularies": {"target": {"size": 14, "tokenizer": "whitespace"}},
//                 "training": {...} or null}]}
std::string speech_model_info(const LoadedModel& speech, const std::string& model,
                              const std::string& dir, const RequestLimits& limits,
                              std::size_t max_body_bytes);

// dir: the model's directory ("" when not known: "training": null).
std::string memory_model_info(const LoadedMemoryModel& memory, const std::string& model,
                              const std::string& dir, const RequestLimits& limits);

}  // namespace heed::serve
