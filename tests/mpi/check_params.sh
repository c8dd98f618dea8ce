#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Checks a retime parameter file (docs/parameter-file.md) written by pingpong, and optionally its
# histogram CSV: every required key once with a unit, plausible values, nothing but the known keys,
# and per size histogram counts that add up to the trial count.
# usage: check_params.sh PARAMS [HIST_CSV TRIALS SIZE...]
# Prints "FAIL: ..." and exits 1 on the first problem, 3 when the problem is only an implausible
# timing (out of the bounds below: what a busy machine's preemptions make of a short measurement);
# prints nothing on success.
set -euo pipefail
params=$1
shift
fail() { echo "FAIL: $params: $*"; exit 1; }
[ -s "$params" ] || fail "missing or empty"

# key<TAB>value per line: comments stripped, blank lines dropped, both sides trimmed.
kv=$(awk '{
    sub(/#.*/, "")
    if ($0 ~ /^[ \t]*$/) next
    i = index($0, "=")
    if (i == 0) { print "NOEQ\t" NR; next }
    k = substr($0, 1, i - 1); v = substr($0, i + 1)
    gsub(/^[ \t]+|[ \t]+$/, "", k); gsub(/^[ \t]+|[ \t]+$/, "", v)
    print k "\t" v
  }' "$params")
if grep -q '^NOEQ' <<<"$kv"; then fail "a line without '=': line $(grep '^NOEQ' <<<"$kv" | head -1 | cut -f2)"; fi

value() { awk -F'\t' -v k="$1" '$1 == k { print $2 }' <<<"$kv"; }

# Only the documented keys: the seven parameters, format, beta@<n>B, info.*.
bad=$(awk -F'\t' '$1 !~ /^(format|alpha|beta|L|o_s|o_r|g|G)$/ && $1 !~ /^beta@[0-9]+B$/ && $1 !~ /^info\./ { print $1 }' <<<"$kv" | head -1)
[ -z "$bad" ] || fail "unknown key '$bad'"
dup=$(cut -f1 <<<"$kv" | sort | uniq -d | head -1)
[ -z "$dup" ] || fail "key '$dup' given twice"

[ "$(value format)" = "retime-params 1" ] || fail "format is '$(value format)', want 'retime-params 1'"

# A value in ns: times need ns/us/ms/s, inverse bandwidths ns/B. Prints nothing if malformed.
to_ns() {
  awk -v v="$1" -v kind="$2" 'BEGIN {
    if (kind == "time" && match(v, /^-?[0-9]+(\.[0-9]+)?(ns|us|ms|s)$/)) {
      n = v; sub(/(ns|us|ms|s)$/, "", n); u = substr(v, length(n) + 1)
      f = u == "ns" ? 1 : u == "us" ? 1e3 : u == "ms" ? 1e6 : 1e9
      printf "%.6f\n", n * f
    } else if (kind == "invbw" && match(v, /^-?[0-9]+(\.[0-9]+)?ns\/B$/)) {
      n = v; sub(/ns\/B$/, "", n); printf "%.9f\n", n
    } }'
}
# Six significant digits at most (leading zeros do not count).
sig_ok() { awk -v v="$1" 'BEGIN { sub(/[a-z\/A-Z]+$/, "", v); sub(/^-/, "", v); gsub(/\./, "", v); sub(/^0+/, "", v); exit !(length(v) <= 6) }'; }

declare -A ns
for key in alpha L o_s o_r g; do
  v=$(value "$key"); [ -n "$v" ] || fail "required key '$key' missing"
  ns[$key]=$(to_ns "$v" time); [ -n "${ns[$key]}" ] || fail "$key = '$v' is not a time with a unit (ns, us, ms, s)"
  sig_ok "$v" || fail "$key = '$v' has more than 6 significant digits"
done
for key in beta G; do
  v=$(value "$key"); [ -n "$v" ] || fail "required key '$key' missing"
  ns[$key]=$(to_ns "$v" invbw); [ -n "${ns[$key]}" ] || fail "$key = '$v' is not an inverse bandwidth in ns/B"
  sig_ok "$v" || fail "$key = '$v' has more than 6 significant digits"
