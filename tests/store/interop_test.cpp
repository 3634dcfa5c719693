// heed <-> PyTorch (store/interop.h, docs/INTEROP.md). The fixtures
// tests/golden/interop_<case>.safetensors were saved by PyTorch (tools/heed_torch.py, written
// by tools/make_interop_fixtures.py) from the reference model of every model golden, in F32,
// F64, BF16 or F16; importing each through import_model and running heed's forward must give
// the reference's logits (interop_<case>.logits.safetensors). The image kinds (fc, cnn, ram,
// image2seq; tools/reference/images.py) have fixtures of their own, whose logits files hold
// the images (and image2seq's decoder inputs), and so has the memory network (memn2n;
// tools/reference/memory.py), whose logits files hold a batch of stories and every hop's
// attention, and the speech model (las; tools/reference/speech.py), whose logits files hold a
// batch of frames and the reference's loss and its gradient for every parameter. Then export -> import keeps every weight bit for bit, and bad states are
// refused with messages that say what is wrong.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "heed/autograd/cross_entropy_op.h"
#include "heed/autograd/tape.h"
#include "heed/base/error.h"
#include "heed/models/image_encoder.h"
#include "heed/models/listener.h"
#include "heed/models/model_registry.h"
#include "heed/store/checkpoint.h"
#include "heed/store/interop.h"
#include "heed/store/model_dir.h"
#include "heed/train/joint_ctc.h"
#include "support/golden.h"
#include "support/golden_memory_batch.h"

