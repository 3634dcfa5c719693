#include "heed/models/seq2seq.h"

#include <cstring>

#include "heed/autograd/index.h"
#include "heed/models/model_registry.h"

namespace heed {

Saliency Seq2Seq::saliency(const TokenBatch&, const TokenBatch&,
                           std::span<const std::int32_t>) const {
  throw Error("saliency needs a single model (an ensemble has no single source embedding)");
}

std::int64_t Seq2Seq::max_output_steps() const { return max_target_length(config_); }

CopyOutputs Seq2Seq::forward_copy(const TokenBatch&, const TokenBatch&) const {
  throw Error("forward_copy: this model has no copy attention (model.copy is false)");
}

std::vector<std::int64_t> target_rows(const TokenBatch& tgt) {
  HEED_CHECK(static_cast<std::int64_t>(tgt.lengths.size()) == tgt.batch, "target rows: ",
             tgt.lengths.size(), " lengths for a batch of ", tgt.batch);
  std::vector<std::int64_t> rows;
  for (std::int64_t b = 0; b < tgt.batch; ++b) {
    const std::int64_t n = tgt.lengths[static_cast<std::size_t>(b)];
    HEED_CHECK(n >= 0 && n <= tgt.len, "target rows: row ", b, " has length ", n, " of ",
               tgt.len);
    for (std::int64_t t = 0; t < n; ++t) rows.push_back(b * tgt.len + t);
  }
  return rows;
}

std::vector<std::int32_t> pack_targets(const std::vector<std::int32_t>& padded,
                                       const TokenBatch& tgt) {
  HEED_CHECK(static_cast<std::int64_t>(padded.size()) == tgt.batch * tgt.len, "pack targets: ",
             padded.size(), " targets for a ", tgt.batch, " x ", tgt.len, " batch");
  std::vector<std::int32_t> out;
  for (std::int64_t r : target_rows(tgt)) out.push_back(padded[static_cast<std::size_t>(r)]);
  return out;
}

Var Seq2Seq::forward_packed(const TokenBatch& src, const TokenBatch& tgt_in) const {
  return gather_rows(forward(src, tgt_in), target_rows(tgt_in));
}

void check_token_batch(const TokenBatch& batch, std::int64_t vocab, const char* what,
                       bool empty_rows_ok) {
  HEED_CHECK(batch.batch >= 1 && batch.len >= 1, what, ": empty batch (", batch.batch, " x ",
             batch.len, ")");
  HEED_CHECK(static_cast<std::int64_t>(batch.ids.size()) == batch.batch * batch.len, what, ": ",
             batch.ids.size(), " ids for a ", batch.batch, " x ", batch.len, " batch");
  HEED_CHECK(static_cast<std::int64_t>(batch.lengths.size()) == batch.batch, what, ": ",
             batch.lengths.size(), " lengths for ", batch.batch, " rows");
  for (std::int64_t b = 0; b < batch.batch; ++b) {
    const std::int64_t n = batch.lengths[static_cast<std::size_t>(b)];
    HEED_CHECK(n <= batch.len && (n >= 1 || (empty_rows_ok && n == 0)), what, ": row ", b,
               " has length ", n, ", expected ", empty_rows_ok ? 0 : 1, "..", batch.len);
  }
  for (std::size_t i = 0; i < batch.ids.size(); ++i)
    HEED_CHECK(batch.ids[i] >= 0 && batch.ids[i] < vocab, what, ": token id ", batch.ids[i],
               " at row ", static_cast<std::int64_t>(i) / batch.len, " is outside the vocabulary of ",
               vocab);
}

Tensor reorder_rows(const Tensor& t, std::span<const std::int64_t> rows) {
  Tensor src = t.contiguous();
  Shape shape = src.shape();
  const std::int64_t n = shape[0];
  shape[0] = static_cast<std::int64_t>(rows.size());
  Tensor out = Tensor::empty(shape, src.dtype());
  const std::size_t row_bytes =
      static_cast<std::size_t>(n ? src.numel() / n : 0) * dtype_size(src.dtype());
  const auto* from = static_cast<const std::byte*>(src.raw());
  auto* to = static_cast<std::byte*>(out.raw());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    HEED_CHECK(rows[i] >= 0 && rows[i] < n, "reorder_rows: row ", rows[i], " of ", n);
    std::memcpy(to + i * row_bytes, from + static_cast<std::size_t>(rows[i]) * row_bytes,
                row_bytes);
  }
  return out;
}

namespace {
// Decoding runs without a tape, so the reordered values are new leaves.
Var reorder_var(const Var& v, std::span<const std::int64_t> rows) {
  if (!v.defined()) return v;
  return Var(reorder_rows(v.value(), rows));
}
}  // namespace

Encoded reorder_rows(const Encoded& enc, std::span<const std::int64_t> rows) {
  Encoded out;
  out.annotations = reorder_var(enc.annotations, rows);
  if (enc.keys_by_row && enc.keys.defined()) {  // shared: the hypotheses' rows listed
    out.keys = enc.keys;
    out.keys_by_row = true;
    const std::int64_t m = enc.keys.dim(1);
    out.key_rows.resize(rows.size() * static_cast<std::size_t>(m));
    for (std::size_t i = 0; i < rows.size(); ++i) {
      HEED_CHECK(rows[i] >= 0 && rows[i] < static_cast<std::int64_t>(enc.lengths.size()),
                 "reorder_rows: row ", rows[i], " of ", enc.lengths.size());
      for (std::int64_t j = 0; j < m; ++j)
        out.key_rows[i * static_cast<std::size_t>(m) + static_cast<std::size_t>(j)] =
            enc.key_rows.empty() ? rows[i] * m + j
                                 : enc.key_rows[static_cast<std::size_t>(rows[i] * m + j)];
    }
  } else {
    out.keys = reorder_var(enc.keys, rows);
  }
  out.fixed_context = reorder_var(enc.fixed_context, rows);
  out.lengths.reserve(rows.size());
  for (auto r : rows) out.lengths.push_back(enc.lengths[static_cast<std::size_t>(r)]);
  out.initial = reorder_rows(enc.initial, rows);
  out.window = enc.window;
  if (!enc.copy_ids.empty()) {  // copy attention's map, (B, m) like the annotations
    const std::size_t m = enc.copy_ids.size() / enc.lengths.size();
    out.copy_ids.reserve(rows.size() * m);
    for (auto r : rows) {
      const auto from = enc.copy_ids.begin() + static_cast<std::ptrdiff_t>(r) * static_cast<std::ptrdiff_t>(m);
      out.copy_ids.insert(out.copy_ids.end(), from, from + static_cast<std::ptrdiff_t>(m));
    }
  }
  out.extended = enc.extended;
  out.shortlist = enc.shortlist;  // one for the whole batch
  return out;
}

DecoderState reorder_rows(const DecoderState& state, std::span<const std::int64_t> rows) {
  DecoderState out;
  out.parts.reserve(state.parts.size());
  for (auto& p : state.parts) out.parts.push_back(reorder_var(p, rows));
  out.caches.reserve(state.caches.size());
  for (auto& c : state.caches) out.caches.push_back(c.reorder(rows));
  return out;
}

StepOutput reorder_rows(const StepOutput& out, std::span<const std::int64_t> rows) {
  StepOutput r;
  r.logits = reorder_var(out.logits, rows);
  r.alpha = reorder_var(out.alpha, rows);
  r.p_gen = reorder_var(out.p_gen, rows);
  r.shortlist = out.shortlist;  // one for the whole batch
  return r;
}

}  // namespace heed
