// The live page of `heed serve` for a speech model (model.kind las) in a real browser: Debian's
// headless Chromium driven by chromium-driver (support/browser.h). A tiny model learns the tone
// sequences of support/tone_speech.h (about 15 s) and is served for the suite. A WAV file
// chosen in the file picker is sent as it is and comes back drawn: the transcript the API gives
// for the same file, a row per symbol under the spectrogram, the largest weight of the first
// row in full yellow over its annotation's frames, nothing wider than the window at 1280 and
// 390 px. The microphone, faked by Chromium with a generated tone file, is recorded, encoded as
// a 16-bit WAV file at the model's rate by the page and transcribed. Screenshots are written
// into $HEED_SPEECH_PAGE_SCREENSHOTS (a directory) when it is set. Skipped without chromium.
//
// With a real speech model: HEED_SPEECH_PAGE_MODEL=DIR (a model of heed train, model.kind las)
// and HEED_SPEECH_PAGE_MANIFEST=FILE.tsv (a speech manifest: WAV path relative to its folder,
// TAB, transcript) serve that model instead of the tones, and both tests use the longest of the
// manifest's first 20 utterances: the file picker's transcript must be the manifest's, and so
// must the microphone's (the spoken file played into getUserMedia, its first 100 ms, a pause
// with the utterance's own background noise, repeated after it), which the tones' test only
// prints. The page's transcript of a spoken file is then tested, not only of tones
// (docs/cli/serve.md, "A speech model"):
//   export HEED_SPEECH_PAGE_MODEL=digits-las-frontend-equal
//   export HEED_SPEECH_PAGE_MANIFEST=digits-50k-equal/test.tsv
//   build/tests/test_serve_speech_page_slow_test
#include <gtest/gtest.h>
#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/cli_test_util.h"
#include "heed/audio/wav_file.h"
#include "heed/data/speech_manifest.h"
#include "heed/serve/server.h"
#include "heed/store/model_dir.h"
#include "support/browser.h"
#include "support/tone_speech.h"

