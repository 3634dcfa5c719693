#!/usr/bin/env bash
# Installs the Debian packages named on the command line that are not installed yet (one
# apt-get update first, only when something is missing). Used by tools/setup.sh,
# tools/setup-browser.sh and tools/fuzz.sh; run as root or with sudo available.
#   tools/install-missing.sh LABEL PACKAGE...
set -euo pipefail
label=$1
shift
missing=()
for p in "$@"; do
  [[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) == *"install ok installed"* ]] || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "$label: all packages present"
  exit 0
fi
echo "$label: installing ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
