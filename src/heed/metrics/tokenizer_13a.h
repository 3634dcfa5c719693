#pragma once
// The mteval-v13a tokeniser exactly as sacreBLEU implements it (tokenizer_13a.py and
// tokenizer_re.py), the default tokenisation of BLEU at WMT.
#include <string>
#include <string_view>

namespace heed::metrics {

// Returns the tokens joined by single spaces, e.g. "Hello, world!" -> "Hello , world !".
std::string tokenize_13a(std::string_view line);

}  // namespace heed::metrics
