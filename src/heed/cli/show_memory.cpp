// The view of `heed show --input` for a memory network (model.kind memn2n): the input is bAbI
// text (stories with their questions, docs/DATA.md#babi-memory-networks); for each question
// the model's answer and a picture of its hops over the story (viz/memory_hops_picture.h),
// SVG and PNG, and index.html with them all (docs/cli/show.md#memory-networks).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "heed/base/atomic_file.h"
#include "heed/base/error.h"
#include "heed/cli/show_output.h"
#include "heed/cli/show_view.h"
#include "heed/data/babi.h"
#include "heed/data/babi_encoding.h"
#include "heed/store/model_dir.h"
#include "heed/translate/question_answering.h"
#include "heed/viz/html_page.h"
#include "heed/viz/memory_hops_picture.h"
#include "heed/viz/svg_text.h"

namespace heed::cli {
namespace {

namespace fs = std::filesystem;

std::string joined(const std::vector<std::string>& words) {
  std::string s;
  for (const auto& w : words) (s += s.empty() ? "" : " ") += w;
  return s;
}

std::string question_picture_name(std::size_t i) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "question-%04zu", i);
  return buf;
}

void show_memory(const ShowOptions& o, const TrainConfig&, const std::vector<std::string>& lines) {
  const std::string dir = o.model.dirs.front();
  const LoadedMemoryModel m = load_memory_model_dir(
      dir, o.model.weights.empty() ? o.model.checkpoint : o.model.weights.front());
  std::string text;
  for (const std::string& l : lines) (text += l) += '\n';
  std::istringstream in(text);
  const std::vector<BabiQuestion> questions = parse_babi(in, o.input_name());
  const std::vector<EncodedQuestion> encoded = encode_babi(questions, m.vocab);
  const std::vector<AnsweredQuestion> answers = answer_questions(*m.model, encoded);
  make_show_dir(o.out);
  const fs::path out(o.out);
  const ShowProgress progress(questions.size());
  std::string page = viz::html_page_start(
      "heed show: " + o.input_name(),
      "figure{margin:0 0 28px 0} img{max-width:100%;height:auto} "
      "figcaption{font:13px sans-serif;color:#444}");
  page += "<h1>" + viz::xml_escape(o.input_name()) + "</h1>\n<p>" +
          viz::xml_escape(dir + " (" + m.weights_path + "), " +
                          std::to_string(m.model->hops()) + " hops") + "</p>\n";
  std::size_t right = 0;
  for (std::size_t i = 0; i < questions.size(); ++i) {
    const BabiQuestion& q = questions[i];
    const AnsweredQuestion& a = answers[i];
    viz::MemoryHopsPicture p;
    p.title = "Line " + std::to_string(q.line) + " \xC2\xB7 " + o.model.label();
    p.first_number = a.first + 1;
    for (std::size_t s = a.first; s < q.story.size(); ++s) {
      p.statements.push_back(joined(q.story[s]));
      p.supporting.push_back(std::find(q.supporting.begin(), q.supporting.end(), s) !=
                             q.supporting.end());
    }
    p.hops = a.attention;
    p.question = joined(q.question);
    p.answer = m.vocab.token(a.predicted);
    p.expected = q.answer;
    p.probability = a.probability;
    right += p.answer == p.expected;
    const std::string name = question_picture_name(i + 1);
    write_file_atomically((out / (name + ".svg")).string(), viz::memory_hops_svg(p));
    write_file_atomically((out / (name + ".png")).string(), viz::memory_hops_png(p, o.png_scale));
    page += "<figure><img src=\"" + name + ".svg\" alt=\"" + viz::xml_escape(p.question) +
            "\"><figcaption>line " + std::to_string(q.line) + ": " +
            viz::xml_escape(p.question) + " \xE2\x86\x92 " + viz::xml_escape(p.answer) +
            "</figcaption></figure>\n";
    progress.say("drew question", i + 1);
  }
  page += "</body></html>\n";
  write_file_atomically((out / "index.html").string(), page);
  std::cout << "answered " << right << " of " << questions.size() << " questions as expected; "
            << "wrote " << questions.size() << " pictures ("
            << (out / "question-NNNN.svg").string() << ", .png) and "
            << (out / "index.html").string() << "\n";
}

}  // namespace

extern const ShowView kShowMemory{ShowInput::sentences, answers_questions, show_memory};

}  // namespace heed::cli