namespace heed {
namespace {

using testing::golden_names;
using testing::ScratchDir;

std::string fixture(const std::string& name) {
  return std::string(HEED_GOLDEN_DIR) + "/" + name + ".safetensors";
}

// The image kinds' fixtures (tools/make_interop_fixtures.py IMAGE_CASES): no model golden.
const std::vector<std::string> kImageFixtures = {
    "interop_cnn",   "interop_fc",       "interop_image2seq", "interop_image2seq_hard",
    "interop_image2seq_none", "interop_ram", "interop_ram_lstm"};

bool image_fixture(const std::string& name) {
  return std::find(kImageFixtures.begin(), kImageFixtures.end(), name) != kImageFixtures.end();
}

// The memory network's (MEMORY_CASES): with position and temporal encoding, and without.
const std::vector<std::string> kMemoryFixtures = {"interop_memn2n", "interop_memn2n_plain"};

bool memory_fixture(const std::string& name) {
  return std::find(kMemoryFixtures.begin(), kMemoryFixtures.end(), name) != kMemoryFixtures.end();
}

// The speech model's (SPEECH_CASES): an LSTM listener over a pyramid of 4, GRU ones over 2
// (one with a CTC head, one after a convolutional front end).
const std::vector<std::string> kSpeechFixtures = {"interop_las", "interop_las_ctc",
                                                  "interop_las_frontend", "interop_las_gru"};

bool speech_fixture(const std::string& name) {
  return std::find(kSpeechFixtures.begin(), kSpeechFixtures.end(), name) != kSpeechFixtures.end();
}

// The state fixtures (not the .logits files): one per model golden, then the image kinds' and
// the memory network's.
std::vector<std::string> state_fixtures() {
  std::vector<std::string> out;
  for (const std::string& n : golden_names("interop_"))
    if (n.find('.') == std::string::npos) out.push_back(n);
  return out;
}

// import_model of weights (its own metadata giving config and vocabularies) into out.
std::string import_file(const std::string& weights, const std::string& out) {
  ImportOptions o;
  o.weights = weights;
  o.out = out;
  import_model(o);
  return out;
}

// The message of the heed::Error that f throws ("" if none).
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_HAS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "expected '" << (part) << "' in: " << (text)

TEST(Interop, EveryModelGoldenHasAFixture) {
  std::vector<std::string> expected = kImageFixtures;
  expected.insert(expected.end(), kMemoryFixtures.begin(), kMemoryFixtures.end());
  expected.insert(expected.end(), kSpeechFixtures.begin(), kSpeechFixtures.end());
  for (const std::string& n : golden_names("models_"))
    expected.push_back("interop_" + n.substr(std::string("models_").size()));
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(state_fixtures(), expected);
  // Every image kind has one.
  std::set<std::string> kinds;
  for (const std::string& n : kImageFixtures)
    kinds.insert(load_safetensors(fixture(n)).metadata.at(interop_keys::kKind));
  EXPECT_EQ(kinds, (std::set<std::string>{"cnn", "fc", "image2seq", "ram"}));
  for (const std::string& n : kMemoryFixtures)
    EXPECT_EQ(load_safetensors(fixture(n)).metadata.at(interop_keys::kKind), "memn2n") << n;
  for (const std::string& n : kSpeechFixtures)
    EXPECT_EQ(load_safetensors(fixture(n)).metadata.at(interop_keys::kKind), "las") << n;
}

// The speech model of directory dir on a speech fixture's batch (check: its .logits file):
// the teacher-forced logits, the training loss (the mean cross-entropy; with model.ctc_weight
// lambda, (1 - lambda) times it plus lambda times the CTC loss of the head over the tokens)
// and its gradient for every parameter against the reference's. Returns the largest
// difference of the three.
double compare_speech_model(const std::string& dir, const SafeTensorsFile& check) {
  const LoadedModel m = load_speech_model_dir(dir, "best");
  const DType dtype = m.config.training.dtype;
  const Tensor& frames = check.get("in.frames");  // (B, T, F)
  const std::vector<std::int64_t> lengths = testing::golden_ints(check.get("in.frame_len"));
  std::vector<Tensor> utterances;
  for (std::int64_t b = 0; b < frames.dim(0); ++b)
    utterances.push_back(frames.select(0, b).slice(0, 0, lengths[static_cast<std::size_t>(b)])
                             .contiguous()
                             .to(dtype));
  const TokenBatch src = speech_batch(utterances, m.config.model.listener.reduction(), dtype);
  const TokenBatch tgt_in = testing::golden_token_batch(check.get("in.tgt_in"), {});
  std::vector<std::int32_t> tgt_out;
  for (std::int64_t id : testing::golden_ints(check.get("in.tgt_out")))
    tgt_out.push_back(static_cast<std::int32_t>(id));
  const double tol = testing::golden_tolerance(dtype);
  const double ctc_weight = m.config.model.listener.ctc_weight;
  Var ctc_logits;  // the head's, from the training pass (no dropout: the same logits)
  if (ctc_weight > 0) {
    m.model->train();
    m.model->set_ctc_trace(&ctc_logits);
  }
  Var logits = m.model->forward(src, tgt_in);
  const Tensor& ref = check.get("out.logits");
  EXPECT_EQ(logits.value().dtype(), dtype);
  testing::expect_close_to_golden(logits.value().reshape(ref.shape()), ref, "logits", tol);
  double worst = testing::max_abs_diff(logits.value().reshape(ref.shape()), ref);
  const CrossEntropyResult ce = cross_entropy_with_count(logits, tgt_out, kPad);
  Var loss = ce.loss;
  if (ctc_weight > 0)
    loss = joint_ctc_loss(loss, ctc_logits, src.lengths, tgt_out, tgt_in.len,
                          static_cast<double>(ce.count), ctc_weight);
  testing::expect_close_to_golden(loss.value().reshape({1}), check.get("out.loss").reshape({1}),
                                  "loss", tol);
  worst = std::max(worst, testing::max_abs_diff(loss.value().reshape({1}),
                                                check.get("out.loss").reshape({1})));
  Tape::current().backward(loss);
  std::size_t grads = 0;
  for (const auto& [name, p] : m.model->named_parameters()) {
    const Tensor& g = check.get("out.grad." + name);
    testing::expect_close_to_golden(p.grad(), g, "grad " + name, tol);
    worst = std::max(worst, testing::max_abs_diff(p.grad(), g));
    ++grads;
  }
  EXPECT_EQ(grads, load_safetensors(path_in(dir, model_files::kBest)).tensors.size());
  return worst;
}

// The memory network of model directory dir on a memory fixture's batch (check: its .logits
// file) against the reference's logits and every hop's attention. Returns the largest
// difference of either.
double compare_memory_network(const std::string& dir, const SafeTensorsFile& check) {
  NoGradGuard no_grad;
  const LoadedMemoryModel m = load_memory_model_dir(dir, "best");
  const DType dtype = m.config.training.dtype;
  const MemoryAnswer a = m.model->forward(testing::golden_memory_batch(check));
  const Tensor& ref = check.get("out.logits");
  EXPECT_EQ(a.logits.value().dtype(), dtype);
  const double tol = testing::golden_tolerance(dtype);
  testing::expect_close_to_golden(a.logits.value(), ref, "logits", tol);
  double worst = testing::max_abs_diff(a.logits.value(), ref);
  const Tensor& p = check.get("out.p");  // (K, B, S)
  EXPECT_EQ(static_cast<std::int64_t>(a.attention.size()), p.dim(0));
  const std::vector<double> all = p.to_vector();
  const auto per_hop = static_cast<std::ptrdiff_t>(p.dim(1) * p.dim(2));
  for (std::size_t k = 0; k < a.attention.size() && static_cast<std::int64_t>(k) < p.dim(0); ++k) {
    const auto begin = all.begin() + static_cast<std::ptrdiff_t>(k) * per_hop;
    const Tensor hop = Tensor::from({p.dim(1), p.dim(2)}, {begin, begin + per_hop}, DType::f64);
    testing::expect_close_to_golden(a.attention[k], hop, "p hop " + std::to_string(k + 1), tol);
    worst = std::max(worst, testing::max_abs_diff(a.attention[k].to(DType::f64), hop));
  }
  return worst;
}

// The logits heed computes for an image fixture's inputs (check: its .logits file) with the
// model directory dir: a classifier's test pass (ram: the mean locations), image2seq's
// teacher-forced forward. dtype: the model's.
Tensor image_logits(const std::string& dir, const SafeTensorsFile& check, DType* dtype) {
  NoGradGuard no_grad;
  const ModelKind kind = load_model_config(dir).model.kind;
  Rng rng(1);
  if (classifies_images(kind)) {
    const LoadedImageModel m = load_image_model_dir(dir, "best");
    *dtype = m.config.training.dtype;
    return m.model->test_logits(Var(check.get("in.images").to(*dtype)), rng).value();
  }
  const LoadedModel m = load_image_sequence_model_dir(dir, "best");
  *dtype = m.config.training.dtype;
  const TokenBatch src = image_source(check.get("in.images").to(*dtype), m.config.model.image);
  const TokenBatch tgt_in = testing::golden_token_batch(check.get("in.tgt_in"), {});
  return m.model->forward(src, tgt_in).value();
}

// PyTorch -> heed: the fixture's state through the import code path, then heed's forward on
// the fixture's batch against the reference's logits.
TEST(Interop, ImportedPyTorchStatesGiveTheReferenceLogits) {
  ScratchDir dir("heed_interop");
  for (const std::string& name : state_fixtures()) {
    SCOPED_TRACE(name);
    if (memory_fixture(name)) {
      const std::string imported = import_file(fixture(name), dir.path(name));
      const double worst = compare_memory_network(imported, testing::load_golden(name + ".logits"));
      std::printf("[interop] %-28s heed %s  max |logits, p - pytorch| %.3g\n", name.c_str(),
                  std::string(enum_name(load_model_config(imported).training.dtype)).c_str(),
                  worst);
      continue;
    }
    if (speech_fixture(name)) {
      const std::string imported = import_file(fixture(name), dir.path(name));
      const double worst = compare_speech_model(imported, testing::load_golden(name + ".logits"));
      std::printf("[interop] %-28s heed %s  max |logits, loss, grad - pytorch| %.3g\n",
                  name.c_str(),
                  std::string(enum_name(load_model_config(imported).training.dtype)).c_str(),
                  worst);
      continue;
    }
    if (image_fixture(name)) {
      const std::string imported = import_file(fixture(name), dir.path(name));
      const SafeTensorsFile check = testing::load_golden(name + ".logits");
      DType dtype = DType::f32;
      const Tensor logits = image_logits(imported, check, &dtype);
      const Tensor& ref = check.get("out.logits");
      EXPECT_EQ(logits.dtype(), dtype);
      testing::expect_close_to_golden(logits.reshape(ref.shape()), ref, "logits",
                                      testing::golden_tolerance(dtype));
      std::printf("[interop] %-28s heed %s  max |logits - pytorch| %.3g\n", name.c_str(),
                  std::string(enum_name(dtype)).c_str(),
                  testing::max_abs_diff(logits.reshape(ref.shape()), ref));
      continue;
    }
    const LoadedModel m = load_model_dir(import_file(fixture(name), dir.path(name)), "best");
    const SafeTensorsFile check = testing::load_golden(name + ".logits");
    const auto src_len = testing::golden_ints(check.get("in.src_len"));
    const TokenBatch src = testing::golden_token_batch(check.get("in.src"), src_len);
    const TokenBatch tgt_in = testing::golden_token_batch(check.get("in.tgt_in"), {});
    NoGradGuard no_grad;
    const Var logits = m.model->forward(src, tgt_in);
    const Tensor& ref = check.get("out.logits");
    const DType dtype = m.config.training.dtype;
    EXPECT_EQ(logits.value().dtype(), dtype);
    testing::expect_close_to_golden(logits.value().reshape(ref.shape()), ref, "logits",
                                    testing::golden_tolerance(dtype));
    std::printf("[interop] %-28s heed %s  max |logits - pytorch| %.3g\n", name.c_str(),
                std::string(enum_name(dtype)).c_str(),
                testing::max_abs_diff(logits.value().reshape(ref.shape()), ref));
  }
}

// PyTorch -> heed -> file -> heed: the imported weights are the state's (in the model's
// dtype), every tensor of the re-imported directory equals the exported model's bit for bit,
// and the export's metadata describes the model.
TEST(Interop, ExportThenImportKeepsEveryBit) {
  ScratchDir dir("heed_interop");
  for (const std::string& name : state_fixtures()) {
    SCOPED_TRACE(name);
    const std::string first = import_file(fixture(name), dir.path(name + "_a"));
    ExportOptions e;
    e.dir = first;
    e.out = dir.path(name + ".export.safetensors");
    EXPECT_EQ(export_model(e), load_safetensors(path_in(first, model_files::kBest)).tensors.size());

    const SafeTensorsFile exported = load_safetensors(e.out);
    const Metadata& meta = exported.metadata;
    EXPECT_EQ(meta.at(interop_keys::kFormat), kExportFormat);
    const TrainConfig config = load_model_config(first);
    EXPECT_EQ(meta.at(interop_keys::kKind), enum_name(config.model.kind));
    EXPECT_EQ(meta.at(interop_keys::kDtype), enum_name(config.training.dtype));
    const auto model_json = nlohmann::json::parse(meta.at(interop_keys::kModelConfig));
    EXPECT_EQ(model_json.at("kind").get<std::string>(), enum_name(config.model.kind));
    EXPECT_EQ(model_json.at("src_vocab").get<std::int64_t>(), config.model.src_vocab);
    EXPECT_EQ(model_json.at("tgt_vocab").get<std::int64_t>(), config.model.tgt_vocab);
    EXPECT_EQ(model_json.at("emb_dim").get<std::int64_t>(), config.model.emb_dim);
    EXPECT_EQ(model_json.at("input_feed").get<bool>(), config.model.input_feed);
    EXPECT_EQ(model_json.at("dropout").get<double>(), config.model.dropout);
    EXPECT_EQ(model_json.at("attention").at("mode").get<std::string>(),
              enum_name(config.model.attention_mode));
    EXPECT_EQ(model_json.at("glimpse_size").get<std::int64_t>(), config.model.ram.glimpse_size);
    EXPECT_EQ(model_json.at("core").get<std::string>(), enum_name(config.model.ram.core));
    EXPECT_EQ(model_json.at("image_height").get<std::int64_t>(),
              config.model.classifier.image_height);
    EXPECT_EQ(model_json.at("conv_channels").get<std::int64_t>(), config.model.image.conv_channels);
    EXPECT_EQ(model_json.at("hops").get<std::int64_t>(), config.model.memory.hops);
    EXPECT_EQ(model_json.at("memory_size").get<std::int64_t>(), config.model.memory.memory_size);
    EXPECT_EQ(model_json.at("temporal_encoding").get<bool>(),
              config.model.memory.temporal_encoding);
    // A memory network's one vocabulary under both keys.
    if (memory_fixture(name)) {
      EXPECT_EQ(meta.at(interop_keys::kSrcVocab), meta.at(interop_keys::kTgtVocab));
    }
    // An image or speech kind has no source side: no src.vocab, no heed.src_vocab.
    const bool images = image_fixture(name) || speech_fixture(name);
    EXPECT_EQ(meta.count(interop_keys::kSrcVocab), images ? 0u : 1u);
    EXPECT_EQ(std::filesystem::exists(path_in(first, model_files::kSrcVocab)), !images);
    EXPECT_EQ(parse_train_config(meta.at(interop_keys::kConfig), "heed.config").model.score,
              config.model.score);

    const std::string second = import_file(e.out, dir.path(name + "_b"));
    EXPECT_EQ(std::filesystem::exists(path_in(second, model_files::kSrcVocab)), !images);
    const SafeTensorsFile given = load_safetensors(fixture(name));
    const SafeTensorsFile a = load_safetensors(path_in(first, model_files::kBest));
    const SafeTensorsFile b = load_safetensors(path_in(second, model_files::kBest));
    ASSERT_EQ(a.tensors.size(), b.tensors.size());
    for (std::size_t i = 0; i < a.tensors.size(); ++i) {
      const auto& [an, at] = a.tensors[i];
      const Tensor& bt = b.get(an);
      const Tensor& et = exported.get(an);
      ASSERT_EQ(at.dtype(), bt.dtype()) << an;
      ASSERT_EQ(at.dtype(), et.dtype()) << an;
      ASSERT_EQ(at.shape(), bt.shape()) << an;
      const std::size_t bytes = static_cast<std::size_t>(at.numel()) * dtype_size(at.dtype());
      // The imported weights are the state's, converted to the model's dtype.
      const Tensor want = given.get(an).to(at.dtype());
      EXPECT_EQ(std::memcmp(at.raw(), want.raw(), bytes), 0) << an << " is not the state's";
      EXPECT_EQ(std::memcmp(at.raw(), bt.raw(), bytes), 0) << an << " changed";
      EXPECT_EQ(std::memcmp(at.raw(), et.raw(), bytes), 0) << an << " changed";
    }
    for (const char* f : {model_files::kSrcVocab, model_files::kTgtVocab}) {
      std::ifstream x(path_in(first, f)), y(path_in(second, f));
      EXPECT_EQ(std::string(std::istreambuf_iterator<char>(x), {}),
                std::string(std::istreambuf_iterator<char>(y), {}))
          << f;
    }
  }
}

class InteropErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    file_ = load_safetensors(fixture("interop_luong_concat"));
    meta_ = file_.metadata;
  }
  // The fixture's state, changed by edit, written as a new file.
  template <typename F>
  std::string state(const std::string& name, F&& edit) {
    NamedTensors t = file_.tensors;
    edit(t);
    const std::string path = dir_.path(name + ".safetensors");
    save_safetensors(path, t, meta_);
    return path;
  }
  std::string import_error(const std::string& weights) {
    ImportOptions o;
    o.weights = weights;
    o.out = dir_.path("out");
    const std::string e = error_of([&] { import_model(o); });
    EXPECT_FALSE(std::filesystem::exists(o.out)) << "a failed import left " << o.out;
    for (const auto& entry : std::filesystem::directory_iterator(dir_.path()))
      EXPECT_EQ(entry.path().filename().string().find("out.import"), std::string::npos)
          << "a failed import left " << entry.path();
    return e;
  }

