// libFuzzer harness: the vocabulary reader (data/vocabulary.h). Any input must either load
// or be refused with heed::Error; a vocabulary that loads must save and load to itself, and
// every token must map back to its own id.
#include "fuzz/fuzz_input.h"
#include "heed/base/error.h"
#include "heed/data/vocabulary.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace heed;
  Vocabulary v;
  try {
    v = Vocabulary::load(fuzz::write_input("in.vocab", data, size));
  } catch (const Error&) {
    return 0;
  }
  for (std::size_t i = 0; i < v.size(); ++i)
    fuzz::require(v.id(v.token(static_cast<std::int32_t>(i))) == static_cast<std::int32_t>(i),
                  "id(token(i)) == i");
  const std::string again = fuzz::scratch_path("again.vocab");
  v.save(again);
  fuzz::require(Vocabulary::load(again) == v, "a loaded vocabulary saves and loads to itself");
  return 0;
}
