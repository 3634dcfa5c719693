#include "support/golden.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include "heed/autograd/elementwise_op.h"
#include "heed/autograd/reduce_op.h"
#include "heed/autograd/tape.h"
#include "heed/base/error.h"
#include "heed/store/checkpoint.h"

namespace heed::testing {

SafeTensorsFile load_golden(const std::string& name) {
  return load_safetensors(std::string(HEED_GOLDEN_DIR) + "/" + name + ".safetensors");
}

std::vector<std::string> golden_names(const std::string& prefix) {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::directory_iterator(HEED_GOLDEN_DIR)) {
    const std::filesystem::path& p = entry.path();
    const std::string stem = p.stem().string();
    if (p.extension() == ".safetensors" && stem.rfind(prefix, 0) == 0) out.push_back(stem);
  }
  std::sort(out.begin(), out.end());
  return out;
}

NamedTensors golden_group(const SafeTensorsFile& golden, const std::string& prefix) {
  NamedTensors out;
  for (const auto& [name, t] : golden.tensors)
    if (name.rfind(prefix, 0) == 0) out.emplace_back(name.substr(prefix.size()), t);
  return out;
}

::testing::AssertionResult close_to_golden(const Tensor& actual, const Tensor& ref,
                                           const std::string& name, double tol) {
  if (!actual.defined()) return ::testing::AssertionFailure() << name << ": undefined tensor";
  if (actual.shape() != ref.shape())
    return ::testing::AssertionFailure()
           << name << ": shape " << actual.shape().str() << ", golden " << ref.shape().str();
  const auto a = actual.to_vector();
  const auto b = ref.to_vector();
  double ref_max = 0.0;
  for (double v : b) ref_max = std::max(ref_max, std::abs(v));
  const double bound = tol * (1.0 + ref_max);
  double worst = 0.0;
  std::size_t worst_i = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double d = std::abs(a[i] - b[i]);
    if (!(d <= worst)) {  // NaN counts as the worst
      worst = d;
      worst_i = i;
    }
  }
  if (worst <= bound) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << name << ": max |actual - golden| = " << worst << " > " << bound << " at flat index "
         << worst_i << " (actual " << a[worst_i] << ", golden " << b[worst_i] << ")";
}

void expect_close_to_golden(const Tensor& actual, const Tensor& ref, const std::string& name,
                            double tol) {
  EXPECT_TRUE(close_to_golden(actual, ref, name, tol));
}

double max_abs_diff(const Tensor& a, const Tensor& b) {
  const auto x = a.to_vector(), y = b.to_vector();
  double worst = 0.0;
  for (std::size_t i = 0; i < x.size() && i < y.size(); ++i)
    worst = std::max(worst, std::abs(x[i] - y[i]));
  return worst;
}

double golden_tolerance(DType dtype) { return dtype == DType::f64 ? 1e-9 : 1e-5; }

// ---- GoldenCase

GoldenCase::GoldenCase(const std::string& name, DType dtype)
    : name_(name), dtype_(dtype), golden_(load_golden(name)) {
  Tape::current().clear();
}

Var GoldenCase::input(const std::string& name) {
  Var v(golden_.get("in." + name).to(dtype_), true);
  inputs_.emplace_back(name, v);
  return v;
}

void GoldenCase::load(Module& module) {
  load_into(module, golden_group(golden_, "param."), name_);
  module_ = &module;
}

void GoldenCase::check(const std::vector<std::pair<std::string, Var>>& outputs) {
  const double tol = golden_tolerance(dtype_);
  double out_err = 0.0, grad_err = 0.0;
  ASSERT_NE(module_, nullptr) << name_ << ": load() the module before check()";
  ASSERT_EQ(outputs.size(), golden_group(golden_, "out.").size()) << name_;
  std::vector<Var> terms;
  for (const auto& [name, v] : outputs) {
    const Tensor& ref = golden_.get("out." + name);
    EXPECT_TRUE(close_to_golden(v.value(), ref, name_ + " out." + name, tol));
    out_err = std::max(out_err, max_abs_diff(v.value(), ref));
    terms.push_back(sum(mul(v, Var(golden_.get("seed." + name).to(dtype_)))));
  }
  Var loss = add_n(terms);
  Tape::current().backward(loss);

  std::map<std::string, Var> wrt(inputs_.begin(), inputs_.end());
  for (const auto& [name, v] : module_->named_parameters()) wrt.emplace(name, v);
  const NamedTensors grads = golden_group(golden_, "grad.");
  ASSERT_EQ(grads.size(), wrt.size()) << name_ << ": a gradient is missing on one side";
  for (const auto& [name, ref] : grads) {
    auto it = wrt.find(name);
    ASSERT_NE(it, wrt.end()) << name_ << ": golden gradient of unknown " << name;
    ASSERT_TRUE(it->second.has_grad()) << name_ << ": no gradient reached " << name;
    EXPECT_TRUE(close_to_golden(it->second.grad(), ref, name_ + " grad." + name, tol));
    grad_err = std::max(grad_err, max_abs_diff(it->second.grad(), ref));
  }
  std::printf("[golden] %-28s %s  max |out - ref| %.3g  max |grad - ref| %.3g\n", name_.c_str(),
              std::string(dtype_name(dtype_)).c_str(), out_err, grad_err);
}

