// The server of a speech model end to end, in process: the las model of the PyTorch interop
// fixture (tests/golden/interop_las.safetensors: 6 log-mel bins at 16 kHz, untrained, so its
// transcripts are arbitrary but fixed), imported once per suite by the heed binary, a
// serve::Server on a free loopback port, and cpp-httplib's client. POST /transcribe gives what
// transcribe() gives for the same audio, with the attention and the spectrogram; what it
// refuses, it refuses with a JSON message; /health and /info say the model is a speech model.
#include <gtest/gtest.h>
#include <httplib.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/cli_test_util.h"
#include "heed/audio/log_mel.h"
#include "heed/audio/wav_file.h"
#include "heed/serve/server.h"
#include "heed/store/model_dir.h"
#include "heed/translate/speech_decoding.h"

namespace heed::serve {
namespace {

using nlohmann::json;
using testing::ScratchDir;

class TranscribeServer : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new ScratchDir("heed_serve_las");
    const auto imported = testing::run_heed(std::string("import --from-pytorch ") +
                                            HEED_GOLDEN_DIR + "/interop_las.safetensors --out " +
                                            dir_->path("las"));
    ASSERT_EQ(imported.exit_code, 0) << imported.output;
    model_ = new LoadedModel(load_speech_model_dir(dir_->path("las")));
    ServerOptions options;
    options.port = 0;
    options.model_dirs = {dir_->path("las")};
    options.max_body_bytes = 200000;
    options.limits.max_audio_seconds = 2.0;
    server_ = new Server(*model_, "interop-las", options);
    port_ = server_->bind();
    serving_ = new std::thread([] { server_->run(); });
  }
  static void TearDownTestSuite() {
    if (server_) server_->stop();
    if (serving_) serving_->join();
    delete serving_;
    delete server_;
    delete model_;
    delete dir_;
    serving_ = nullptr;
    server_ = nullptr;
    model_ = nullptr;
    dir_ = nullptr;
  }
  void SetUp() override { ASSERT_NE(server_, nullptr) << "the las model was not imported"; }

  static httplib::Client client() {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(30, 0);
    return c;
  }
  // POST /transcribe (path may carry ?beam=); the status and the parsed body.
  static std::pair<int, json> post(const std::string& body, const std::string& type = "audio/wav",
                                   const std::string& path = "/transcribe") {
    auto res = client().Post(path, body, type);
    if (!res) return {-1, json()};
    return {res->status, json::parse(res->body)};
  }
  // A WAV file of rising and falling tones, seconds long at rate; its path.
  static std::string tones(const std::string& name, double seconds, int rate) {
    std::vector<float> s(static_cast<std::size_t>(seconds * rate));
    for (std::size_t i = 0; i < s.size(); ++i)
      s[i] = static_cast<float>(0.3 * std::sin(2 * M_PI * (300.0 + 0.2 * static_cast<double>(i % 8000)) *
                                               static_cast<double>(i) / rate));
    const std::string path = dir_->path(name);
    write_wav(path, s, rate);
    return path;
  }
  static std::string bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
  }

  static ScratchDir* dir_;
  static LoadedModel* model_;
  static Server* server_;
  static std::thread* serving_;
  static int port_;
};
ScratchDir* TranscribeServer::dir_ = nullptr;
LoadedModel* TranscribeServer::model_ = nullptr;
Server* TranscribeServer::server_ = nullptr;
std::thread* TranscribeServer::serving_ = nullptr;
int TranscribeServer::port_ = 0;