  ScratchDir dir_{"heed_interop_errors"};
  SafeTensorsFile file_;
  Metadata meta_;
};

TEST_F(InteropErrors, MissingNameListedWithItsShape) {
  const std::string e = import_error(state("missing", [](NamedTensors& t) {
    std::erase_if(t, [](const auto& p) { return p.first == "attention.v_a.weight"; });
  }));
  EXPECT_HAS(e, "missing.safetensors: the state does not match the model");
  EXPECT_HAS(e, "missing: attention.v_a.weight (1, 5)");
  EXPECT_HAS(e, "docs/INTEROP.md");
}

TEST_F(InteropErrors, UnexpectedNameListedWithItsShape) {
  const std::string e = import_error(state("extra", [](NamedTensors& t) {
    t.emplace_back("attention.W_q.weight", Tensor::zeros({5, 6}, DType::f32));
  }));
  EXPECT_HAS(e, "unexpected: attention.W_q.weight (5, 6)");
  EXPECT_EQ(e.find("missing:"), std::string::npos) << e;
}

TEST_F(InteropErrors, WrongShapeListedWithBothShapes) {
  const std::string e = import_error(state("shape", [](NamedTensors& t) {
    for (auto& [n, x] : t)
      if (n == "W_s.bias") x = Tensor::zeros({12}, DType::f32);
  }));
  EXPECT_HAS(e, "wrong shape: W_s.bias (12) where the model has (13)");
}