// ---- model goldens

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(' ');
  const auto e = s.find_last_not_of(' ');
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::string unquote(const std::string& v) {
  if (v.size() >= 2 && (v.front() == '\'' || v.front() == '"') && v.back() == v.front())
    return v.substr(1, v.size() - 2);
  return v;
}

}  // namespace

ModelConfig golden_model_config(const SafeTensorsFile& golden) {
  auto it = golden.metadata.find("module");
  HEED_CHECK(it != golden.metadata.end(), golden.path, ": no 'module' in the metadata");
  const std::string& call = it->second;
  const std::string open = "build_model(";
  const auto b = call.find(open);
  const auto e = call.find(')', b);
  HEED_CHECK(b != std::string::npos && e != std::string::npos, golden.path,
             ": cannot read the constructor '", call, "'");
  std::vector<std::string> args;
  std::string rest = call.substr(b + open.size(), e - b - open.size());
  for (std::size_t p; (p = rest.find(',')) != std::string::npos; rest.erase(0, p + 1))
    args.push_back(trim(rest.substr(0, p)));
  args.push_back(trim(rest));

  ModelConfig c;
  c.kind = parse_enum<ModelKind>(unquote(args.at(0)), "reference model");
  // The reference constructors' defaults (tools/reference/models.py) where heed's differ.
  if (c.kind == ModelKind::luong) {
    c.emb_dim = 256;
    c.enc_hidden = c.dec_hidden = 256;
    c.enc_layers = c.dec_layers = 2;
    c.bidirectional = false;
    c.score = AttentionScore::general;
  } else if (c.kind == ModelKind::transformer) {
    c.enc_layers = c.dec_layers = 1;  // tools/reference/transformer.py
  } else {
    c.attn_dim = 256;
  }
  auto as_int = [&](const std::string& v) { return static_cast<std::int64_t>(std::stoll(v)); };
  auto as_bool = [&](const std::string& key, const std::string& v) {
    HEED_CHECK(v == "True" || v == "False", golden.path, ": ", key, "=", v, " is not a bool");
    return v == "True";
  };
  for (std::size_t i = 1; i < args.size(); ++i) {
    const auto eq = args[i].find('=');
    HEED_CHECK(eq != std::string::npos, golden.path, ": argument '", args[i], "' has no value");
    const std::string key = trim(args[i].substr(0, eq)), v = unquote(trim(args[i].substr(eq + 1)));
    if (key == "src_vocab")
      c.src_vocab = as_int(v);
    else if (key == "tgt_vocab")
      c.tgt_vocab = as_int(v);
    else if (key == "emb_dim")
      c.emb_dim = as_int(v);
    else if (key == "enc_hidden")
      c.enc_hidden = as_int(v);
    else if (key == "dec_hidden")
      c.dec_hidden = as_int(v);
    else if (key == "hidden")
      c.enc_hidden = c.dec_hidden = as_int(v);
    else if (key == "layers")
      c.enc_layers = c.dec_layers = as_int(v);
    else if (key == "attn_dim")
      c.attn_dim = as_int(v);
    else if (key == "out_dim")
      c.out_dim = as_int(v);
    else if (key == "score")
      c.score = parse_enum<AttentionScore>(v, "score");
    else if (key == "input_feed")
      c.input_feed = as_bool(key, v);
    else if (key == "bidirectional")
      c.bidirectional = as_bool(key, v);
    else if (key == "local_p")
      c.local_p = as_bool(key, v);
    else if (key == "window")
      c.window = as_int(v);
    else if (key == "max_src_len")
      c.max_src_len = as_int(v);
    else if (key == "location_filters")
      c.location_filters = as_int(v);
    else if (key == "location_width")
      c.location_width = as_int(v);
    else if (key == "coverage")
      c.coverage = as_bool(key, v);
    else if (key == "d_model")
      c.transformer.d_model = as_int(v);
    else if (key == "heads")
      c.transformer.heads = as_int(v);
    else if (key == "ff_dim")
      c.transformer.ff_dim = as_int(v);
    else if (key == "enc_layers")
      c.enc_layers = as_int(v);
    else if (key == "dec_layers")
      c.dec_layers = as_int(v);
    else if (key == "norm")
      c.transformer.norm = parse_enum<NormPlacement>(v, "norm");
    else if (key == "positions")
      c.transformer.positions = parse_enum<PositionEncoding>(v, "positions");
    else if (key == "max_positions")
      c.transformer.max_positions = as_int(v);
    else if (key == "alignment_layer")
      c.transformer.alignment_layer = as_int(v);
    else if (key == "alignment_head")
      c.transformer.alignment_head = as_int(v);
    else if (key == "tie_embeddings")
      c.tie_embeddings = as_bool(key, v);
    else if (key == "share_embeddings")
      c.transformer.share_embeddings = as_bool(key, v);
    else
      throw Error(golden.path + ": unknown constructor argument '" + key + "'");
  }
  return c;
}

std::vector<std::int64_t> golden_ints(const Tensor& t) {
  std::vector<std::int64_t> out;
  for (double v : t.to_vector()) out.push_back(static_cast<std::int64_t>(v));
  return out;
}

TokenBatch golden_token_batch(const Tensor& ids, const std::vector<std::int64_t>& lengths) {
  TokenBatch b;
  b.batch = ids.dim(0);
  b.len = ids.dim(1);
  for (double v : ids.to_vector()) b.ids.push_back(static_cast<std::int32_t>(v));
  b.lengths = lengths;
  return b;
}

}  // namespace heed::testing
