#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# retime calibrate and validate on the Score-P traces of ../shared/ext-traces (issue #36, item 4):
# what they could and could not fit there, as docs/calibrate.md records it.
# usage: calibrate_ext.sh RETIME EXT_TRACES_DIR
set -u
retime=$1; ext=$2
. "$(dirname "$0")/checks.sh"
H=(--alpha 2.122us --beta 0.7595ns/B)

# stencil4d-32: 128 KiB messages only (rendezvous), Irecv x8 + blocking MPI_Send x8 + one Waitall
out=$("$retime" calibrate "$ext/scorep-stencil4d-32")
check st4d-sends has "$out" "rendezvous  437 samples of 1 sizes (75 dropped above the cut; from 0 blocking receives, 0 waits, 512 blocking rendezvous sends)"
check st4d-one-size has "$out" "one message size only (131072 B): beta cannot be determined, nor alpha (no 0-byte messages)"
check st4d-T has "$out" "131072 B     437 samples  median 109.9us"
check st4d-no-eager has "$out" "o_s 0 samples of blocking eager sends of at most the small size: at least 3 are needed"
check st4d-no-file fails_with "not written" "$retime" calibrate "$ext/scorep-stencil4d-32" --output /dev/null/x
out=$("$retime" validate "$ext/scorep-stencil4d-32" "${H[@]}")
check st4d-validate-window has "$out" "error       -48.1% (predicted against measured over the window)"
check st4d-validate-ranks has "$out" "per rank                   32           43.6%"
check st4d-validate-no-callsites has "$out" "MPI_Irecv (no call site)"

# casita late sender: three 4-byte messages, sleeps
out=$("$retime" calibrate "$ext/scorep-casita-late-sender-4")
check casita-too-few has "$out" "eager       2 samples of 1 sizes (1 dropped above the cut; from 3 blocking receives"
check casita-said has "$out" "2 samples: at least 3 are needed"
check casita-o_s has "$out" "o_s 23.54us    3 samples (0 dropped)"
out=$("$retime" validate "$ext/scorep-casita-late-sender-4" "${H[@]}")
check casita-validate has "$out" "error       -0.0% (predicted against measured over the window)"
check casita-validate-regions has "$out" "per region instance         5            0.0%  late_sender #0 -0.0%"
checks_done