TEST_F(TranscribeServer, TranscribesAsTranscribeDoesWithAttentionAndSpectrogram) {
  // 8 kHz in: resampled to the model's 16 kHz as heed transcribe does.
  const std::string wav = tones("a.wav", 0.5, 8000);
  for (const int beam : {1, 3}) {
    const auto [status, j] =
        post(bytes(wav), "audio/wav", "/transcribe" + (beam > 1 ? "?beam=" + std::to_string(beam) : std::string()));
    ASSERT_EQ(status, 200) << j.dump();
    SpeechFeatures features(speech_feature_options(model_->config));
    DecodeOptions o;
    o.beam = beam;
    const Transcript t = transcribe(*model_->model, *model_->tgt_tokenizer, model_->tgt_vocab,
                                    {features(wav)}, o)[0][0];
    EXPECT_EQ(j["text"], t.text);
    EXPECT_EQ(j["symbols"], json(t.symbols));
    EXPECT_EQ(j["beam"], beam);
    ASSERT_EQ(j["attention"].size(), t.attention.size());
    // 0.5 s at 16 kHz: 1 + 8000 / 160 = 51 frames; the fixture's pyramid and stack.
    const std::int64_t per = model_->config.model.listener.reduction() * model_->config.data.audio.stack;
    EXPECT_EQ(j["frames_per_annotation"], per);
    EXPECT_EQ(j["annotations"], (51 + per - 1) / per);
    for (std::size_t k = 0; k < t.attention.size(); ++k) {
      ASSERT_EQ(j["attention"][k].size(), t.attention[k].size());
      for (std::size_t a = 0; a < t.attention[k].size(); ++a)
        EXPECT_NEAR(j["attention"][k][a].get<double>(), t.attention[k][a], 5e-5);
      EXPECT_EQ(t.attention[k].size(), j["annotations"].get<std::size_t>());
    }
    const json& s = j["spectrogram"];
    EXPECT_EQ(s["frames"], 51);
    EXPECT_EQ(s["mels"], model_->config.data.audio.mels);
    EXPECT_EQ(s["columns"], 51);
    EXPECT_EQ(s["frames_per_column"], 1);
    EXPECT_DOUBLE_EQ(s["seconds_per_frame"].get<double>(), 0.01);
    ASSERT_EQ(s["levels"].size(), 51u);
    int top = 0;
    for (const auto& column : s["levels"]) {
      ASSERT_EQ(column.size(), s["mels"].get<std::size_t>());
      for (const auto& v : column) top = std::max(top, v.get<int>());
    }
    EXPECT_EQ(top, 255);  // the loudest value is the top level
    EXPECT_DOUBLE_EQ(j["seconds"].get<double>(), 0.5);
    EXPECT_EQ(j["sample_rate"], 8000);
    EXPECT_EQ(j["model"], "interop-las");
  }
}

TEST_F(TranscribeServer, RefusalsAreJsonSayingWhy) {
  auto [status, j] = post("RIFF, but not really");
  EXPECT_EQ(status, 400);
  EXPECT_NE(j["error"].get<std::string>().find("the request body: "), std::string::npos) << j;
  std::tie(status, j) = post("{\"audio\": 1}", "application/json");
  EXPECT_EQ(status, 415);
  EXPECT_NE(j["error"].get<std::string>().find("takes the WAV file itself"), std::string::npos);
  std::tie(status, j) = post(bytes(tones("long.wav", 2.5, 8000)));  // 40 KB: under --max-body
  EXPECT_EQ(status, 413);
  EXPECT_EQ(j["error"], "the audio is 2.50 s long, at most 2 s (--max-audio-seconds)");
  std::tie(status, j) = post(bytes(tones("big.wav", 1.0, 192000)));  // 384 KB: over it
  EXPECT_EQ(status, 413);
  EXPECT_NE(j["error"].get<std::string>().find("too large"), std::string::npos) << j;
  std::tie(status, j) = post(bytes(tones("b.wav", 0.2, 16000)), "audio/wav", "/transcribe?beam=0");
  EXPECT_EQ(status, 400);
  EXPECT_EQ(j["error"], "beam=0: expected an integer from 1 to 64");
  std::tie(status, j) = post("{\"sentences\": [\"a\"]}", "application/json", "/translate");
  EXPECT_EQ(status, 404);
  EXPECT_EQ(j["error"], "POST /translate translates with a text model; interop-las transcribes "
                        "speech (model.kind las): POST /transcribe");
  auto get = client().Get("/transcribe");
  ASSERT_TRUE(get);
  EXPECT_EQ(get->status, 405);
  EXPECT_EQ(get->get_header_value("Allow"), "POST");
}

TEST_F(TranscribeServer, HealthAndInfoSayItIsASpeechModel) {
  auto health = client().Get("/health");
  ASSERT_TRUE(health);
  const json h = json::parse(health->body);
  EXPECT_EQ(h["kind"], "las");
  EXPECT_EQ(h["attention"], true);
  auto info = client().Get("/info");
  ASSERT_TRUE(info);
  const json i = json::parse(info->body);
  EXPECT_EQ(i["kind"], "las");
  EXPECT_EQ(i["audio"]["sample_rate"], 16000);
  EXPECT_EQ(i["audio"]["mels"], model_->config.data.audio.mels);
  EXPECT_EQ(i["audio"]["frames_per_annotation"],
            model_->config.model.listener.reduction() * model_->config.data.audio.stack);
  EXPECT_EQ(i["limits"]["max_audio_seconds"], 2.0);
  EXPECT_EQ(i["limits"]["max_body_bytes"], 200000);
  EXPECT_EQ(i["members"][0]["vocabularies"]["target"]["size"], model_->tgt_vocab.size());
  EXPECT_TRUE(i["members"][0]["training"].is_null());  // imported: no training state
}

}  // namespace
}  // namespace heed::serve
