#!/usr/bin/env bash
# Builds the .deb from a build directory, installs it on this machine, and checks what a user
# of the package gets (docs/INSTALL.md): the installed heed runs and translates with a model,
# its man pages and bash completion are in place, and the embed example (examples/embed)
# builds against the installed library with CMake's find_package(heed) and with pkg-config,
# and translates as `heed translate` does. Run as root (or with sudo); CI runs it.
#   tools/package/check_installed.sh BUILD_DIR MODEL_DIR WORDS_FILE
set -euo pipefail
build=$(realpath "$1") model=$(realpath "$2") words=$(realpath "$3")
repo=$(realpath "$(dirname "$0")/../..")
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "check_installed: $*" >&2; exit 1; }
# Checks read a command's whole output before grep looks at it: under pipefail, `cmd | grep -q`
# fails whenever grep stops at the first match and cmd then dies writing the rest (SIGPIPE).

echo "== the package"
rm -f "$build"/heed_*.deb
(cd "$build" && cpack -G DEB >/dev/null)
deb=$(ls "$build"/heed_*.deb)
dpkg-deb --info "$deb" | sed -n 's/^ *\(Package\|Version\|Depends\|Recommends\):/  \1:/p'
depends=$(dpkg-deb --field "$deb" Depends)
grep -q libopenblas0-openmp <<<"$depends" || fail "$deb does not depend on libopenblas0-openmp"
dpkg-deb --contents "$deb" | awk '{print $6}' >"$work/contents"
for f in ./usr/bin/heed ./usr/include/heed/translator.h ./usr/include/heed/version.h \
         ./usr/share/man/man1/heed.1.gz ./usr/share/man/man1/heed-translate.1.gz \
         ./usr/share/bash-completion/completions/heed ./usr/share/doc/heed/README.md \
         ./usr/share/doc/heed/docs/API.md ./usr/lib/x86_64-linux-gnu/pkgconfig/heed.pc \
         ./usr/lib/x86_64-linux-gnu/cmake/heed/heedConfig.cmake \
         ./usr/lib/x86_64-linux-gnu/libheed.a; do
  grep -qxF "$f" "$work/contents" || fail "$deb lacks $f"
done
grep -q '^./usr/lib/x86_64-linux-gnu/libheed.so' "$work/contents" || fail "$deb lacks libheed.so"
"${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" >/dev/null
echo "  installed $(dpkg-query -W -f='${Package} ${Version}' heed)"

echo "== the installed command"
[ "$(command -v heed)" = /usr/bin/heed ] || fail "heed is not /usr/bin/heed but $(command -v heed)"
/usr/bin/heed --help >/dev/null
/usr/bin/heed --version
/usr/bin/heed translate --model "$model" --beam 5 --input "$words" >"$work/installed.txt"
"$build/heed" translate --model "$model" --beam 5 --input "$words" >"$work/built.txt"
cmp -s "$work/installed.txt" "$work/built.txt" || fail "the installed heed translates differently"
paste "$words" "$work/installed.txt" | sed -n '1,3s/^/  /p'
train_page=$(zcat /usr/share/man/man1/heed-train.1.gz)
grep -qF -- '\-\-set' <<<"$train_page" || fail "heed-train.1.gz lacks the options"
# The completion offers the commands, then a command's options, then an option's choices.
complete_line() {  # WORDS...: what the completion offers for the last word
  (
    set +u
    # shellcheck disable=SC1091
    source /usr/share/bash-completion/completions/heed
    COMP_WORDS=("$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    _heed
    echo " ${COMPREPLY[*]} "
  )
}
[[ $(complete_line heed tra) == " train translate " ]] ||
  fail "completion of 'heed tra' gave: $(complete_line heed tra)"
[[ $(complete_line heed translate --be) == *" --beam "* ]] ||
  fail "completion of 'heed translate --be' gave: $(complete_line heed translate --be)"
[[ $(complete_line heed translate --checkpoint "") == " best last " ]] ||
  fail "completion of 'heed translate --checkpoint' gave: $(complete_line heed translate --checkpoint "")"
echo "  man pages and bash completion in place"

echo "== a program built against the installed heed"
cmake -S "$repo/examples/embed" -B "$work/cmake-build" -G Ninja >/dev/null
cmake --build "$work/cmake-build" >/dev/null
g++ -std=c++20 -O2 "$repo/examples/embed/main.cpp" $(pkg-config --cflags --libs heed) -o "$work/embed-pc"
for program in "$work/cmake-build/embed" "$work/embed-pc"; do
  libraries=$(ldd "$program")
  grep -Eq 'libheed.so.0 => (/usr)?/lib/x86_64-linux-gnu/libheed.so.0' <<<"$libraries" ||
    fail "$program does not use the installed libheed.so; ldd says: $(grep -F libheed <<<"$libraries")"
  "$program" "$model" --beam 5 <"$words" >"$work/embed.txt" 2>"$work/embed.err" ||
    fail "$program failed: $(cat "$work/embed.err")"
  cmp -s "$work/embed.txt" "$work/built.txt" || fail "$program translates differently from heed translate"
done
echo "  examples/embed (find_package and pkg-config) translates as heed translate does"
echo "check_installed: all good"
