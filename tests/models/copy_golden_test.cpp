// Copy attention against the PyTorch reference (tests/golden/copy_bahdanau.safetensors and
// copy_transformer.safetensors, written by tools/make_copy_goldens.py from
// tools/reference/copy.py): the same weights,
// loaded by name, give the same extended distribution, p_gen, loss and parameter gradients,
// under teacher forcing and step by step.
#include <gtest/gtest.h>

#include <cmath>

#include "heed/autograd/copy_loss_op.h"
#include "heed/autograd/tape.h"
#include "heed/models/model_registry.h"
#include "heed/models/pointer_generator.h"
#include "heed/store/checkpoint.h"
#include "support/golden.h"

namespace heed {
namespace {

using testing::expect_close_to_golden;
using testing::golden_group;
using testing::golden_ints;
using testing::golden_token_batch;
using testing::load_golden;

// Probabilities: log P is -inf where a sentence cannot produce an extended id.
Tensor probs(const Tensor& log_p) {
  std::vector<double> v = log_p.to_vector();
  for (double& x : v) x = std::exp(x);
  return Tensor::from(log_p.shape(), v, DType::f64);
}

std::vector<std::int32_t> ints32(const Tensor& t) {
  std::vector<std::int32_t> out;
  for (std::int64_t v : golden_ints(t)) out.push_back(static_cast<std::int32_t>(v));
  return out;
}

// The case's model (its constructor in the golden's metadata, with the gate) against it.
void check_case(const std::string& name) {
  const SafeTensorsFile g = load_golden(name);
  ModelConfig c = testing::golden_model_config(g);
  c.copy = true;
  Rng rng(1);
  std::unique_ptr<Seq2Seq> model = make_model(c, rng, DType::f64);
  load_into(*model, golden_group(g, "param."), name);
  model->eval();

  TokenBatch src = golden_token_batch(g.get("in.src"), golden_ints(g.get("in.src_len")));
  src.copy_ids = ints32(g.get("in.copy_ids"));
  src.extended = golden_ints(g.get("in.extended")).at(0);
  ASSERT_EQ(src.extended, 3);
  const std::vector<std::int32_t> tgt_out = ints32(g.get("in.tgt_out"));
  std::vector<std::int64_t> tgt_len;
  const std::int64_t n = g.get("in.tgt_out").dim(1);
  for (std::int64_t b = 0; b < src.batch; ++b) {
    std::int64_t len = 0;
    while (len < n && tgt_out[static_cast<std::size_t>(b * n + len)] != kPad) ++len;
    tgt_len.push_back(len);
  }
  const TokenBatch tgt_in = golden_token_batch(g.get("in.tgt_in"), tgt_len);

  model->zero_grad();
  const CopyOutputs o = model->forward_copy(src, tgt_in);
  const std::vector<std::int32_t> ids = copy_ids_of_rows(src, tgt_in);
  Var loss = copy_loss_with_count(o.logits, o.gate, o.alpha, ids, pack_targets(tgt_out, tgt_in),
                                  src.extended, kPad).loss;
  expect_close_to_golden(loss.value().reshape({1}), g.get("out.loss"), "loss", 1e-9);
  Tape::current().backward(loss);
  for (const auto& [name, p] : model->named_parameters())
    expect_close_to_golden(p.grad(), g.get("grad." + name), "grad." + name, 1e-9);

  // The distribution and p_gen at the real positions, teacher forced and step by step.
  const std::vector<std::int64_t> rows = target_rows(tgt_in);
  const Tensor& ref_probs = g.get("out.probs");  // (B, n, V + K)
  const Tensor& ref_pgen = g.get("out.p_gen");      // (B, n)
  const Tensor ref_rows = ref_probs.reshape({src.batch * n, ref_probs.dim(2)});
  NoGradGuard no_grad;
  const Tensor logp = copy_log_probs(o.logits.value(), o.gate.value(), o.alpha.value(), ids, 3);
  Encoded enc = model->encode(src);
  DecoderState state = model->initial_state(enc);
  for (std::int64_t t = 0; t < n; ++t) {
    std::vector<std::int32_t> y;
    for (std::int64_t b = 0; b < src.batch; ++b) y.push_back(tgt_in.ids[static_cast<std::size_t>(b * n + t)]);
    const StepOutput s = model->step(y, state, enc);
    for (std::size_t r = 0; r < rows.size(); ++r) {
      if (rows[r] % n != t) continue;
      const std::int64_t b = rows[r] / n;
      const std::string at = "(" + std::to_string(b) + ", " + std::to_string(t) + ")";
      const Tensor want = ref_rows.select(0, rows[r]).contiguous();
      expect_close_to_golden(probs(logp.select(0, static_cast<std::int64_t>(r)).contiguous()), want,
                             "P " + at, 1e-9);
      expect_close_to_golden(probs(s.logits.value().select(0, b).contiguous()), want,
                             "step P " + at, 1e-9);
      EXPECT_NEAR(s.p_gen.value().at({b}), ref_pgen.at({b, t}), 1e-9) << at;
    }
  }
}

// copy.CopyBahdanau(11, 13, emb_dim=5, enc_hidden=4, dec_hidden=6, attn_dim=5, out_dim=7)
TEST(CopyGolden, BahdanauWithCopyAttention) { check_case("copy_bahdanau"); }

// copy.CopyTransformer(11, 13, d_model=6, heads=2, ff_dim=8, enc_layers=1, dec_layers=2): the
// gate reads the decoder's output, alpha is the last layer's heads averaged, and the loss's
// gradient reaches the attention through the weights (multi_head_attention_with_weights).
TEST(CopyGolden, TransformerWithCopyAttention) { check_case("copy_transformer"); }

}  // namespace
}  // namespace heed
