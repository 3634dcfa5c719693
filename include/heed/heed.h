#pragma once
// The public C++ API of heed (docs/API.md): everything a program needs to train, load and run
// attention models and score their output. Link with heed::heed (CMake: find_package(heed))
// or `pkg-config --cflags --libs heed`; C++20.
#include "heed/error.h"
#include "heed/metrics.h"
#include "heed/trainer.h"
#include "heed/translator.h"
#include "heed/version.h"
