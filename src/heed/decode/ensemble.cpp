#include "heed/decode/ensemble.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "heed/autograd/tape.h"
#include "heed/base/error.h"
#include "heed/kernels/softmax.h"
#include "heed/tensor/arena.h"

namespace heed {
namespace {

Var& field_of(Encoded& e, int f) {
  return f == 0 ? e.annotations : f == 1 ? e.keys : e.fixed_context;
}

// Sum of the defined tensors, divided by their count; undefined when none is.
Tensor mean_of(const std::vector<Tensor>& ts) {
  Tensor sum;
  std::int64_t n = 0;
  for (const Tensor& t : ts) {
    if (!t.defined()) continue;
    Tensor c = t.contiguous();
    if (!sum.defined()) {
      sum = c.clone();
    } else {
      HEED_CHECK(c.shape() == sum.shape() && c.dtype() == sum.dtype(),
                 "Ensemble: members' attention shapes differ: ", c.shape().str(), " vs ",
                 sum.shape().str());
      dispatch(sum.dtype(), [&]<typename T>() {
        T* s = sum.data<T>();
        const T* x = c.data<T>();
        for (std::int64_t i = 0; i < sum.numel(); ++i) s[i] += x[i];
      });
    }
    ++n;
  }
  if (n > 1) {
    dispatch(sum.dtype(), [&]<typename T>() {
      T* s = sum.data<T>();
      const T inv = T(1) / static_cast<T>(n);
      for (std::int64_t i = 0; i < sum.numel(); ++i) s[i] *= inv;
    });
  }
  return sum;
}

}  // namespace

Tensor log_mean_softmax(const std::vector<Tensor>& logits) {
  HEED_CHECK(!logits.empty(), "log_mean_softmax: no inputs");
  const Tensor& first = logits.front();
  HEED_CHECK(first.ndim() == 2, "log_mean_softmax: logits must be (rows, V), got ",
             first.shape().str());
  const std::int64_t rows = first.dim(0), V = first.dim(1), n = static_cast<std::int64_t>(logits.size());
  for (const Tensor& t : logits)
    HEED_CHECK(t.shape() == first.shape() && t.dtype() == first.dtype(),
               "Ensemble: members' logits differ in shape or dtype: ", t.shape().str(), " vs ",
               first.shape().str(), " (same target vocabulary required)");
  Tensor out = Tensor::empty(first.shape(), first.dtype());
  dispatch(first.dtype(), [&]<typename T>() {
    T* o = out.data<T>();
    if (n == 1) {
      kernels::log_softmax_rows(first.contiguous().data<T>(), o, rows, V);
      return;
    }
    // log p_i for every member, then log(1/n sum_i exp(log p_i)) stably per element.
    Tensor lp = Tensor::empty({n, rows, V}, first.dtype());
    T* l = lp.data<T>();
    for (std::int64_t i = 0; i < n; ++i)
      kernels::log_softmax_rows(logits[static_cast<std::size_t>(i)].contiguous().data<T>(),
                                l + i * rows * V, rows, V);
    const T log_n = std::log(static_cast<T>(n));
    const std::int64_t stride = rows * V;
    for (std::int64_t e = 0; e < stride; ++e) {
      T mx = l[e];
      for (std::int64_t i = 1; i < n; ++i) mx = std::max(mx, l[i * stride + e]);
      if (mx == -std::numeric_limits<T>::infinity()) {
        o[e] = mx;
        continue;
      }
      T s = 0;
      for (std::int64_t i = 0; i < n; ++i) s += std::exp(l[i * stride + e] - mx);
      o[e] = mx + std::log(s) - log_n;
    }
  });
  return out;
}

Ensemble::Ensemble(std::vector<std::shared_ptr<const Seq2Seq>> members,
                   std::vector<std::vector<std::int32_t>> target_ids)
    : Seq2Seq(members.empty() || !members.front() ? ModelConfig{} : members.front()->config()),
      members_(std::move(members)),
      target_ids_(std::move(target_ids)) {
  HEED_CHECK(!members_.empty(), "Ensemble: needs at least one model");
  HEED_CHECK(target_ids_.empty() || target_ids_.size() == members_.size(), "Ensemble: ",
             target_ids_.size(), " target id maps for ", members_.size(), " members");
  target_ids_.resize(members_.size());
  for (std::size_t i = 0; i < members_.size(); ++i) {
    const auto& map = target_ids_[i];
    if (map.empty()) continue;
    const std::int64_t V = members_.front() ? members_.front()->config().tgt_vocab : 0;
    std::vector<bool> seen(static_cast<std::size_t>(std::max<std::int64_t>(V, 0)), false);
    HEED_CHECK(static_cast<std::int64_t>(map.size()) == V, "Ensemble: member ", i,
               "'s target id map has ", map.size(), " entries for a vocabulary of ", V);
    for (std::int32_t id : map) {
      HEED_CHECK(id >= 0 && id < V && !seen[static_cast<std::size_t>(id)], "Ensemble: member ",
                 i, "'s target id map is not a permutation of the vocabulary (id ", id, ")");
      seen[static_cast<std::size_t>(id)] = true;
    }
  }
  for (const auto& m : members_) {
    HEED_CHECK(m != nullptr, "Ensemble: null model");
    // Each copy model's distribution spans its own extended vocabulary, and the mean of log
    // P over members that copy and members that cannot is no distribution at all.
    HEED_CHECK(!m->copies(), "Ensemble: ", enum_name(m->config().kind), " with model.copy "
               "cannot join an ensemble (copy attention's extended vocabulary is per model); "
               "translate with it alone");
    HEED_CHECK(m->config().tgt_vocab == members_.front()->config().tgt_vocab,
               "Ensemble: target vocabularies differ (", m->config().tgt_vocab, " vs ",
               members_.front()->config().tgt_vocab, ")");
  }
}

std::vector<Var> Ensemble::weights() const {
  std::vector<Var> all;
  for (const auto& m : members_) {
    auto w = m->weights();
    all.insert(all.end(), w.begin(), w.end());
  }
  return all;
}

std::vector<std::int32_t> Ensemble::member_ids(std::size_t i,
                                               std::span<const std::int32_t> ids) const {
  const auto& map = target_ids_[i];
  if (map.empty()) return {ids.begin(), ids.end()};
  std::vector<std::int32_t> out;
  out.reserve(ids.size());
  for (std::int32_t id : ids) {
    HEED_CHECK(id >= 0 && static_cast<std::size_t>(id) < map.size(), "Ensemble: target id ", id,
               " is outside the vocabulary of ", map.size());
    out.push_back(map[static_cast<std::size_t>(id)]);
  }
  return out;
}

Tensor Ensemble::in_first_order(std::size_t i, const Tensor& logits) const {
  const auto& map = target_ids_[i];
  if (map.empty()) return logits;
  const Tensor x = logits.contiguous();
  const std::int64_t V = x.dim(-1), rows = x.numel() / V;
  HEED_CHECK(V == static_cast<std::int64_t>(map.size()), "Ensemble: member ", i, " gave ", V,
             " logits a row for a vocabulary of ", map.size());
  Tensor out = Tensor::empty(x.shape(), x.dtype());
  dispatch(x.dtype(), [&]<typename T>() {
    const T* from = x.data<T>();
    T* to = out.data<T>();
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t v = 0; v < V; ++v) to[r * V + v] = from[r * V + map[static_cast<std::size_t>(v)]];
  });
  return out;
}