// An integer tensor (I64) loads as f64 in safetensors.h, so import reads the header's dtype.
TEST_F(InteropErrors, IntegerDtypeRefused) {
  const std::string path = state("ints", [](NamedTensors&) {});
  // Rewrite W_s.bias's dtype F32 -> I32 in place: same size, same offsets.
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  std::uint64_t n = 0;
  f.read(reinterpret_cast<char*>(&n), 8);
  std::string header(n, '\0');
  f.read(header.data(), static_cast<std::streamsize>(n));
  auto j = nlohmann::json::parse(header);
  j.erase("__metadata__");  // drops heed.checksum: the data changes meaning
  ASSERT_EQ(j["W_s.bias"]["dtype"], "F32");
  j["W_s.bias"]["dtype"] = "I32";
  std::string text = j.dump();
  ASSERT_LE(text.size(), n);
  text.resize(n, ' ');
  f.seekp(8);
  f.write(text.data(), static_cast<std::streamsize>(n));
  f.close();
  const std::string e = import_error(path);
  EXPECT_HAS(e, "ints.safetensors: tensor 'W_s.bias' is I32");
  EXPECT_HAS(e, "F32, F64, BF16, F16");
}

TEST_F(InteropErrors, DamagedFileNamed) {
  const std::string path = dir_.file("bad.safetensors", "not a safetensors file at all");
  EXPECT_HAS(import_error(path), "bad.safetensors");
  EXPECT_HAS(import_error(dir_.path("absent.safetensors")), "absent.safetensors");
}

