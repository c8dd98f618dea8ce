#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# mpirun wrapper: adds the flags OpenMPI needs as root and on few cores, so tests and scripts
# run the same way on a laptop, a CI container and a cluster login node.
set -euo pipefail
extra=()
if mpirun --version 2>&1 | grep -qi "open mpi"; then
  [ "$(id -u)" -eq 0 ] && extra+=(--allow-run-as-root)
  extra+=(--oversubscribe --bind-to none --mca btl self,vader,tcp --mca btl_vader_single_copy_mechanism none)
  export OMPI_MCA_rmaps_base_oversubscribe=1
fi
exec mpirun "${extra[@]}" "$@"