Ensemble::Cache& Ensemble::cache() const {
  std::lock_guard lock(mutex_);
  return caches_[std::this_thread::get_id()];
}

Encoded Ensemble::encode(const TokenBatch& src) const {
  std::vector<Encoded> encs;
  encs.reserve(members_.size());
  for (std::size_t i = 0; i < members_.size(); ++i) {
    if (target_ids_[i].empty() || src.shortlist.empty()) {
      encs.push_back(members_[i]->encode(src));
      continue;
    }
    // A shortlist names the first member's ids: this member scores its own for them.
    TokenBatch own = src;
    own.shortlist = member_ids(i, src.shortlist);
    std::sort(own.shortlist.begin(), own.shortlist.end());
    encs.push_back(members_[i]->encode(own));
  }
  const std::int64_t B = src.batch;

  Cache& c = cache();
  std::vector<Field>& layout = c.layout;
  layout.assign(members_.size() * 3, Field{});
  std::int64_t width = 0;
  bool have_dtype = false;
  for (std::size_t i = 0; i < encs.size(); ++i) {
    for (int f = 0; f < 3; ++f) {
      const Var& v = field_of(encs[i], f);
      if (!v.defined()) continue;
      HEED_CHECK(v.value().ndim() >= 1 && v.dim(0) == B, "Ensemble: member ", i,
                 " encoding is not batch-major: ", v.shape().str());
      if (have_dtype)
        HEED_CHECK(v.dtype() == c.packed_dtype, "Ensemble: members' encodings differ in dtype");
      c.packed_dtype = v.dtype();
      have_dtype = true;
      Field& fl = layout[i * 3 + static_cast<std::size_t>(f)];
      fl.defined = true;
      std::vector<std::int64_t> dims;
      for (int d = 1; d < v.value().ndim(); ++d) dims.push_back(v.dim(d));
      fl.tail = Shape(dims.begin(), dims.end());
      fl.size = B ? v.value().numel() / B : 0;
      fl.offset = width;
      width += fl.size;
    }
  }
  c.packed_width = width;

  ArenaScope heap(nullptr);  // the encoding lives for the whole decode
  Tensor packed = Tensor::empty({B, width}, c.packed_dtype);
  const std::size_t esize = dtype_size(c.packed_dtype);
  auto* dst = static_cast<std::byte*>(packed.raw());
  for (std::size_t i = 0; i < encs.size(); ++i) {
    for (int f = 0; f < 3; ++f) {
      const Field& fl = layout[i * 3 + static_cast<std::size_t>(f)];
      if (!fl.defined) continue;
      Tensor t = field_of(encs[i], f).value().contiguous();
      const auto* from = static_cast<const std::byte*>(t.raw());
      for (std::int64_t b = 0; b < B; ++b)
        std::memcpy(dst + static_cast<std::size_t>(b * width + fl.offset) * esize,
                    from + static_cast<std::size_t>(b * fl.size) * esize,
                    static_cast<std::size_t>(fl.size) * esize);
    }
  }
  Encoded out;
  out.annotations = Var(packed);
  out.lengths = encs.front().lengths;
  c.packed = out.annotations;
  c.members = std::move(encs);
  return out;
}