TEST_F(InteropErrors, NoConfigNoVocabulary) {
  meta_.clear();
  const std::string bare = state("bare", [](NamedTensors&) {});
  EXPECT_HAS(import_error(bare), "has no heed.config metadata");
  ImportOptions o;
  o.weights = bare;
  o.config = dir_.file("config.yaml", file_.metadata.at(interop_keys::kConfig));
  o.out = dir_.path("out");
  EXPECT_HAS(error_of([&] { import_model(o); }), "has no heed.src_vocab metadata");
  // With every part given as a file, the bare state imports.
  o.src_vocab = dir_.file("src.vocab", file_.metadata.at(interop_keys::kSrcVocab));
  o.tgt_vocab = dir_.file("tgt.vocab", file_.metadata.at(interop_keys::kTgtVocab));
  EXPECT_NO_THROW(import_model(o));
  EXPECT_NO_THROW(load_model_dir(o.out));
}

TEST_F(InteropErrors, VocabularyOfTheWrongSize) {
  ImportOptions o;
  o.weights = fixture("interop_luong_concat");
  o.src_vocab = dir_.file("src.vocab", "<pad>\n<s>\n</s>\n<unk>\na\nb\n");
  o.out = dir_.path("out");
  const std::string e = error_of([&] { import_model(o); });
  EXPECT_HAS(e, "wrong shape: src_emb.weight (11, 5) where the model has (6, 5)");
  EXPECT_FALSE(std::filesystem::exists(o.out));
}