done
while IFS=$'\t' read -r k v; do
  [ -n "$(to_ns "$v" invbw)" ] || fail "$k = '$v' is not an inverse bandwidth in ns/B"
done < <(awk -F'\t' '$1 ~ /^beta@/' <<<"$kv")

# Plausible on any machine: alpha in (0, 10 ms), beta and G in [0, 1000 ns/B], overheads and
# gap non-negative and below 10 ms, g > 0, and L = alpha - o_s - o_r unless clamped at 0.
awk -v a="${ns[alpha]}" -v b="${ns[beta]}" -v L="${ns[L]}" -v os="${ns[o_s]}" -v orr="${ns[o_r]}" \
    -v g="${ns[g]}" -v G="${ns[G]}" 'BEGIN {
  if (!(a > 0 && a < 1e7)) { print "alpha = " a " ns not in (0, 10 ms)"; exit 1 }
  if (!(b >= 0 && b <= 1000)) { print "beta = " b " ns/B not in [0, 1000]"; exit 1 }
  if (!(G >= 0 && G <= 1000)) { print "G = " G " ns/B not in [0, 1000]"; exit 1 }
  if (!(L >= 0 && L < 1e7)) { print "L = " L " ns not in [0, 10 ms)"; exit 1 }
  if (!(os >= 0 && os < 1e7 && orr >= 0 && orr < 1e7)) { print "o_s/o_r out of [0, 10 ms)"; exit 1 }
  if (!(g > 0 && g < 1e7)) { print "g = " g " ns not in (0, 10 ms)"; exit 1 }
  tol = 1e-4 * a + 0.01
  if (L > 0 && (L - (a - os - orr) > tol || (a - os - orr) - L > tol)) { print "L != alpha - o_s - o_r"; exit 1 }
  if (L == 0 && a - os - orr > tol) { print "L = 0 but alpha - o_s - o_r > 0"; exit 1 }
}' >/tmp/check_params.$$ || { msg=$(cat /tmp/check_params.$$); rm -f /tmp/check_params.$$
  echo "FAIL: $params: $msg"; exit 3; }
rm -f /tmp/check_params.$$

for key in info.method info.filter info.timer info.timer_resolution info.mpi info.date info.host; do
  [ -n "$(value "$key")" ] || fail "'$key' missing"
done
[ "$(value info.method)" = "kielmann2000-plogp" ] || fail "info.method is '$(value info.method)'"
[ -n "$(to_ns "$(value info.timer_resolution)" time)" ] || fail "info.timer_resolution has no unit"

[ $# -ge 1 ] || exit 0
hist=$1 trials=$2
shift 2
[ -s "$hist" ] || fail "histogram $hist missing or empty"
[ "$(head -1 "$hist")" = "size_bytes,bin_lo_ns,bin_hi_ns,count" ] || fail "histogram header is '$(head -1 "$hist")'"
for size in "$@"; do
  [ -n "$(value "info.npp@${size}B")" ] || fail "info.npp@${size}B missing"
  [ "$size" = 0 ] || [ -n "$(value "beta@${size}B")" ] || fail "beta@${size}B missing"
  sum=$(awk -F, -v s="$size" 'NR > 1 && $1 == s { n += $4 } END { print n + 0 }' "$hist")
  [ "$sum" = "$trials" ] || fail "histogram counts for $size B add up to $sum, want $trials"
done
# Every row: four fields, a known size, lo < hi, bins contiguous within a size, counts >= 0.
awk -F, -v sizes="$*" 'BEGIN { n = split(sizes, s, " "); for (i = 1; i <= n; i++) ok[s[i]] = 1 }
  NR == 1 { next }
  NF != 4 || !($1 in ok) || !($2 + 0 < $3 + 0) || $4 < 0 || $4 != int($4) { print "bad row " NR ": " $0; exit 1 }
  ($1 in hi) && ($2 - hi[$1] > 0.01 || hi[$1] - $2 > 0.01) { print "gap before row " NR ": " $0; exit 1 }
  { hi[$1] = $3 }' "$hist" >/tmp/check_hist.$$ || {
  msg=$(cat /tmp/check_hist.$$); rm -f /tmp/check_hist.$$; fail "histogram: $msg"; }
rm -f /tmp/check_hist.$$
exit 0
