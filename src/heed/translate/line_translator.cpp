#include "heed/translate/line_translator.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <numeric>
#include <optional>
#include <thread>

#include "heed/autograd/tape.h"
#include "heed/base/error.h"
#include "heed/data/corpus.h"
#include "heed/decode/beam_search.h"
#include "heed/decode/frozen_model.h"
#include "heed/decode/greedy.h"
#include "heed/decode/unk_replace.h"
#include "heed/kernels/gemm.h"
#include "heed/models/model_registry.h"
#include "heed/store/quantized_weights.h"
#include "heed/translate/ensemble_members.h"

namespace heed {
namespace {

// Attention weights as floats, clamped into [0, 1] against rounding.
std::vector<float> attention_weights(const Tensor& a) {
  std::vector<float> w;
  w.reserve(static_cast<std::size_t>(a.numel()));
  for (double v : a.to_vector()) w.push_back(static_cast<float>(std::clamp(v, 0.0, 1.0)));
  return w;
}

std::vector<std::string> with_eos(std::vector<std::string> pieces) {
  pieces.emplace_back(Vocabulary::kEosToken);
  return pieces;
}

}  // namespace

LineTranslator LineTranslator::load(const std::vector<ModelSpec>& specs,
                                    std::optional<kernels::MatmulPrecision> precision) {
  HEED_CHECK(!specs.empty(), "translate: no model given");
  std::vector<LoadedModel> models;
  std::vector<std::string> names;
  for (const auto& s : specs) {
    models.push_back(load_model_dir(s.dir, s.weights, s.attention));
    names.push_back(s.dir);
  }
  return LineTranslator(std::move(models), std::move(names), precision);
}

LineTranslator::LineTranslator(std::vector<LoadedModel> models, std::vector<std::string> names,
                               std::optional<kernels::MatmulPrecision> precision)
    : models_(std::move(models)), names_(std::move(names)) {
  HEED_CHECK(!models_.empty(), "translate: no model given");
  names_.resize(models_.size());
  const LoadedModel& first = models_.front();
  for (std::size_t i = 0; i < models_.size(); ++i) {
    const LoadedModel& m = models_[i];
    HEED_CHECK(m.model && m.src_tokenizer && m.tgt_tokenizer, "translate: model ", names_[i],
               " is not loaded");
    const ModelConfig& mc = m.model->config();
    if (const auto limit = static_cast<std::size_t>(heed::max_source_length(mc)); limit > 0)
      max_src_len_ = max_src_len_ == 0 ? limit : std::min(max_src_len_, limit);
    if (i == 0) continue;
    check_same_side("source", *first.src_tokenizer, first.src_vocab, names_[0], *m.src_tokenizer,
                    m.src_vocab, names_[i], model_files::kSrcSpm);
    check_same_target(first, names_[0], m, names_[i]);
  }
  ComputeType type;
  type.decoding = precision.value_or(is_quantized(first.metadata)
                                         ? kernels::MatmulPrecision::int8
                                         : kernels::MatmulPrecision::f32);
  for (auto& m : models_) m.model->set_compute_type(type);
  // The members stay owned by models_ (their heap objects never move).
  decoder_ = decoder_of(models_, type);
}

LineTranslator::LineTranslator(LineTranslator&&) noexcept = default;
LineTranslator& LineTranslator::operator=(LineTranslator&&) noexcept = default;
LineTranslator::~LineTranslator() = default;

bool LineTranslator::has_attention() const {
  for (const auto& m : models_)
    if (m.model->has_attention()) return true;
  return false;
}

std::vector<Translation> LineTranslator::translate(
    const std::vector<std::string>& lines, const TranslateOptions& options,
    const std::function<void(std::size_t, std::size_t)>& progress) const {
  const DecodeOptions& dopt = options.decode;
  HEED_CHECK(dopt.beam >= 1, "the beam width must be at least 1, got ", dopt.beam);
  HEED_CHECK(dopt.n_best >= 1 && dopt.n_best <= dopt.beam, "n-best must be between 1 and the beam "
             "width (", dopt.beam, "), got ", dopt.n_best);
  HEED_CHECK(options.batch_size >= 1, "the batch size must be at least 1");
  HEED_CHECK(!(options.replace_unk || options.keep_attention) || has_attention(),
             options.replace_unk ? "UNK replacement" : "attention output",
             " needs a model with attention (", names_.front(), " has none)");
  HEED_CHECK(!options.shortlist ||
                 options.shortlist->target_vocab() == static_cast<std::size_t>(decoder_->tgt_vocab()),
             "translate: the shortlist was resolved against ", options.shortlist ?
             options.shortlist->target_vocab() : 0, " target tokens, the model has ",
             decoder_->tgt_vocab());
  FrozenModel frozen(*decoder_);  // packed once, used by every batch

  const LoadedModel& first = models_.front();
  CorpusOptions co;
  co.src_eos = true;  // as in training; lengths are checked below, line by line
  if (decoder_->copies()) co.copy_vocab = &first.tgt_vocab;  // copy attention's maps
  const Corpus corpus = build_source_corpus(lines, *first.src_tokenizer, first.src_vocab, co);
  std::size_t limit = max_src_len_;
  if (options.max_input_tokens > 0)
    limit = limit == 0 ? options.max_input_tokens : std::min(limit, options.max_input_tokens);
  const bool model_limit = limit > 0 && limit == max_src_len_;

  std::vector<Translation> out(lines.size());
  std::vector<std::size_t> order;  // non-empty lines, shortest first (stable)
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::size_t n = corpus.src[i].size();
    out[i].source_tokens = n;
    if (n <= 1) continue;  // only the EOS
    if (limit > 0 && n > limit) {
      HEED_CHECK(!options.strict, "input line ", i + 1, " has ", n, " tokens, more than ",
                 model_limit ? "the model's maximum source length " : "the limit of ", limit,
                 model_limit ? "" : " (--max-input-len)",
                 "; without --strict such lines are skipped with a warning");
      out[i].skipped = true;
      continue;
    }
    out[i].source = with_eos(first.src_tokenizer->encode(lines[i]));
    order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return corpus.src[a].size() < corpus.src[b].size();
  });

  const Vocabulary& tv = first.tgt_vocab;
  const Tokenizer& tt = *first.tgt_tokenizer;
  const std::size_t batches = (order.size() + options.batch_size - 1) / options.batch_size;

  // Decodes batch number `index` with `decoder`, filling its entries of out.
  auto decode_batch = [&](const Seq2Seq& decoder, std::size_t index) {
    const std::size_t start = index * options.batch_size;
    const std::size_t end = std::min(order.size(), start + options.batch_size);
    TokenBatch src;
    src.batch = static_cast<std::int64_t>(end - start);
    for (std::size_t k = start; k < end; ++k)
      src.len = std::max<std::int64_t>(src.len, static_cast<std::int64_t>(corpus.src[order[k]].size()));
    src.ids.assign(static_cast<std::size_t>(src.batch * src.len), kPad);
    for (std::size_t k = start; k < end; ++k) {
      const auto& ids = corpus.src[order[k]];
      std::copy(ids.begin(), ids.end(), src.ids.begin() + static_cast<std::ptrdiff_t>(k - start) * src.len);
      src.lengths.push_back(static_cast<std::int64_t>(ids.size()));
    }
    if (corpus.has_copy()) {  // each source position's extended id (data/copy_map.h)
      src.copy_ids.assign(src.ids.size(), kPad);
      for (std::size_t k = start; k < end; ++k) {
        const CopyMap& map = corpus.copy[order[k]];
        std::copy(map.source.begin(), map.source.end(),
                  src.copy_ids.begin() + static_cast<std::ptrdiff_t>(k - start) * src.len);
        src.extended = std::max(src.extended, static_cast<std::int64_t>(map.words.size()));
      }
    }
    if (options.shortlist) src.shortlist = options.shortlist->batch_ids(src.ids);
    NoGradGuard no_grad;
    const DecodeResult r =
        dopt.beam == 1 ? greedy_decode(decoder, src, dopt) : beam_search(decoder, src, dopt);

    for (std::size_t k = start; k < end; ++k) {
      Translation& tr = out[order[k]];
      tr.shortlist_ids = src.shortlist.size();
      const auto& hyps = r.nbest.at(k - start);
      for (std::size_t h = 0; h < hyps.size(); ++h) {
        const Hypothesis& hyp = hyps[h];
        TranslatedHypothesis th;
        th.score = hyp.score;
        std::vector<std::int64_t> unk_pos(hyp.tokens.size(), -1);
        if (options.replace_unk) unk_pos = unk_source_positions(hyp);
        std::vector<std::string> pieces;
        const auto V = static_cast<std::int32_t>(tv.size());
        th.p_gen = hyp.p_gen;
        if (!hyp.p_gen.empty()) th.copied.assign(hyp.tokens.size(), 0);
        for (std::size_t t = 0; t < hyp.tokens.size(); ++t) {
          const std::int32_t id = hyp.tokens[t];
          if (id >= V) {  // copy attention: a source word the target vocabulary lacks
            const std::string& word = corpus.copy.at(order[k]).words.at(static_cast<std::size_t>(id - V));
            th.output.push_back(word);
            pieces.push_back(word);
            th.copied.at(t) = 1;
            continue;
          }
          th.output.push_back(tv.token(id));
          if (id == kPad || id == kBos || id == kEos) continue;
          // An UNK that attended most to the source's EOS has no word to copy: it stays.
          const auto p = unk_pos[t];
          if (p >= 0 && static_cast<std::size_t>(p) + 1 < tr.source.size())
            pieces.push_back(tr.source[static_cast<std::size_t>(p)]);
          else
            pieces.push_back(tv.token(id));
        }
        th.text = tt.decode(pieces);
        if (options.keep_attention && hyp.attention.defined()) {
          const Tensor a = hyp.attention.contiguous();
          HEED_CHECK(a.ndim() == 2 && a.dim(0) == static_cast<std::int64_t>(hyp.tokens.size()) &&
                         a.dim(1) == static_cast<std::int64_t>(tr.source.size()),
                     "translate: attention of shape ", a.shape().str(), " for ", hyp.tokens.size(),
                     " output and ", tr.source.size(), " source tokens");
          th.attention = attention_weights(a);
        }
        tr.nbest.push_back(std::move(th));
      }
    }
    return end - start;
  };

  std::size_t workers = options.threads > 0 ? options.threads
                                            : std::max(1u, std::thread::hardware_concurrency());
  workers = std::min(workers, batches);
  std::size_t done = lines.size() - order.size();  // empty and skipped lines need no work
  if (workers <= 1) {
    for (std::size_t i = 0; i < batches; ++i) {
      done += decode_batch(*decoder_, i);
      if (progress) progress(done, lines.size());
    }
    return out;
  }

  // Several workers, each taking the next batch and running the kernels single-threaded:
  // decoding steps are small GEMMs, which parallelise far better across batches than inside
  // one. Every batch is decoded exactly as by one worker, so the output does not change.
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex mutex;  // guards done, error and the progress callback
  auto work = [&] {
    kernels::set_num_threads(1);
    // An Ensemble caches one batch's unpacked encodings: each worker gets its own.
    const std::shared_ptr<const Seq2Seq> decoder =
        models_.size() > 1 ? decoder_of(models_) : decoder_;
    while (!failed) {
      const std::size_t i = next++;
      if (i >= batches) break;
      try {
        const std::size_t n = decode_batch(*decoder, i);
        std::lock_guard lock(mutex);
        done += n;
        if (progress) progress(done, lines.size());
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!error) error = std::current_exception();
        failed = true;
      }
    }
  };
  const int kernel_threads = kernels::num_threads();
  {
    std::vector<std::jthread> pool;
    for (std::size_t w = 0; w < workers; ++w) pool.emplace_back(work);
  }
  kernels::set_num_threads(kernel_threads);
  if (error) std::rethrow_exception(error);
  return out;
}

