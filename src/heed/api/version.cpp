// heed::version() (include/heed/version.h.in): the version the library was built as, which
// a program compares with HEED_VERSION_STRING of the headers it was compiled against.
#include "heed/version.h"

namespace heed {

const char* version() { return HEED_VERSION_STRING; }

}  // namespace heed
