#pragma once
// The attention-JSON format (docs/ATTENTION_JSON.md): what `heed translate --attention`
// writes and `heed plot` reads. JSON Lines, one sentence per line, so a translator can
// stream records and a reader can name the line of a bad one.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace heed::viz {

struct AttentionRecord {
  std::int64_t index = 0;           // the sentence's 0-based position in the input
  std::vector<std::string> source;  // tokens the encoder saw (EOS included if appended)
  std::vector<std::string> output;  // emitted tokens, EOS included if the decoder emitted it
  // alpha[t * source.size() + j]: weight of source token j when emitting output token t.
  std::vector<float> alpha;
  // Optional saliency maps, same layout as alpha (empty: absent): the norm of the gradient
  // of log p(output[t]) with respect to the embedding of source[j], and gradient x input.
  // Written when present; readers ignore them (heed plot draws attention).
  std::vector<float> saliency, grad_x_input;
  std::optional<double> score;
  std::optional<std::string> model;

  float at(std::size_t t, std::size_t j) const { return alpha[t * source.size() + j]; }
};

// Throws heed::Error (prefixed with `where`, e.g. "file.json:3") when the record breaks a
// rule of the format: no source or output tokens, a negative index, an alpha whose size is
// not |output| x |source|, or a weight that is not finite or outside [0, 1].
void validate(const AttentionRecord& record, const std::string& where);

// One record as a single line of JSON (no newline); weights rounded to 6 decimals.
std::string to_json_line(const AttentionRecord& record);
// Parses and validates one line; errors read "<where>: <what is wrong>".
AttentionRecord parse_attention_record(std::string_view line, const std::string& where);

// Validates every record, then writes them as JSON Lines to a temporary file next to
// path and renames it into place. Indices must be distinct.
void write_attention_file(const std::string& path, const std::vector<AttentionRecord>& records);
// Reads a whole file (blank lines are skipped); errors name the file and the line.
std::vector<AttentionRecord> read_attention_file(const std::string& path);

}  // namespace heed::viz
