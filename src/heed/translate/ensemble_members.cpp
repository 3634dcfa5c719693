#include "heed/translate/ensemble_members.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "heed/base/error.h"
#include "heed/decode/ensemble.h"

namespace fs = std::filesystem;

namespace heed {
namespace {

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The same tokens, perhaps in another order.
bool same_tokens(const Vocabulary& a, const Vocabulary& b) {
  if (a.size() != b.size()) return false;
  for (const std::string& t : a.tokens())
    if (!b.contains(t)) return false;
  return true;
}

}  // namespace

void check_same_side(const char* side, const Tokenizer& ta, const Vocabulary& va,
                     const std::string& name_a, const Tokenizer& tb, const Vocabulary& vb,
                     const std::string& name_b, const char* spm_file, bool reordered_ok) {
  HEED_CHECK(ta.name() == tb.name() && ta.lowercase() == tb.lowercase(),
             "cannot ensemble ", name_a, " and ", name_b, ": their ", side, " tokenisers differ (",
             ta.name(), ta.lowercase() ? " lowercased" : "", " vs ", tb.name(),
             tb.lowercase() ? " lowercased" : "", ")");
  if (ta.kind() == TokenizerKind::sentencepiece) {
    const std::string pa = path_in(name_a, spm_file), pb = path_in(name_b, spm_file);
    if (fs::exists(pa) && fs::exists(pb))
      HEED_CHECK(file_bytes(pa) == file_bytes(pb), "cannot ensemble ", name_a, " and ", name_b,
                 ": their ", side, " SentencePiece models (", spm_file, ") differ");
  }
  if (va == vb || (reordered_ok && same_tokens(va, vb))) return;
  const char* file =
      spm_file == model_files::kSrcSpm ? model_files::kSrcVocab : model_files::kTgtVocab;
  std::string diff;
  const std::size_t common = std::min(va.size(), vb.size());
  std::size_t i = 0;
  while (i < common && va.tokens()[i] == vb.tokens()[i]) ++i;
  if (i < common)
    diff = detail::concat("first at line ", i + 1, " of ", file, ": '", va.tokens()[i], "' in ",
                          name_a, ", '", vb.tokens()[i], "' in ", name_b);
  else
    diff = detail::concat(va.size() < vb.size() ? name_b : name_a, "'s ", file, " has ",
                          std::max(va.size(), vb.size()) - common, " more tokens, from line ",
                          common + 1);
  throw Error(detail::concat("cannot ensemble ", name_a, " and ", name_b, ": their ", side,
                             " vocabularies differ (", va.size(), " and ", vb.size(),
                             " tokens; ", diff, "); ensemble members must be trained on the same ",
                             reordered_ok ? "tokens (in any order)" : "vocabularies"));
}

void check_same_target(const LoadedModel& a, const std::string& name_a, const LoadedModel& b,
                       const std::string& name_b) {
  check_same_side("target", *a.tgt_tokenizer, a.tgt_vocab, name_a, *b.tgt_tokenizer, b.tgt_vocab,
                  name_b, model_files::kTgtSpm, true);
  HEED_CHECK(a.config.training.dtype == b.config.training.dtype, "cannot ensemble ", name_a,
             " and ", name_b, ": one computes in ", a.config.training.dtype, ", the other in ",
             b.config.training.dtype);
}

std::shared_ptr<const Seq2Seq> decoder_of(const std::vector<LoadedModel>& models,
                                          const std::optional<ComputeType>& type) {
  HEED_CHECK(!models.empty() && models.front().model, "decoder_of: no model loaded");
  const auto lend = [](const LoadedModel& m) {
    return std::shared_ptr<const Seq2Seq>(m.model.get(), [](const Seq2Seq*) {});
  };
  if (models.size() == 1) return lend(models.front());
  std::vector<std::shared_ptr<const Seq2Seq>> members;
  std::vector<std::vector<std::int32_t>> target_ids;  // a member's ids of the first's tokens
  const Vocabulary& first = models.front().tgt_vocab;
  for (const auto& m : models) {
    members.push_back(lend(m));
    std::vector<std::int32_t>& ids = target_ids.emplace_back();
    if (m.tgt_vocab == first) continue;
    for (const std::string& t : first.tokens()) ids.push_back(m.tgt_vocab.id(t));
  }
  auto ensemble = std::make_shared<Ensemble>(std::move(members), std::move(target_ids));
  if (type) ensemble->set_compute_type(*type);
  return ensemble;
}

}  // namespace heed