// The image kinds have no source side: a source vocabulary or SentencePiece model given for
// one is a mistake, said as such.
TEST_F(InteropErrors, SourceSideRefusedForAnImageKind) {
  for (const char* name : {"interop_ram", "interop_image2seq"}) {
    SCOPED_TRACE(name);
    ImportOptions o;
    o.weights = fixture(name);
    o.src_vocab = dir_.file("src.vocab", file_.metadata.at(interop_keys::kSrcVocab));
    o.out = dir_.path("out");
    std::string e = error_of([&] { import_model(o); });
    EXPECT_HAS(e, "reads images and has no source vocabulary");
    EXPECT_HAS(e, "--src-vocab");
    EXPECT_HAS(e, std::string(name) + ".safetensors (heed.config): model.kind ");
    EXPECT_FALSE(std::filesystem::exists(o.out));
    o.src_vocab.clear();
    o.tgt_spm = dir_.file("t.spm.model", "x");
    EXPECT_HAS(error_of([&] { import_model(o); }), "has no SentencePiece model");
    EXPECT_FALSE(std::filesystem::exists(o.out));
  }
}

// A ram state under a text model's config: every name listed, and the kinds named.
TEST_F(InteropErrors, ImageStateWithATextConfig) {
  ImportOptions o;
  o.weights = fixture("interop_ram");
  o.config = dir_.file("luong.yaml", file_.metadata.at(interop_keys::kConfig));
  o.src_vocab = dir_.file("src.vocab", file_.metadata.at(interop_keys::kSrcVocab));
  o.tgt_vocab = dir_.file("tgt.vocab", file_.metadata.at(interop_keys::kTgtVocab));
  o.out = dir_.path("out");
  const std::string e = error_of([&] { import_model(o); });
  EXPECT_HAS(e, "interop_ram.safetensors: the state does not match the model that ");
  EXPECT_HAS(e, "missing: src_emb.weight (11, 5)");
  EXPECT_HAS(e, "unexpected: glimpse.patches.weight (6, 18)");
  EXPECT_HAS(e, "heed.model metadata says model.kind ram, the config model.kind luong");
  EXPECT_FALSE(std::filesystem::exists(o.out));
}