std::vector<Encoded> Ensemble::unpack(const Encoded& enc) const {
  Cache& c = cache();
  HEED_CHECK(enc.annotations.defined(), "Ensemble: the encoding was not made by Ensemble::encode");
  if (enc.annotations.same_node(c.packed)) return c.members;
  const Tensor packed = enc.annotations.value().contiguous();
  HEED_CHECK(packed.ndim() == 2 && packed.dim(1) == c.packed_width &&
                 packed.dtype() == c.packed_dtype,
             "Ensemble: the encoding does not match this thread's last Ensemble::encode call");
  const std::int64_t B = packed.dim(0), width = c.packed_width;
  const std::size_t esize = dtype_size(c.packed_dtype);
  const auto* from = static_cast<const std::byte*>(packed.raw());
  ArenaScope heap(nullptr);  // cached across steps
  std::vector<Encoded> encs(members_.size());
  for (std::size_t i = 0; i < members_.size(); ++i) {
    encs[i].lengths = enc.lengths;
    // The batch's shortlist rows are the same for every row order (one per batch).
    if (i < c.members.size()) encs[i].shortlist = c.members[i].shortlist;
    for (int f = 0; f < 3; ++f) {
      const Field& fl = c.layout[i * 3 + static_cast<std::size_t>(f)];
      if (!fl.defined) continue;
      std::vector<std::int64_t> dims{B};
      for (auto d : fl.tail) dims.push_back(d);
      Tensor t = Tensor::empty(Shape(dims.begin(), dims.end()), c.packed_dtype);
      auto* to = static_cast<std::byte*>(t.raw());
      for (std::int64_t b = 0; b < B; ++b)
        std::memcpy(to + static_cast<std::size_t>(b * fl.size) * esize,
                    from + static_cast<std::size_t>(b * width + fl.offset) * esize,
                    static_cast<std::size_t>(fl.size) * esize);
      field_of(encs[i], f) = Var(t);
    }
  }
  c.packed = enc.annotations;
  c.members = encs;
  return encs;
}

DecoderState Ensemble::initial_state(const Encoded& enc) const {
  std::vector<Encoded> encs = unpack(enc);
  DecoderState out;
  std::vector<std::size_t> counts, caches;
  for (std::size_t i = 0; i < members_.size(); ++i) {
    DecoderState s = members_[i]->initial_state(encs[i]);
    counts.push_back(s.parts.size());
    caches.push_back(s.caches.size());
    for (auto& p : s.parts) out.parts.push_back(std::move(p));
    for (auto& c : s.caches) out.caches.push_back(std::move(c));
  }
  cache().state_parts = std::move(counts);
  cache().state_caches = std::move(caches);
  return out;
}

