#!/usr/bin/env bash
# Installs Debian's Chromium and its WebDriver (chromium-driver) for the browser test of
# `heed serve`'s live page (tests/serve/live_page_slow_test.cpp), only if missing. Idempotent;
# run as root (or with sudo). The test skips itself without them.
set -euo pipefail
packages=(chromium chromium-driver)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup-browser: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "setup-browser: chromium and chromium-driver present"
fi