namespace heed::serve {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;
using testing::Browser;
using testing::kChromium;
using testing::kDriver;

// A held-out WAV file and its transcript.
struct Utterance {
  std::string wav;
  std::string text;
};

// The first n utterances of a speech manifest (heed's reader), their paths made absolute for
// the file picker.
std::vector<Utterance> first_utterances(const std::string& manifest, std::size_t n) {
  std::vector<Utterance> utterances;
  for (const SpeechUtterance& u : read_speech_manifest(manifest)) {
    if (utterances.size() == n) break;
    utterances.push_back({fs::absolute(u.audio_path).string(), u.transcript});
  }
  return utterances;
}

class SpeechPage : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!fs::exists(kChromium) || !fs::exists(kDriver)) return;
    dir_ = new testing::ScratchDir("heed_speech_page");
    std::string model_dir = dir_->path("model");
    const char* real_model = std::getenv("HEED_SPEECH_PAGE_MODEL");
    const char* real_manifest = std::getenv("HEED_SPEECH_PAGE_MANIFEST");
    ASSERT_EQ(real_model == nullptr, real_manifest == nullptr)
        << "set both HEED_SPEECH_PAGE_MODEL and HEED_SPEECH_PAGE_MANIFEST, or neither";
    if (real_model) {
      model_dir = real_model;
      test_ = new std::vector<Utterance>(first_utterances(real_manifest, 20));
    } else {
      Rng rng(5);
      testing::write_tone_split(*dir_, "train", 1500, rng);
      testing::write_tone_split(*dir_, "dev", 20, rng);
      test_ = new std::vector<Utterance>;
      const auto texts = testing::write_tone_split(*dir_, "test", 5, rng);
      for (std::size_t i = 0; i < texts.size(); ++i)
        test_->push_back({dir_->path("test/" + std::to_string(i) + ".wav"), texts[i]});
      const auto trained = testing::run_heed("train " + testing::tone_config(*dir_));
      ASSERT_EQ(trained.exit_code, 0) << trained.output;
    }
    model_ = new LoadedModel(load_speech_model_dir(model_dir));
    ServerOptions options;
    options.port = 0;
    options.model_dirs = {model_dir};
    server_ = new Server(*model_, real_model ? fs::path(model_dir).filename().string() : "tones",
                         options);
    port_ = server_->bind();
    serving_ = new std::thread([] { server_->run(); });
  }
  static void TearDownTestSuite() {
    if (server_) server_->stop();
    if (serving_) serving_->join();
    delete serving_;
    delete server_;
    delete model_;
    delete test_;
    delete dir_;
    serving_ = nullptr;
    server_ = nullptr;
    model_ = nullptr;
    test_ = nullptr;
    dir_ = nullptr;
  }
  void SetUp() override {
    if (!fs::exists(kChromium) || !fs::exists(kDriver))
      GTEST_SKIP() << "needs Debian's chromium and chromium-driver (tools/setup-browser.sh)";
    ASSERT_NE(server_, nullptr) << "the model for the page was not trained";
  }
  static std::string url() { return "http://127.0.0.1:" + std::to_string(port_) + "/"; }
  static bool real_model() { return std::getenv("HEED_SPEECH_PAGE_MODEL") != nullptr; }
  // The held-out utterance with the most symbols.
  static const Utterance& longest() {
    std::size_t pick = 0;
    for (std::size_t i = 1; i < test_->size(); ++i)
      if ((*test_)[i].text.size() > (*test_)[pick].text.size()) pick = i;
    return (*test_)[pick];
  }
  static void screenshot(Browser& browser, const std::string& name) {
    const json shot = browser.session("GET", "/screenshot");
    EXPECT_FALSE(shot["value"].get<std::string>().empty());
    if (const char* out = std::getenv("HEED_SPEECH_PAGE_SCREENSHOTS"))
      std::ofstream(std::string(out) + "/" + name + ".png.b64", std::ios::binary)
          << shot["value"].get<std::string>();  // base64 PNG
  }
  static void open_page(Browser& browser) {
    browser.session("POST", "/url", {{"url", url()}});
    ASSERT_TRUE(browser.wait_for(
        "return document.getElementById('model').textContent.includes('speech')"));
    EXPECT_FALSE(browser.script("return document.getElementById('speech-view').hidden").get<bool>());
    EXPECT_TRUE(browser.script("return document.getElementById('translate-view').hidden").get<bool>());
  }

  static testing::ScratchDir* dir_;
  static std::vector<Utterance>* test_;
  static LoadedModel* model_;
  static Server* server_;
  static std::thread* serving_;
  static int port_;
};
testing::ScratchDir* SpeechPage::dir_ = nullptr;
std::vector<Utterance>* SpeechPage::test_ = nullptr;
LoadedModel* SpeechPage::model_ = nullptr;
Server* SpeechPage::server_ = nullptr;
std::thread* SpeechPage::serving_ = nullptr;
int SpeechPage::port_ = 0;

// The colour of the canvas pixel at CSS px (x, y), as "r,g,b".
std::string pixel(Browser& browser, double x, double y) {
  return browser
      .script("const c = document.querySelector('canvas.speech'); const d = devicePixelRatio;"
              "const p = c.getContext('2d').getImageData(Math.round(" + std::to_string(x) +
              " * d), Math.round(" + std::to_string(y) + " * d), 1, 1).data;"
              "return p[0] + ',' + p[1] + ',' + p[2];")
      .get<std::string>();
}

// The loudest bin of each stretch of columns whose loudest level is at least 200 (of 255): the
// tones of a tone sequence, whose pauses hold faint noise only.
std::vector<int> tone_bins(const json& spectrogram) {
  std::vector<int> bins;
  std::vector<long> sum;
  auto close = [&] {
    if (sum.empty()) return;
    bins.push_back(static_cast<int>(std::max_element(sum.begin(), sum.end()) - sum.begin()));
    sum.clear();
  };
  for (const json& column : spectrogram["levels"]) {
    int top = 0;
    for (const json& v : column) top = std::max(top, v.get<int>());
    if (top < 200) {
      close();
      continue;
    }
    sum.resize(column.size(), 0);
    for (std::size_t b = 0; b < column.size(); ++b) sum[b] += column[b].get<int>();
  }
  close();
  return bins;
}

