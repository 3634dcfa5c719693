#!/usr/bin/env bash
# Writes a man page per heed command from its --help, with help2man (Debian's help2man):
# heed.1.gz for the program and heed-COMMAND.1.gz for each command `heed --help` lists.
#   tools/package/man_pages.sh HEED_BINARY OUT_DIR VERSION [HELP2MAN]
set -euo pipefail
heed=$1 out=$2 version=$3 help2man=${4:-help2man}
docs=$(realpath "$(dirname "$0")/../../docs")  # installed as /usr/share/doc/heed/docs
mkdir -p "$out"
wrappers=$(mktemp -d)
trap 'rm -rf "$wrappers"' EXIT
see_also="heed(1)"
commands=$("$heed" --help | sed -n '/^Subcommands:/,$p' | awk 'NR > 1 && /^  [a-z]/ {print $1}')
[ -n "$commands" ] || { echo "man_pages.sh: $heed --help lists no command" >&2; exit 1; }
for c in $commands; do see_also+=", heed-$c(1)"; done
# help2man runs the program it is given: one wrapper per command, named as the page.
page() {  # NAME DESCRIPTION COMMAND...
  local name=$1 description=$2
  shift 2
  printf '#!/bin/sh\nexec %q %s "$@"\n' "$heed" "$*" >"$wrappers/$name"
  chmod +x "$wrappers/$name"
  local others
  others=$(sed "s/\(^\|, \)$name(1)//; s/^, //" <<<"$see_also")
  # The page of the documentation (installed by the heed package) that the command has: the
  # program's page points at the README, a command's at docs/cli/COMMAND.md where it exists.
  local doc=README.md
  [ "$name" = heed ] || [ ! -f "$docs/cli/${name#heed-}.md" ] || doc=docs/cli/${name#heed-}.md
  printf '[SEE ALSO]\n%s\n\nThe documentation in /usr/share/doc/heed: %s and docs/.\n' \
    "$others" "$doc" >"$wrappers/$name.h2m"
  "$help2man" --no-info --no-discard-stderr --version-string="$version" --section=1 \
    --name="$description" --include="$wrappers/$name.h2m" --output="$out/$name.1" \
    "$wrappers/$name"
}
page heed "$("$heed" --help | sed -n '1s/^heed: //p')"
for c in $commands; do
  description=$("$heed" "$c" --help | sed -n 1p)
  page "heed-$c" "$description" "$c"
done
# Compressed, as Debian keeps them (-n: no time stamp, so the bytes depend on the text only).
gzip -9nf "$out"/*.1
echo "man_pages.sh: $(ls "$out"/*.1.gz | wc -l) pages in $out"