// An fc state for other image sizes: the first layer's shape names the difference.
TEST_F(InteropErrors, ClassifierOfAnotherImageSize) {
  const SafeTensorsFile fc = load_safetensors(fixture("interop_fc"));
  std::string config = fc.metadata.at(interop_keys::kConfig);
  const std::size_t at = config.find("image_height: 7");
  ASSERT_NE(at, std::string::npos) << config;
  config.replace(at, 15, "image_height: 8");
  ImportOptions o;
  o.weights = fixture("interop_fc");
  o.config = dir_.file("fc8.yaml", config);
  o.out = dir_.path("out");
  const std::string e = error_of([&] { import_model(o); });
  EXPECT_HAS(e, "wrong shape: hidden1.weight (5, 42) where the model has (5, 48)");
  EXPECT_EQ(e.find("metadata says"), std::string::npos) << e;  // the same kind
  EXPECT_FALSE(std::filesystem::exists(o.out));
}

// A memory network has one vocabulary: either option gives it (written as src.vocab and
// tgt.vocab), two that differ are refused, and it has no SentencePiece model.
TEST_F(InteropErrors, MemoryNetworkHasOneVocabulary) {
  const SafeTensorsFile mem = load_safetensors(fixture("interop_memn2n"));
  NamedTensors bare_tensors = mem.tensors;
  const std::string bare = dir_.path("bare.safetensors");
  save_safetensors(bare, bare_tensors, {});  // a state saved without heed's metadata
  const std::string words = mem.metadata.at(interop_keys::kSrcVocab);
  ImportOptions o;
  o.weights = bare;
  o.config = dir_.file("memn2n.yaml", mem.metadata.at(interop_keys::kConfig));
  o.out = dir_.path("out");
  EXPECT_HAS(error_of([&] { import_model(o); }),
             "bare.safetensors: has no heed.src_vocab metadata (not a file heed export wrote); "
             "give the vocabulary with --vocab");
  for (const bool as_target : {false, true}) {
    SCOPED_TRACE(as_target);
    o.src_vocab = o.tgt_vocab = "";
    (as_target ? o.tgt_vocab : o.src_vocab) = dir_.file("words.vocab", words);
    o.out = dir_.path(as_target ? "by_tgt" : "by_src");
    ASSERT_NO_THROW(import_model(o));
    EXPECT_EQ(load_memory_model_dir(o.out).vocab.size(), 12u);
    std::ifstream x(path_in(o.out, model_files::kSrcVocab));
    std::ifstream y(path_in(o.out, model_files::kTgtVocab));
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(x), {}), words);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(y), {}), words);
  }
  // Two lines swapped in one of them: the same size, other words.
  std::string swapped = words;
  const std::size_t e = swapped.find("\ne\n"), f = swapped.find("\nf\n");
  ASSERT_NE(e, std::string::npos);
  swapped[e + 1] = 'f';
  swapped[f + 1] = 'e';
  o.src_vocab = dir_.file("words.vocab", words);
  o.tgt_vocab = dir_.file("swapped.vocab", swapped);
  o.out = dir_.path("out");
  std::string err = error_of([&] { import_model(o); });
  EXPECT_HAS(err, "memn2n.yaml: model.kind memn2n has one vocabulary (src.vocab and tgt.vocab "
                  "hold the same words), but ");
  EXPECT_HAS(err, "swapped.vocab differ; give it once with --vocab");
  EXPECT_FALSE(std::filesystem::exists(o.out));
  // The exported file records the vocabulary's checksum under both keys.
  o.weights = fixture("interop_memn2n");
  o.config.clear();
  o.src_vocab.clear();
  ExportOptions x;
  x.dir = import_file(fixture("interop_memn2n"), dir_.path("plain"));
  x.out = dir_.path("exported.safetensors");
  export_model(x);
  o.weights = x.out;
  err = error_of([&] { import_model(o); });
  EXPECT_HAS(err, "swapped.vocab is not the vocabulary the weights were trained with");
  EXPECT_FALSE(std::filesystem::exists(o.out));
  o.tgt_vocab.clear();
  o.src_spm = dir_.file("s.spm.model", "x");
  EXPECT_HAS(error_of([&] { import_model(o); }),
             "model.kind memn2n reads bAbI's words and has no SentencePiece model; drop "
             "--src-spm / --tgt-spm");
  EXPECT_FALSE(std::filesystem::exists(o.out));
}