StepOutput Ensemble::step(std::span<const std::int32_t> y_prev, DecoderState& state,
                          const Encoded& enc) const {
  std::vector<Encoded> encs = unpack(enc);
  for (Encoded& e : encs) e.window = enc.window;  // windowed decoding reaches every member
  const std::vector<std::size_t> counts = cache().state_parts, caches = cache().state_caches;
  std::size_t total = 0, total_caches = 0;
  for (auto c : counts) total += c;
  for (auto c : caches) total_caches += c;
  HEED_CHECK(counts.size() == members_.size() && caches.size() == members_.size() &&
                 total == state.parts.size() && total_caches == state.caches.size(),
             "Ensemble: the decoder state was not made by Ensemble::initial_state");
  std::vector<Tensor> logits, alphas;
  std::vector<std::shared_ptr<const OutputShortlist>> shortlists;
  std::size_t at = 0, cache_at = 0;
  for (std::size_t i = 0; i < members_.size(); ++i) {
    DecoderState s;
    s.parts.assign(state.parts.begin() + static_cast<std::ptrdiff_t>(at),
                   state.parts.begin() + static_cast<std::ptrdiff_t>(at + counts[i]));
    s.caches.assign(state.caches.begin() + static_cast<std::ptrdiff_t>(cache_at),
                    state.caches.begin() + static_cast<std::ptrdiff_t>(cache_at + caches[i]));
    std::vector<std::int32_t> mapped;  // only a member in another token order needs a copy
    if (!target_ids_[i].empty()) mapped = member_ids(i, y_prev);
    StepOutput o = members_[i]->step(target_ids_[i].empty() ? y_prev : mapped, s, encs[i]);
    HEED_CHECK(s.parts.size() == counts[i] && s.caches.size() == caches[i], "Ensemble: member ",
               i, " changed its state size");
    for (std::size_t p = 0; p < counts[i]; ++p) state.parts[at + p] = std::move(s.parts[p]);
    for (std::size_t p = 0; p < caches[i]; ++p) state.caches[cache_at + p] = std::move(s.caches[p]);
    at += counts[i];
    cache_at += caches[i];
    Tensor l = o.logits.value();
    if (!target_ids_[i].empty()) {  // into the first member's order, over the whole vocabulary
      if (o.shortlist) l = scatter_shortlist(*o.shortlist, l.contiguous());
      l = in_first_order(i, l);
      o.shortlist = nullptr;
    }
    logits.push_back(l);
    shortlists.push_back(o.shortlist);
    alphas.push_back(o.alpha.defined() ? o.alpha.value() : Tensor{});
  }
  StepOutput out;
  // Members that computed their logits over the same shortlist are mixed over its K columns
  // (the batch's shortlist reaches every member, so they all do unless one is a copy model);
  // otherwise each shortlist's columns are scattered into the whole vocabulary first.
  bool same = shortlists[0] != nullptr;
  for (const auto& s : shortlists) same = same && s && s->ids == shortlists[0]->ids;
  if (same) {
    out.shortlist = shortlists[0];
  } else {
    for (std::size_t i = 0; i < logits.size(); ++i)
      if (shortlists[i]) logits[i] = scatter_shortlist(*shortlists[i], logits[i].contiguous());
  }
  out.logits = Var(log_mean_softmax(logits));
  Tensor a = mean_of(alphas);
  if (a.defined()) out.alpha = Var(a);
  return out;
}

std::int64_t Ensemble::max_output_steps() const {
  std::int64_t fewest = 0;
  for (const auto& m : members_)
    if (const std::int64_t n = m->max_output_steps(); n > 0) fewest = fewest == 0 ? n : std::min(fewest, n);
  return fewest;
}

Tensor Ensemble::ctc_logits(const TokenBatch& src) const {
  std::vector<Tensor> logits;
  Shape shape;
  for (std::size_t i = 0; i < members_.size(); ++i) {
    const Tensor z = members_[i]->ctc_logits(src);
    HEED_CHECK(z.defined(), "CTC rescoring of an ensemble needs a CTC head in every member "
               "(model.ctc_weight > 0); member ", i + 1, " of ", members_.size(), " has none");
    if (i == 0) shape = z.shape();
    HEED_CHECK(z.shape() == shape, "Ensemble: member ", i + 1, "'s CTC logits are ",
               z.shape().str(), ", the first's ", shape.str());
    const std::int64_t V = z.dim(-1);
    logits.push_back(in_first_order(i, z.contiguous()).reshape({z.numel() / V, V}));
  }
  return log_mean_softmax(logits).reshape(shape);
}

Var Ensemble::forward(const TokenBatch& src, const TokenBatch& tgt_in, Tensor* alphas) const {
  NoGradGuard no_grad;
  std::vector<Tensor> logits, member_alphas;
  for (std::size_t i = 0; i < members_.size(); ++i) {
    Tensor a;
    TokenBatch own = tgt_in;
    own.ids = member_ids(i, tgt_in.ids);
    logits.push_back(
        in_first_order(i, members_[i]->forward(src, own, alphas ? &a : nullptr).value()));
    member_alphas.push_back(a);
  }
  if (alphas) *alphas = mean_of(member_alphas);
  return Var(log_mean_softmax(logits));
}

}  // namespace heed
