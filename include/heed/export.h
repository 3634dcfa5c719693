#pragma once
// HEED_API marks what the shared library exports: the classes and functions of the public
// headers (include/heed/). Everything else in libheed.so is hidden.
#if defined(__GNUC__)
#define HEED_API __attribute__((visibility("default")))
#else
#define HEED_API
#endif
