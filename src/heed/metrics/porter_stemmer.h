#pragma once
// PorterStemmer: Martin Porter's original suffix-stripping algorithm (1980), as Snowball's
// "porter" stemmer computes it in Debian's libstemmer (libstemmer-dev). ROUGE's optional
// stemming (rouge.h) uses it. Not NLTK's default PorterStemmer mode, which the rouge-score
// package calls: that mode adds its own extensions (docs/METRICS.md, "ROUGE", says where the
// two differ and by how much).
#include <memory>
#include <string>
#include <string_view>

struct sb_stemmer;

namespace heed::metrics {

class PorterStemmer {
 public:
  PorterStemmer();
  ~PorterStemmer();
  PorterStemmer(const PorterStemmer&) = delete;
  PorterStemmer& operator=(const PorterStemmer&) = delete;

  // The stem of one lowercase word (UTF-8). One stemmer is not safe to call from two
  // threads at once: libstemmer keeps its working buffer in the stemmer.
  std::string stem(std::string_view word);

 private:
  struct Delete {
    void operator()(sb_stemmer* s) const;
  };
  std::unique_ptr<sb_stemmer, Delete> stemmer_;
};

}  // namespace heed::metrics