TEST_F(SpeechPage, AWavFileComesBackTranscribedWithItsAttentionUnderTheSpectrogram) {
  const std::string wav = longest().wav;
  std::ifstream in(wav, std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(in), {}};
  httplib::Client api("127.0.0.1", port_);
  const auto answer = api.Post("/transcribe", bytes, "audio/wav");
  ASSERT_TRUE(answer);
  const json expected = json::parse(answer->body);
  EXPECT_EQ(expected["text"], longest().text) << "the model does not transcribe " << wav;

  testing::ScratchDir scratch("heed_speech_page_browser");
  Browser browser(scratch.path("profile"));
  browser.session("POST", "/window/rect", {{"width", 1280}, {"height", 900}});
  open_page(browser);
  browser.session("POST", "/element/" + browser.element("#wav") + "/value", {{"text", wav}});
  ASSERT_TRUE(browser.wait_for("return document.querySelector('.utterance .transcript')"));
  EXPECT_EQ(browser.script("return document.querySelector('.utterance .transcript').textContent"),
            expected["text"]);
  EXPECT_EQ(browser.script("return shownSpeech.symbols"), expected["symbols"]);
  EXPECT_EQ(browser.script("return shownSpeech.attention"), expected["attention"]);
  EXPECT_NE(browser.script("return document.querySelector('.utterance .note').textContent")
                .get<std::string>()
                .find(fs::path(wav).filename().string() + ": "),
            std::string::npos);
  // The first symbol's largest weight is full yellow (viridis at 1) over its annotation.
  const json layout = browser.script("return document.querySelector('canvas.speech').layout");
  const json row = expected["attention"][0];
  std::size_t best = 0;
  for (std::size_t j = 1; j < row.size(); ++j)
    if (row[j].get<double>() > row[best].get<double>()) best = j;
  const double k = expected["frames_per_annotation"].get<double>();
  const double frames = expected["spectrogram"]["frames"].get<double>();
  const double x = layout["left"].get<double>() +
                   layout["width"].get<double>() * (static_cast<double>(best) + 0.5) * k / frames;
  const double y = layout["rows_top"].get<double>() + layout["row_height"].get<double>() / 2;
  EXPECT_EQ(pixel(browser, x, y), "253,231,37") << "annotation " << best;
  // Rows: one per symbol, and the canvas is as tall as they need.
  EXPECT_EQ(layout["rows"], expected["symbols"].size());
  const char* fits = "return document.documentElement.scrollWidth <= "
                     "document.documentElement.clientWidth";
  EXPECT_TRUE(browser.script(fits).get<bool>());
  screenshot(browser, "speech-page-1280");
  browser.session("POST", "/window/rect", {{"width", 390}, {"height", 900}});
  ASSERT_TRUE(browser.wait_for("return document.querySelector('canvas.speech').layout.page_width < 400"));
  EXPECT_TRUE(browser.script(fits).get<bool>());
  EXPECT_EQ(pixel(browser, 1, 1), "255,255,255");
  screenshot(browser, "speech-page-390");
}

