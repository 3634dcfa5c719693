#include "heed/cli/show_view.h"

#include "heed/base/error.h"

namespace heed::cli {

// Each defined in its family's file.
extern const ShowView kShowText;             // show_text.cpp
extern const ShowView kShowImageClassifier;  // show_image_classifier.cpp
extern const ShowView kShowImage2Seq;        // show_image2seq.cpp
extern const ShowView kShowMemory;           // show_memory.cpp
extern const ShowView kShowSpeech;           // show_speech.cpp

namespace {
// The first that draws a kind is its view: a family that refines another comes before it.
const ShowView* const kViews[] = {&kShowImageClassifier, &kShowImage2Seq, &kShowMemory,
                                  &kShowSpeech, &kShowText};
}  // namespace

namespace {
const ShowView* find_show_view(ModelKind kind) {
  for (const ShowView* v : kViews)
    if (v->draws(kind)) return v;
  return nullptr;
}
}  // namespace

const ShowView& show_view(ModelKind kind) {
  if (const ShowView* v = find_show_view(kind)) return *v;
  throw Error(detail::concat("no view of heed show draws model.kind ", enum_name(kind), " yet"));
}

std::string kinds_shown_from(ShowInput input) {
  std::vector<std::string> kinds;
  for (const auto& [kind, name] : kModelKindNames)  // canonical names only, not aliases
    if (name == enum_name(kind) && find_show_view(kind) && find_show_view(kind)->input == input)
      kinds.emplace_back(name);
  std::string s;
  for (std::size_t i = 0; i < kinds.size(); ++i)
    s += (i == 0 ? "" : i + 1 == kinds.size() ? " and " : ", ") + kinds[i];
  return s;
}

}  // namespace heed::cli
