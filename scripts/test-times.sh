#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Prints the lines of tests/timeouts.cmake's table from ctest logs of loaded runs: each test's
# longest time (whole seconds, rounded up) in the logs of the RelWithDebInfo build and in those of
# the ASan build, 0 where a build does not run it.
# usage: test-times.sh PLAIN_LOG... -- ASAN_LOG...
# (a log is ctest's output: its lines "12/89 Test #12: name ....   Passed   3.21 sec")
set -euo pipefail
plain=() asan=() side=plain
for a in "$@"; do
  if [ "$a" = -- ]; then side=asan; continue; fi
  if [ "$side" = plain ]; then plain+=("$a"); else asan+=("$a"); fi
done
longest() { # the longest time of each test in the given logs
  [ $# -gt 0 ] || return 0
  sed -nE 's/.*Test +#[0-9]+: ([^ ]+) .* ([0-9.]+) sec.*/\1 \2/p' "$@" |
    awk '{ t = int($2) + ($2 > int($2)); if (!($1 in m) || t > m[$1]) m[$1] = t } END { for (k in m) print k, m[k] }'
}
join -a1 -a2 -e 0 -o 0,1.2,2.2 <(longest "${plain[@]}" | sort) <(longest "${asan[@]}" | sort) |
  awk '{ printf "  %-44s %5d %5d\n", $1, $2, $3 }'
