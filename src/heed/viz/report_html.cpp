#include "heed/viz/report_html.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <string_view>

#include "heed/base/error.h"
#include "heed/viz/colormap.h"
#include "heed/viz/html_page.h"
#include "heed/viz/svg_text.h"

namespace heed::viz {
namespace {

using Json = nlohmann::json;

// Weights to 4 decimals and saliency norms to 4 significant digits: every visible
// difference survives and the page stays small.
double round_to(double v, double step) { return std::round(v / step) * step; }

Json matrix(const std::vector<float>& m, std::size_t cols, bool relative) {
  Json rows = Json::array();
  if (m.empty() || cols == 0) return rows;
  double step = 1e-4;
  if (relative) {
    double top = 0.0;
    for (float v : m) top = std::max(top, static_cast<double>(std::abs(v)));
    step = top > 0.0 ? std::pow(10.0, std::floor(std::log10(top)) - 3.0) : 1e-4;
  }
  for (std::size_t r = 0; r < m.size() / cols; ++r) {
    Json row = Json::array();
    for (std::size_t j = 0; j < cols; ++j) row.push_back(round_to(m[r * cols + j], step));
    rows.push_back(std::move(row));
  }
  return rows;
}

void check_size(const std::vector<float>& m, std::size_t rows, std::size_t cols,
                const ReportSentence& s, const char* what) {
  HEED_CHECK(m.empty() || m.size() == rows * cols, "report: line ", s.line, ": ", what, " has ",
             m.size(), " values for ", rows, " output x ", cols, " source tokens");
}

Json sentence_json(const ReportSentence& s) {
  Json j = {{"line", s.line}, {"input", s.input}, {"source", s.source}, {"note", s.note},
            {"picture", s.picture}};
  Json more = Json::array();
  for (const auto& [what, name] : s.more_pictures) more.push_back({{"what", what}, {"name", name}});
  j["more_pictures"] = std::move(more);
  Json nbest = Json::array();
  for (const auto& h : s.nbest) {
    check_size(h.attention, h.output.size(), s.source.size(), s, "attention");
    nbest.push_back({{"text", h.text},
                     {"score", round_to(h.score, 1e-4)},
                     {"output", h.output},
                     {"attention", matrix(h.attention, s.source.size(), false)}});
  }
  j["nbest"] = std::move(nbest);
  if (!s.nbest.empty()) check_size(s.saliency, s.nbest.front().output.size(), s.source.size(), s, "saliency");
  j["saliency"] = matrix(s.saliency, s.source.size(), true);
  return j;
}

// JSON inside <script>: '<' written as \u003c, so no "</script>" or "<!--" can occur.
std::string script_json(const Json& j) {
  const std::string text = j.dump(-1, ' ', false, Json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '<') out += "\\u003c";
    else out += c;
  }
  return out;
}

// The page's style, after html_page_start's.
constexpr std::string_view kStyle = R"css(  h2 { font-size: 1.1em; margin: 0 0 .3em; }
  .meta, .legend { color: #555; font-size: .9em; }
  nav { margin: .6em 0 1em; font-size: .9em; line-height: 1.8; }
  nav a { margin-right: .5em; white-space: nowrap; }
  .sentence { border-top: 1px solid #ccc; padding: 1em 0; }
  .input { font-size: 1.05em; }
  .note { color: #a00; }
  table.nbest { border-collapse: collapse; margin: .5em 0; font-size: .95em; }
  table.nbest td { padding: 2px 8px; border-bottom: 1px solid #eee; }
  table.nbest td.score { text-align: right; font-family: monospace; color: #444; }
  table.nbest tr { cursor: pointer; }
  table.nbest tr.current { background: #e4ecf6; font-weight: bold; }
  .files { font-size: .85em; color: #555; }
  .focus { margin: .5em 0; font-size: .95em; display: flex; flex-wrap: wrap; gap: 3px; align-items: flex-end; }
  .focus .tok { display: inline-flex; flex-direction: column; align-items: center; padding: 1px 4px; border-radius: 3px; }
  .focus .tok small { font-size: .7em; }
  .maps { display: flex; gap: 2.5em; flex-wrap: wrap; align-items: flex-start; overflow-x: auto; }
  table.map { border-collapse: collapse; font-size: 12px; }
  .map-box .cap { color: #333; font-weight: bold; font-size: 12px; padding-bottom: .3em; white-space: nowrap; }
  table.map th { font-weight: normal; padding: 1px 3px; white-space: nowrap; }
  table.map thead th.src { writing-mode: vertical-rl; transform: rotate(180deg); text-align: left; vertical-align: bottom; max-height: 14em; overflow: hidden; text-overflow: ellipsis; }
  table.map tbody th.out { text-align: right; cursor: pointer; }
  table.map td { width: 18px; min-width: 18px; height: 18px; padding: 0; border: 1px solid #fff; }
  table.map tr.selected th.out { background: #246; color: #fff; }
  table.map tr.selected td { outline: 2px solid #f33; outline-offset: -2px; }
  table.map th.hover { background: #ffe08a; }
  .missing { color: #777; font-style: italic; }
  #tip { position: fixed; pointer-events: none; background: #222; color: #fff; padding: 3px 7px; border-radius: 4px; font-size: 13px; display: none; z-index: 10; white-space: nowrap; }
)css";

// The page's script: draws each sentence when it comes near the screen (a long input
// stays quick to open) from the JSON in #heed-data.
constexpr std::string_view kScript = R"js(<script>
"use strict";
const DATA = JSON.parse(document.getElementById("heed-data").textContent);
const tip = document.getElementById("tip");

function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}
// Viridis, as in the SVG and PNG pictures; t in [0, 1].
function viridis(t) {
  t = Math.max(0, Math.min(1, t || 0)) * (VIRIDIS.length - 1);
  const i = Math.min(Math.floor(t), VIRIDIS.length - 2), f = t - i;
  const c = VIRIDIS[i].map((a, k) => Math.round(a + (VIRIDIS[i + 1][k] - a) * f));
  return {css: "rgb(" + c.join(",") + ")", dark: 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2] < 110};
}
function largest(matrix) {
  let top = 0;
  for (const row of matrix) for (const w of row) top = Math.max(top, w);
  return top || 1;
}
function fmt(w) { return w === 0 ? "0" : w < 0.001 ? "<0.001" : w.toFixed(3); }

// One map: a row per output token, a column per source token.
function mapTable(kind, caption, source, output, matrix, scale, onSelect) {
  const box = el("div", {class: "map-box"});
  box.appendChild(el("div", {class: "cap"}, caption));
  const table = box.appendChild(el("table", {class: "map " + kind}));
  const head = el("tr");
  head.appendChild(el("th"));
  source.forEach((s) => head.appendChild(el("th", {class: "src", title: s}, s)));
  table.appendChild(el("thead")).appendChild(head);
  const body = table.appendChild(el("tbody"));
  output.forEach((tok, t) => {
    const row = el("tr");
    const th = el("th", {class: "out", title: "click: " + tok + "'s row over the source"}, tok);
    th.addEventListener("click", () => onSelect(t));
    row.appendChild(th);
    matrix[t].forEach((w, j) => {
      const td = el("td", {"data-w": String(w)});
      td.style.background = viridis(w / scale).css;
      td.addEventListener("mouseenter", (e) => {
        tip.textContent = kind + ": " + tok + " \u2190 " + source[j] + " = " + fmt(w);
        tip.style.display = "block";
        head.children[j + 1].classList.add("hover");
        th.classList.add("hover");
      });
      td.addEventListener("mousemove", (e) => {
        tip.style.left = (e.clientX + 14) + "px";
        tip.style.top = (e.clientY + 12) + "px";
      });
      td.addEventListener("mouseleave", () => {
        tip.style.display = "none";
        head.children[j + 1].classList.remove("hover");
        th.classList.remove("hover");
      });
      row.appendChild(td);
    });
    body.appendChild(row);
  });
  return box;
}

function showHypothesis(box, s, k) {
  const hyp = s.nbest[k];
  box.querySelectorAll("table.nbest tr").forEach((r, i) => r.classList.toggle("current", i === k));
  const view = box.querySelector(".view");
  view.replaceChildren();
  const focus = el("div", {class: "focus"});
  const maps = el("div", {class: "maps"});
  const tables = [];
  const saliency = k === 0 && s.saliency.length ? s.saliency : null;
  const focusMatrix = hyp.attention.length ? hyp.attention : saliency;
  const focusScale = hyp.attention.length ? 1 : null;
  const select = (t) => {
    for (const table of tables)
      table.querySelectorAll("tbody tr").forEach((r, i) => r.classList.toggle("selected", i === t));
    if (!focusMatrix) return;
    const row = focusMatrix[t];
    const scale = focusScale || Math.max(...row) || 1;
    focus.replaceChildren(el("span", {class: "what"},
        hyp.output[t] + (focusScale ? " attends to:" : " depends on:")));
    s.source.forEach((src, j) => {
      const c = viridis(row[j] / scale);
      const span = el("span", {class: "tok", "data-w": String(row[j])});
      span.appendChild(el("span", {}, src));
      span.appendChild(el("small", {}, fmt(row[j])));
      span.style.background = c.css;
      span.style.color = c.dark ? "#fff" : "#000";
      focus.appendChild(span);
    });
  };
  if (hyp.attention.length)
    tables.push(mapTable("attention", "attention \u03b1 (each row sums to 1)", s.source, hyp.output,
                         hyp.attention, 1, select));
  if (saliency)
    tables.push(mapTable("saliency", "saliency \u2016\u2202 log p(y) / \u2202 e(x)\u2016 (scaled to the largest, " +
                         fmt(largest(saliency)) + ")", s.source, hyp.output, saliency, largest(saliency), select));
  for (const table of tables) maps.appendChild(table);
  if (!hyp.attention.length && !DATA.attention)
    view.appendChild(el("p", {class: "missing"}, "This model has no attention: the saliency map alone shows what each output token depends on."));
  if (k !== 0 && s.saliency.length)
    maps.appendChild(el("p", {class: "missing"}, "saliency: computed for the best hypothesis only"));
  view.appendChild(focus);
  view.appendChild(maps);
  if (hyp.output.length) select(0);
}

function drawSentence(box, s) {
  if (box.dataset.drawn) return;
  box.dataset.drawn = "1";
  if (!s.nbest.length) return;
  const nbest = el("table", {class: "nbest"});
  s.nbest.forEach((h, k) => {
    const row = el("tr");
    row.appendChild(el("td", {}, String(k + 1) + "."));
    row.appendChild(el("td", {class: "hyp"}, h.text === "" ? "(empty output)" : h.text));
    row.appendChild(el("td", {class: "score", title: "log-probability / length"}, h.score.toFixed(4)));
    row.addEventListener("click", () => showHypothesis(box, s, k));
    nbest.appendChild(row);
  });
  box.appendChild(nbest);
  box.appendChild(el("div", {class: "view"}));
  showHypothesis(box, s, 0);
}

const boxes = [];
const nav = document.getElementById("nav");
DATA.sentences.forEach((s) => {
  const box = el("section", {class: "sentence", id: "line-" + s.line});
  box.appendChild(el("h2", {}, "Line " + s.line));
  box.appendChild(el("div", {class: "input"}, s.input));
  if (s.note) box.appendChild(el("div", {class: "note"}, s.note));
  if (s.picture) {
    const files = el("div", {class: "files"}, "picture: ");
    files.appendChild(el("a", {href: s.picture + ".svg"}, s.picture + ".svg"));
    files.appendChild(document.createTextNode(", "));
    files.appendChild(el("a", {href: s.picture + ".png"}, s.picture + ".png"));
    for (const p of s.more_pictures) {
      files.appendChild(document.createTextNode(" \u00b7 " + p.what + ": "));
      files.appendChild(el("a", {href: p.name + ".svg"}, p.name + ".svg"));
      files.appendChild(document.createTextNode(", "));
      files.appendChild(el("a", {href: p.name + ".png"}, p.name + ".png"));
    }
    box.appendChild(files);
  }
  document.getElementById("sentences").appendChild(box);
  nav.appendChild(el("a", {href: "#line-" + s.line, title: s.input}, String(s.line)));
  boxes.push([box, s]);
});
if ("IntersectionObserver" in window) {
  const seen = new IntersectionObserver((entries) => {
    for (const e of entries) if (e.isIntersecting) {
      const i = Number(e.target.dataset.i);
      drawSentence(boxes[i][0], boxes[i][1]);
      seen.unobserve(e.target);
    }
  }, {rootMargin: "1500px 0px"});
  boxes.forEach(([box], i) => { box.dataset.i = String(i); seen.observe(box); });
} else {
  boxes.forEach(([box, s]) => drawSentence(box, s));
}
</script>
)js";

}  // namespace

std::string report_html(const ReportInfo& info, const std::vector<ReportSentence>& sentences) {
  Json data = {{"attention", info.attention}, {"saliency", info.saliency}};
  Json list = Json::array();
  for (const auto& s : sentences) list.push_back(sentence_json(s));
  data["sentences"] = std::move(list);

  std::string viridis_js = "const VIRIDIS = [";
  for (int k = 0; k <= 10; ++k) {
    const Rgb c = viridis(k / 10.0);
    viridis_js += (k ? ",[" : "[") + std::to_string(c.r) + "," + std::to_string(c.g) + "," +
                  std::to_string(c.b) + "]";
  }
  viridis_js += "];\n";

  std::size_t decoded = 0;
  for (const auto& s : sentences) decoded += s.nbest.empty() ? 0 : 1;
  const std::string title = "heed show: " + info.input;
  std::string s = html_page_start(title, kStyle);
  s += "<h1>" + xml_escape(title) + "</h1>\n";
  s += "<div class=\"meta\">model " + xml_escape(info.model) + " \xC2\xB7 beam " +
       std::to_string(info.beam) + " \xC2\xB7 " + std::to_string(sentences.size()) +
       (sentences.size() == 1 ? " line" : " lines") + ", " + std::to_string(decoded) + " translated" +
       (info.attention ? "" : " \xC2\xB7 the model has no attention: saliency only") +
       (info.saliency ? "" : " \xC2\xB7 saliency not computed") + "</div>\n";
  s += "<p class=\"legend\">Each map has a row per output token and a column per source token. "
       "Attention: the weights the decoder read the source with while emitting the row's token. "
       "Saliency: how much the token's log-probability depends on each source token (the norm of "
       "its gradient with respect to the token's embedding), for the best hypothesis. Hover a "
       "cell for its tokens and weight; click an output token to see its row over the source; "
       "click a hypothesis to see its attention.</p>\n";
  s += "<nav id=\"nav\">lines: </nav>\n<div id=\"sentences\"></div>\n<div id=\"tip\"></div>\n";
  s += "<script type=\"application/json\" id=\"heed-data\">" + script_json(data) + "</script>\n";
  std::string script(kScript);
  script.insert(script.find("\"use strict\";\n") + 14, viridis_js);
  s += script;
  s += "</body>\n</html>\n";
  return s;
}

}  // namespace heed::viz
