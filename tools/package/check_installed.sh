#!/usr/bin/env bash
# Builds the .debs from a build directory (heed, libheed0, libheed-dev, python3-heed), installs
# them on this machine, and checks what a user of the packages gets (docs/INSTALL.md): the
# installed heed runs and translates with a model, its man pages and bash completion are in
# place, the embed example (examples/embed) builds against the installed library with CMake's
# find_package(heed), with pkg-config, and statically with `pkg-config --static`, and
# translates as `heed translate` does; the installed Python module passes python/tests and
# runs docs/PYTHON.md's example. Run as root (or with sudo); CI runs it.
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

echo "== the packages"
rm -f "$build"/*.deb
(cd "$build" && cpack -G DEB >/dev/null)
declare -A debs
for p in heed libheed0 libheed-dev python3-heed; do
  debs[$p]=$(ls "$build/${p}_"*.deb 2>/dev/null) || fail "cpack wrote no ${p}_*.deb"
  dpkg-deb --info "${debs[$p]}" | sed -n 's/^ *\(Package\|Version\|Depends\|Recommends\):/  \1:/p'
  dpkg-deb --contents "${debs[$p]}" | awk '{print $6}' >"$work/$p.contents"
done
contains() {  # PACKAGE FILE...: the package holds each file (a pattern ending in * a prefix)
  local p=$1 f
  shift
  for f in "$@"; do
    if [[ $f == *'*' ]]; then
      grep -q "^${f%'*'}" "$work/$p.contents" || fail "$p lacks $f"
    else
      grep -qxF "$f" "$work/$p.contents" || fail "$p lacks $f"
    fi
  done
}
lacks() {  # PACKAGE PATTERN: no file of the package matches the extended regex
  ! grep -Eq "$2" "$work/$1.contents" || fail "$1 holds $(grep -E "$2" "$work/$1.contents" | head -1)"
}
lib=./usr/lib/x86_64-linux-gnu
contains heed ./usr/bin/heed ./usr/share/man/man1/heed.1.gz ./usr/share/man/man1/heed-translate.1.gz \
  ./usr/share/bash-completion/completions/heed ./usr/share/doc/heed/README.md \
  ./usr/share/doc/heed/docs/API.md ./usr/share/doc/heed/docs/PYTHON.md
lacks heed '/lib/|include/|python3'
contains libheed0 "$lib/libheed.so.0" "$lib/libheed.so.0.*"
lacks libheed0 'include/|\.a$|libheed\.so$|bin/'
contains libheed-dev "$lib/libheed.so" "$lib/libheed.a" ./usr/include/heed/translator.h \
  ./usr/include/heed/version.h "$lib/pkgconfig/heed.pc" "$lib/cmake/heed/heedConfig.cmake" \
  ./usr/share/doc/libheed-dev/examples/embed/main.cpp
lacks libheed-dev 'libheed\.so\.0|bin/'
py=./usr/lib/python3/dist-packages
contains python3-heed "$py/heed/__init__.py" "$py/heed/_heed.cpython-*" "$py/heed_torch.py" \
  "$py/heed/reference/models.py" ./usr/share/doc/python3-heed/PYTHON.md
depends() { dpkg-deb --field "${debs[$1]}" Depends; }
grep -q libopenblas0-openmp <<<"$(depends heed)" || fail "heed does not depend on libopenblas0-openmp"
grep -q 'libheed0 (= ' <<<"$(depends libheed-dev)" || fail "libheed-dev does not depend on libheed0"
grep -q 'libyaml-cpp-dev' <<<"$(depends libheed-dev)" || fail "libheed-dev lacks the -dev packages libheed.a needs"
grep -q 'libheed0 (= ' <<<"$(depends python3-heed)" || fail "python3-heed does not depend on libheed0"
grep -q 'python3-numpy' <<<"$(depends python3-heed)" || fail "python3-heed does not depend on python3-numpy"
# Python is never a dependency of the heed command (docs/PYTHON.md).
! grep -qi python <<<"$(depends heed) $(depends libheed0)" || fail "heed or libheed0 depends on Python"
# Files of an earlier heed (one package then, the same version) would clash with the split ones.
installed=$( (dpkg-query -W -f='${Package} ${Status}\n' heed libheed0 libheed-dev python3-heed 2>/dev/null || true) |
            awk '/ installed$/ {print $1}')
[ -z "$installed" ] || "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq $installed >/dev/null
"${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${debs[@]}" >/dev/null
echo "  installed $(dpkg-query -W -f='${Package} ${Version}  ' heed libheed0 libheed-dev python3-heed)"

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
# Every page a page names (SEE ALSO) is installed, and every documentation file it names.
for page in /usr/share/man/man1/heed*.1.gz; do
  text=$(zcat "$page" | sed 's/\\-/-/g')
  for other in $(grep -oE 'heed(-[a-z]+)?\(1\)' <<<"$text" | sed 's/(1)//' | sort -u); do
    [ -f "/usr/share/man/man1/$other.1.gz" ] || fail "$(basename "$page") names $other(1), which is not installed"
  done
  for doc in $(grep -oE '(README\.md|docs/[a-zA-Z/_-]+\.md)' <<<"$text" | sort -u); do
    [ -f "/usr/share/doc/heed/$doc" ] || fail "$(basename "$page") names /usr/share/doc/heed/$doc, which is not installed"
  done
done
if command -v man >/dev/null; then
  [ "$(man -w heed)" = /usr/share/man/man1/heed.1.gz ] || fail "man -w heed gave: $(man -w heed)"
fi
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
[[ $(complete_line heed tra) == " train translate transcribe " ]] ||
  fail "completion of 'heed tra' gave: $(complete_line heed tra)"
[[ $(complete_line heed sh) == " shortlist show " ]] ||
  fail "completion of 'heed sh' gave: $(complete_line heed sh)"
[[ $(complete_line heed translate --be) == *" --beam "* ]] ||
  fail "completion of 'heed translate --be' gave: $(complete_line heed translate --be)"
expect_choices() {  # EXPECTED WORDS...: the completion of the words' last (empty) word
  local expected=$1 got
  shift
  got=$(complete_line "$@" "")
  [[ $got == "$expected" ]] || fail "completion of '$*' gave:$got (expected:$expected)"
}
expect_choices " best last " heed translate --checkpoint
expect_choices " best last " heed translate -c
expect_choices " bleu chrf wer g2p aer rouge " heed score --metric
expect_choices " bleu chrf wer g2p aer rouge " heed score -m
expect_choices " hard soft " heed translate --alignment
expect_choices " fp32 bf16 int8 " heed translate --precision
echo "  man pages and bash completion in place"

echo "== a program built against the installed heed"
cmake -S "$repo/examples/embed" -B "$work/cmake-build" -G Ninja >/dev/null
cmake --build "$work/cmake-build" >/dev/null
g++ -std=c++20 -O2 "$repo/examples/embed/main.cpp" $(pkg-config --cflags --libs heed) -o "$work/embed-pc"
# Statically: libheed.a in place of -lheed, and what `pkg-config --static` adds for it.
g++ -std=c++20 -O2 "$repo/examples/embed/main.cpp" \
  $(pkg-config --static --cflags --libs heed | sed 's/-lheed /-l:libheed.a /') -o "$work/embed-static"
grep -q libheed <<<"$(ldd "$work/embed-static")" && fail "embed-static still loads libheed.so"
"$work/embed-static" "$model" --beam 5 <"$words" >"$work/embed.txt" 2>"$work/embed.err" ||
  fail "$work/embed-static failed: $(cat "$work/embed.err")"
cmp -s "$work/embed.txt" "$work/built.txt" || fail "embed-static translates differently from heed translate"
for program in "$work/cmake-build/embed" "$work/embed-pc"; do
  libraries=$(ldd "$program")
  grep -Eq 'libheed.so.0 => (/usr)?/lib/x86_64-linux-gnu/libheed.so.0' <<<"$libraries" ||
    fail "$program does not use the installed libheed.so; ldd says: $(grep -F libheed <<<"$libraries")"
  "$program" "$model" --beam 5 <"$words" >"$work/embed.txt" 2>"$work/embed.err" ||
    fail "$program failed: $(cat "$work/embed.err")"
  cmp -s "$work/embed.txt" "$work/built.txt" || fail "$program translates differently from heed translate"
done
echo "  examples/embed (find_package, pkg-config and pkg-config --static) translates as heed translate does"

echo "== the installed Python module"
# From an empty folder with no PYTHONPATH, so that only the installed module can be found.
(
  cd "$work" && unset PYTHONPATH
  module=$(/usr/bin/python3 -c 'import heed; print(heed.__file__, heed.__version__)')
  [[ $module == "/usr/lib/python3/dist-packages/heed/__init__.py $(dpkg-query -W -f='${Version}' python3-heed)" ]] ||
    fail "import heed found: $module"
  HEED_BINARY=/usr/bin/heed /usr/bin/python3 -m pytest -q -p no:cacheprovider "$repo/python/tests" >"$work/pytest.txt" 2>&1 ||
    fail "python/tests against the installed module: $(tail -20 "$work/pytest.txt")"
  tail -1 "$work/pytest.txt" | sed 's/^/  pytest: /'
  /usr/bin/python3 "$repo/python/doc_example.py" "$repo/docs/PYTHON.md" >"$work/example.txt" 2>&1 ||
    fail "docs/PYTHON.md's example: $(tail -20 "$work/example.txt")"
  tail -2 "$work/example.txt" | sed 's/^/  docs\/PYTHON.md: /'
  if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
    /usr/bin/python3 -c 'import heed_torch, heed.reference' || fail "heed_torch does not import"
  fi
)
grep -qi python <<<"$(ldd /usr/bin/heed)" && fail "/usr/bin/heed links Python"
echo "check_installed: all good"