TEST_F(SpeechPage, TheMicrophoneIsRecordedEncodedAsWavAndTranscribed) {
  // Chromium's fake microphone plays this file (once: %noloop) into getUserMedia: a tone
  // sequence, then the faint noise the model knows from its pauses for 3 s (after the file the
  // device gives exact zeros, which the model never heard). With a real model: the spoken file,
  // then its first 100 ms (a pause in its own noise) over and over for 3 s.
  Rng rng(11);
  std::vector<float> padded;
  std::string words;
  int rate = testing::kToneRate;
  double spoken_seconds = 0;  // how long the spoken file plays before the pause (tones: 0)
  if (real_model()) {
    const Audio spoken = read_wav(longest().wav);
    padded = spoken.samples;
    words = longest().text;
    rate = spoken.sample_rate;
    spoken_seconds = spoken.seconds();
    const std::size_t pause = std::min(padded.size(), static_cast<std::size_t>(rate / 10));
    const std::size_t spoken_end = padded.size();
    while (padded.size() < spoken_end + static_cast<std::size_t>(3 * rate))
      padded.insert(padded.end(), spoken.samples.begin(), spoken.samples.begin() + pause);
  } else {
    auto [samples, text] = testing::tone_sequence(rng);
    padded = std::move(samples);
    words = text;
    while (padded.size() < static_cast<std::size_t>(3 * rate))
      padded.push_back(static_cast<float>(0.005 * (2 * rng.uniform() - 1)));
  }
  const std::string file = dir_->path("microphone.wav");
  write_wav(file, padded, rate);
  httplib::Client api("127.0.0.1", port_);
  const auto info = api.Get("/info");
  ASSERT_TRUE(info);
  const int model_rate = json::parse(info->body)["audio"]["sample_rate"].get<int>();
  testing::ScratchDir scratch("heed_speech_page_microphone");
  Browser browser(scratch.path("profile"),
                  {"--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
                   "--use-file-for-fake-audio-capture=" + file + "%noloop",
                   "--autoplay-policy=no-user-gesture-required"});
  open_page(browser);
  const std::string record = browser.element("#record");
  browser.session("POST", "/element/" + record + "/click");
  ASSERT_TRUE(browser.wait_for("return document.getElementById('record').textContent === 'Stop'"))
      << browser.script("return document.getElementById('speech-status').textContent");
  std::this_thread::sleep_for(
      std::chrono::milliseconds(1200 + static_cast<int>(1000 * spoken_seconds)));
  browser.session("POST", "/element/" + record + "/click");
  ASSERT_TRUE(browser.wait_for("return document.querySelector('.utterance .transcript') || "
                               "document.getElementById('speech-status').className === 'error'"));
  ASSERT_EQ(browser.script("return document.getElementById('speech-status').className"), "")
      << browser.script("return document.getElementById('speech-status').textContent");
  const json shown = browser.script("return shownSpeech");
  // Sent as 16-bit PCM mono at the model's rate, about as long as the recording.
  EXPECT_EQ(shown["sample_rate"], model_rate);
  EXPECT_GT(shown["seconds"].get<double>(), spoken_seconds + 0.8);
  EXPECT_LT(shown["seconds"].get<double>(), spoken_seconds + 4.0);
  EXPECT_EQ(shown["attention"].size(), shown["symbols"].size());
  EXPECT_NE(browser.script("return document.querySelector('.utterance .note').textContent")
                .get<std::string>()
                .find("the recording ("),
            std::string::npos);
  std::cout << "the microphone played \"" << words << "\"; the page transcribed \""
            << shown["text"].get<std::string>() << "\"\n";
  screenshot(browser, "speech-page-microphone");
  if (real_model()) {
    // A model trained on speech hears the spoken file through Opus and two resamplings.
    EXPECT_EQ(shown["text"], words);
    return;
  }
  // The recording holds the tones the microphone played, in order: the loudest mel bin of each
  // loud stretch of the spectrogram the server computed from the page's WAV file, against
  // those of the file itself (one bin apart at most: Opus and two resamplings lie between).
  std::ifstream in(file, std::ios::binary);
  const auto played = api.Post("/transcribe", std::string{std::istreambuf_iterator<char>(in), {}},
                               "audio/wav");
  ASSERT_TRUE(played);
  const std::vector<int> expected = tone_bins(json::parse(played->body)["spectrogram"]);
  const std::vector<int> heard = tone_bins(shown["spectrogram"]);
  ASSERT_EQ(expected.size(), 4u);  // "re mi mi do"
  ASSERT_EQ(heard.size(), expected.size()) << ::testing::PrintToString(heard);
  for (std::size_t i = 0; i < heard.size(); ++i) EXPECT_NEAR(heard[i], expected[i], 1) << i;
  // What the tiny model makes of it varies with the recording's start and length (it never
  // heard pauses this long): said above, not tested.
}

}  // namespace
}  // namespace heed::serve
