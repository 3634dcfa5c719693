#pragma once
// Skips the calling test where oneDNN has no fast bf16 kernel (a CPU without AVX-512 BF16 or
// AMX): bf16 products are refused there (kernels::require_bf16_products), so a bf16 case
// could only fail or, falling back to fp32, pass without testing anything.
#include <gtest/gtest.h>

#include "heed/kernels/bf16_products.h"

#define HEED_SKIP_WITHOUT_BF16()                                                       \
  do {                                                                                 \
    if (!::heed::kernels::bf16_products_available())                                   \
      GTEST_SKIP() << "oneDNN has no fast bf16 kernel on this CPU (no AVX-512 BF16)"; \
  } while (0)
