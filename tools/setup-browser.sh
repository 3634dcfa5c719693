#!/usr/bin/env bash
# Installs Debian's Chromium and its WebDriver (chromium-driver) for the browser test of
# `heed serve`'s live page (tests/serve/live_page_slow_test.cpp), only if missing. The test
# skips itself without them.
set -euo pipefail
"$(dirname "${BASH_SOURCE[0]}")/install-missing.sh" setup-browser chromium chromium-driver
