#pragma once
// The memory network's golden inputs (tools/reference/memory.py's make_batch, stored by
// tools/make_memn2n_goldens.py and tools/make_interop_fixtures.py) in heed's batch layout.
#include "heed/models/memory_network.h"
#include "heed/tensor/safetensors.h"

namespace heed::testing {

// in.memory (B, S, J), in.counts (B), in.time (B, S), in.question (B, Jq) and in.answer (B),
// ids left-aligned with PAD after, as a MemoryBatch: each row's length from its padding, no
// temporal row (time -1) for an empty slot, every story kept from its first statement.
MemoryBatch golden_memory_batch(const SafeTensorsFile& golden);

}  // namespace heed::testing