std::vector<ForcedAlignment> LineTranslator::align(
    const std::vector<std::string>& sources, const std::vector<std::string>& targets,
    std::size_t batch_size, bool saliency,
    const std::function<void(std::size_t, std::size_t)>& progress) const {
  HEED_CHECK(sources.size() == targets.size(), "align: ", sources.size(), " source lines but ",
             targets.size(), " target lines");
  std::vector<std::vector<std::string>> pieces;
  pieces.reserve(targets.size());
  for (const auto& t : targets) pieces.push_back(models_.front().tgt_tokenizer->encode(t));
  return align_pieces(sources, pieces, batch_size, saliency, progress);
}

std::vector<ForcedAlignment> LineTranslator::align_pieces(
    const std::vector<std::string>& sources,
    const std::vector<std::vector<std::string>>& targets, std::size_t batch_size, bool saliency,
    const std::function<void(std::size_t, std::size_t)>& progress) const {
  HEED_CHECK(sources.size() == targets.size(), "align: ", sources.size(), " source lines but ",
             targets.size(), " target lines");
  HEED_CHECK(batch_size >= 1, "the batch size must be at least 1");
  HEED_CHECK(saliency || has_attention(), "alignment needs a model with attention (",
             names_.front(), " has none)");
  HEED_CHECK(!saliency || models_.size() == 1,
             "saliency needs a single model, not an ensemble of ", models_.size());
  const LoadedModel& first = models_.front();
  std::vector<ForcedAlignment> out(sources.size());
  std::vector<std::vector<std::int32_t>> src_ids(sources.size()), tgt_ids(sources.size());
  std::vector<std::size_t> order;  // pairs with both sides non-empty, shortest source first
  for (std::size_t i = 0; i < sources.size(); ++i) {
    auto sp = first.src_tokenizer->encode(sources[i]);
    auto tp = targets[i];
    if (sp.empty() || tp.empty()) continue;
    const std::size_t n = sp.size() + 1;
    HEED_CHECK(max_src_len_ == 0 || n <= max_src_len_, "source line ", i + 1, " has ", n,
               " tokens, more than the model's maximum source length ", max_src_len_);
    for (const auto& p : sp) src_ids[i].push_back(first.src_vocab.id(p));
    for (const auto& p : tp) tgt_ids[i].push_back(first.tgt_vocab.id(p));
    src_ids[i].push_back(kEos);
    tgt_ids[i].push_back(kEos);
    out[i].source = with_eos(std::move(sp));
    out[i].target = with_eos(std::move(tp));
    order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return src_ids[a].size() < src_ids[b].size();
  });

  // Saliency differentiates through the weights, so they are not frozen then.
  std::optional<FrozenModel> frozen;
  if (!saliency) frozen.emplace(*decoder_);
  std::size_t done = sources.size() - order.size();
  for (std::size_t start = 0; start < order.size(); start += batch_size) {
    const std::size_t end = std::min(order.size(), start + batch_size);
    TokenBatch src, tgt_in;
    src.batch = tgt_in.batch = static_cast<std::int64_t>(end - start);
    for (std::size_t k = start; k < end; ++k) {
      src.len = std::max<std::int64_t>(src.len, static_cast<std::int64_t>(src_ids[order[k]].size()));
      tgt_in.len =
          std::max<std::int64_t>(tgt_in.len, static_cast<std::int64_t>(tgt_ids[order[k]].size()));
    }
    src.ids.assign(static_cast<std::size_t>(src.batch * src.len), kPad);
    tgt_in.ids.assign(static_cast<std::size_t>(tgt_in.batch * tgt_in.len), kPad);
    for (std::size_t k = start; k < end; ++k) {
      const auto row = static_cast<std::ptrdiff_t>(k - start);
      const auto& s = src_ids[order[k]];
      const auto& t = tgt_ids[order[k]];  // y_1..y_n, y_n = EOS; fed as BOS y_1..y_{n-1}
      std::copy(s.begin(), s.end(), src.ids.begin() + row * src.len);
      tgt_in.ids[static_cast<std::size_t>(row * tgt_in.len)] = kBos;
      std::copy(t.begin(), t.end() - 1, tgt_in.ids.begin() + row * tgt_in.len + 1);
      src.lengths.push_back(static_cast<std::int64_t>(s.size()));
      tgt_in.lengths.push_back(static_cast<std::int64_t>(t.size()));
    }
    if (decoder_->copies()) {  // copy attention's maps, from the source pieces
      src.copy_ids.assign(src.ids.size(), kPad);
      for (std::size_t k = start; k < end; ++k) {
        const std::vector<std::string>& sp = out[order[k]].source;  // with "</s>"
        const CopyMap map = make_copy_map({sp.begin(), sp.end() - 1}, true, first.tgt_vocab);
        std::copy(map.source.begin(), map.source.end(),
                  src.copy_ids.begin() + static_cast<std::ptrdiff_t>(k - start) * src.len);
        src.extended = std::max(src.extended, static_cast<std::int64_t>(map.words.size()));
      }
    }
    // Each sentence's |target| x |source| block of a (B, n, m) array.
    auto cut = [&](const auto& all, std::size_t k, std::vector<float>& into) {
      const ForcedAlignment& f = out[order[k]];
      const std::size_t rows = f.target.size(), cols = f.source.size();
      const auto base = (k - start) * static_cast<std::size_t>(tgt_in.len * src.len);
      into.reserve(rows * cols);
      for (std::size_t t = 0; t < rows; ++t)
        for (std::size_t j = 0; j < cols; ++j)
          into.push_back(static_cast<float>(all[base + t * static_cast<std::size_t>(src.len) + j]));
    };
    if (has_attention()) {
      NoGradGuard no_grad;
      Tensor alphas;  // (B, n, m)
      decoder_->forward(src, tgt_in, &alphas);
      HEED_CHECK(alphas.defined() && alphas.ndim() == 3 && alphas.dim(0) == src.batch &&
                     alphas.dim(1) == tgt_in.len && alphas.dim(2) == src.len,
                 "align: the model gave no attention of shape (", src.batch, ", ", tgt_in.len,
                 ", ", src.len, ")");
      const std::vector<float> all = attention_weights(alphas.contiguous());
      for (std::size_t k = start; k < end; ++k) cut(all, k, out[order[k]].attention);
      // Every layer's heads, each (B, H, rows, cols): sentence k's block of head h is cut
      // from that head's (B, rows, cols), |target| or |source| rows and columns.
      const AttentionHeads heads = decoder_->attention_heads(src, tgt_in);
      const auto cut_heads = [&](const std::vector<Tensor>& layers, bool target_rows,
                                 bool target_cols,
                                 std::vector<std::vector<float>> ForcedAlignment::*into) {
        for (const Tensor& layer : layers) {
          const std::int64_t H = layer.dim(1), R = layer.dim(2), C = layer.dim(3);
          for (std::int64_t h = 0; h < H; ++h) {
            const std::vector<float> head = attention_weights(layer.select(1, h).contiguous());
            for (std::size_t k = start; k < end; ++k) {
              ForcedAlignment& f = out[order[k]];
              if (h == 0) (f.*into).emplace_back();
              f.head_count = H;
              const std::size_t rows = target_rows ? f.target.size() : f.source.size();
              const std::size_t cols = target_cols ? f.target.size() : f.source.size();
              const auto base = (k - start) * static_cast<std::size_t>(R * C);
              std::vector<float>& v = (f.*into).back();
              for (std::size_t t = 0; t < rows; ++t)
                for (std::size_t j = 0; j < cols; ++j)
                  v.push_back(head[base + t * static_cast<std::size_t>(C) + j]);
            }
          }
        }
      };
      cut_heads(heads.cross, true, false, &ForcedAlignment::heads);
      cut_heads(heads.decoder_self, true, true, &ForcedAlignment::decoder_heads);
      cut_heads(heads.encoder_self, false, false, &ForcedAlignment::encoder_heads);
    }
    if (saliency) {
      std::vector<std::int32_t> tgt_out(static_cast<std::size_t>(tgt_in.batch * tgt_in.len), kPad);
      for (std::size_t k = start; k < end; ++k) {
        const auto& t = tgt_ids[order[k]];
        std::copy(t.begin(), t.end(), tgt_out.begin() + static_cast<std::ptrdiff_t>(k - start) * tgt_in.len);
      }
      const Saliency sal = decoder_->saliency(src, tgt_in, tgt_out);
      for (std::size_t k = start; k < end; ++k) {
        cut(sal.norm, k, out[order[k]].saliency);
        cut(sal.grad_x_input, k, out[order[k]].grad_x_input);
      }
    }
    done += end - start;
    if (progress) progress(done, sources.size());
  }
  return out;
}

}  // namespace heed