// A memory network's state under a config of other hops or memory size, or of another kind.
TEST_F(InteropErrors, MemoryNetworkOfOtherSizes) {
  const SafeTensorsFile mem = load_safetensors(fixture("interop_memn2n"));
  const std::string config = mem.metadata.at(interop_keys::kConfig);
  auto with = [&](const std::string& from, const std::string& to) {
    std::string c = config;
    const std::size_t at = c.find(from);
    EXPECT_NE(at, std::string::npos) << c;
    if (at != std::string::npos) c.replace(at, from.size(), to);
    return c;
  };
  ImportOptions o;
  o.weights = fixture("interop_memn2n");
  o.out = dir_.path("out");
  o.config = dir_.file("hops2.yaml", with("hops: 3", "hops: 2"));
  std::string e = error_of([&] { import_model(o); });
  EXPECT_HAS(e, "interop_memn2n.safetensors: the state does not match the model that ");
  EXPECT_HAS(e, "hops2.yaml describes; unexpected: embeddings.3.weight (12, 5), "
                "temporal.3.weight (6, 5);");
  EXPECT_EQ(e.find("metadata says"), std::string::npos) << e;  // the same kind
  o.config = dir_.file("memory7.yaml", with("memory_size: 6", "memory_size: 7"));
  EXPECT_HAS(error_of([&] { import_model(o); }),
             "wrong shape: temporal.0.weight (6, 5) where the model has (7, 5)");
  o.config = dir_.file("plain.yaml", with("temporal_encoding: true", "temporal_encoding: false"));
  EXPECT_HAS(error_of([&] { import_model(o); }), "unexpected: temporal.0.weight (6, 5)");
  // Under a text model's config: every name listed, and the kinds named.
  o.config = dir_.file("luong.yaml", file_.metadata.at(interop_keys::kConfig));
  o.src_vocab = dir_.file("src.vocab", file_.metadata.at(interop_keys::kSrcVocab));
  o.tgt_vocab = dir_.file("tgt.vocab", file_.metadata.at(interop_keys::kTgtVocab));
  e = error_of([&] { import_model(o); });
  EXPECT_HAS(e, "missing: src_emb.weight (11, 5)");
  EXPECT_HAS(e, "unexpected: embeddings.0.weight (12, 5)");
  EXPECT_HAS(e, "heed.model metadata says model.kind memn2n, the config model.kind luong");
  EXPECT_FALSE(std::filesystem::exists(o.out));
}

TEST_F(InteropErrors, ExistingOutputRefused) {
  ImportOptions o;
  o.weights = fixture("interop_luong_concat");
  o.out = dir_.path("taken");
  std::filesystem::create_directories(o.out);
  dir_.file("taken/notes.txt", "mine");
  EXPECT_HAS(error_of([&] { import_model(o); }), "taken: exists");
  EXPECT_TRUE(std::filesystem::exists(dir_.path("taken/notes.txt")));
  // An empty directory is taken over, also named with a trailing slash.
  std::filesystem::create_directories(dir_.path("empty"));
  o.out = dir_.path("empty") + "/";
  EXPECT_NO_THROW(import_model(o));
  EXPECT_NO_THROW(load_model_dir(dir_.path("empty")));
  o.out = dir_.path("fresh") + "/";
  EXPECT_NO_THROW(import_model(o));
  EXPECT_NO_THROW(load_model_dir(dir_.path("fresh")));

  ExportOptions e;
  e.dir = o.out;
  e.out = dir_.file("exists.safetensors", "old");
  EXPECT_HAS(error_of([&] { export_model(e); }), "exists.safetensors: exists");
  e.force = true;
  EXPECT_NO_THROW(export_model(e));
  EXPECT_NO_THROW(load_safetensors(e.out));
}

}  // namespace
}  // namespace heed
