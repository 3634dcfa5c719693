// model.kind memn2n: the end-to-end memory network (docs/MODELS.md#memory-network;
// models/memory_network.h). No encoder–decoder: heed train's question-answering task
// (train/question_answering_task.cpp) builds the MemoryNetwork itself.
#include "heed/models/memory_network.h"
#include "heed/models/model_registry.h"

namespace heed {

namespace {
std::int64_t any_length(const ModelConfig&) { return 0; }
}  // namespace

extern const ModelKindSpec kMemoryNetworkSpec{ModelKind::memn2n, RnnCell::gru,
                                              validate_memory_network, nullptr, any_length};

}  // namespace heed
