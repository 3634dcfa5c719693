#include "heed/metrics/porter_stemmer.h"

#include <libstemmer.h>

#include "heed/base/error.h"

namespace heed::metrics {

void PorterStemmer::Delete::operator()(sb_stemmer* s) const { sb_stemmer_delete(s); }

PorterStemmer::PorterStemmer() : stemmer_(sb_stemmer_new("porter", "UTF_8")) {
  HEED_CHECK(stemmer_ != nullptr,
             "porter_stemmer.cpp: libstemmer has no \"porter\" stemmer for UTF-8 (or is out of "
             "memory); expected Debian's libstemmer0d");
}

PorterStemmer::~PorterStemmer() = default;

std::string PorterStemmer::stem(std::string_view word) {
  const sb_symbol* out = sb_stemmer_stem(stemmer_.get(),
                                         reinterpret_cast<const sb_symbol*>(word.data()),
                                         static_cast<int>(word.size()));
  HEED_CHECK(out != nullptr, "porter_stemmer.cpp: libstemmer ran out of memory stemming a word of ",
             word.size(), " bytes");
  return std::string(reinterpret_cast<const char*>(out),
                     static_cast<std::size_t>(sb_stemmer_length(stemmer_.get())));
}

}  // namespace heed::metrics
