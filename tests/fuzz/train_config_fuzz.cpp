// libFuzzer harness: the YAML training-config reader (train/config.h). Any input must
// either parse or be refused with heed::Error; a config that parses must write (to_yaml) and
// parse again to the same config.
#include <string>

#include "fuzz/fuzz_input.h"
#include "heed/base/error.h"
#include "heed/config/train_config.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace heed;
  const std::string text(reinterpret_cast<const char*>(data), size);
  TrainConfig c;
  try {
    c = parse_train_config(text, "fuzz");
  } catch (const Error&) {
    return 0;
  }
  const std::string yaml = to_yaml(c);
  TrainConfig again;
  try {
    again = parse_train_config(yaml, "fuzz-roundtrip");
  } catch (const Error& e) {
    std::fprintf(stderr, "to_yaml wrote a config that does not parse: %s\n%s\n", e.what(),
                 yaml.c_str());
    std::abort();
  }
  fuzz::require(to_yaml(again) == yaml, "parse(to_yaml(c)) == c");
  return 0;
}
