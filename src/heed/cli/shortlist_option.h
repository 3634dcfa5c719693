#pragma once
// --shortlist FILE of heed translate and heed serve (docs/DECODING.md#vocabulary-shortlists):
// the file read and resolved against the model's vocabularies, with one warning on stderr
// naming how many of its pieces the vocabularies lack (they are skipped).
#include <iostream>
#include <memory>
#include <string>

#include "heed/store/model_dir.h"
#include "heed/translate/shortlist.h"

namespace heed::cli {

inline std::shared_ptr<const ShortlistIndex> load_shortlist_option(const std::string& path,
                                                                   const LoadedModel& model,
                                                                   const char* command) {
  if (path.empty()) return nullptr;
  auto index = std::make_shared<const ShortlistIndex>(read_shortlist(path), model.src_vocab,
                                                      model.tgt_vocab);
  if (index->skipped_sources() > 0 || index->skipped_targets() > 0)
    std::cerr << "heed " << command << ": warning: shortlist " << path << ": skipped "
              << index->skipped_sources() << " source and " << index->skipped_targets()
              << " target pieces the model's vocabularies lack (a shortlist made for another "
                 "model?)\n";
  return index;
}

}  // namespace heed::cli
