# SPDX-License-Identifier: MIT
# The check helpers of the CLI test scripts (cli.sh, montecarlo.sh, analyze.sh): source it,
# run `check NAME CONDITION...` per check, end with `checks_done`.
fails=0; passes=0
check() { # name, condition-command...
  local name=$1; shift
  if "$@"; then passes=$((passes+1)); echo "ok   $name"; else fails=$((fails+1)); echo "FAIL $name"; fi
}
has() { [ -n "$2" ] && grep -qF -- "$2" <<<"$1"; }
same() { [ -n "$1" ] && [ "$1" = "$2" ]; }
differ() { [ -n "$1" ] && [ -n "$2" ] && [ "$1" != "$2" ]; }
fails_with() { # expected text, command...: exit 1 (2: a usage error) and one error line containing the text
  local text=$1 err rc; shift
  err=$("$@" 2>&1 >/dev/null); rc=$?
  { [ "$rc" -eq 1 ] || [ "$rc" -eq 2 ]; } && [ "$(grep -c . <<<"$err")" -eq 1 ] && has "$err" "$text" ||
    { echo "  got rc=$rc: $err"; false; }
}
# awk condition over numbers: holds 'expr' a b ... (the arguments are $1.. of one line)
holds() { local expr=$1; shift; echo "$@" | awk "{ exit !($expr) }"; }
checks_done() { echo "$passes passed, $fails failed"; [ "$fails" -eq 0 ]; }
