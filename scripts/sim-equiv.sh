#!/usr/bin/env bash
# sim-equiv.sh - check that a simulator change is a pure optimisation:
# `ddiosim simulate --format json` outputs (all fields but wall_seconds,
# sim_mpps and the "ddiosim" provenance: version and command line) of a fixed
# set of configurations must not change.
#   scripts/sim-equiv.sh record DIR [BIN]   write the reference outputs to DIR
#   scripts/sim-equiv.sh check DIR [BIN]    compare BIN's outputs with DIR
# BIN defaults to build/ddiosim.  The repository's own path in an output
# (the sample trace's path in `traffic`) is written as <repo>, so a reference
# recorded in one checkout checks another.
# tests/data/sim-equiv is the reference `make test` checks (ctest
# sim_outputs): a change meant to move the simulator's outputs records it
# again (`scripts/sim-equiv.sh record tests/data/sim-equiv`) in the same
# commit, and says why in the commit message.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:?record|check}
dir=${2:?directory}
bin=${3:-build/ddiosim}
mkdir -p "$dir"
configs=(
  "l2fwd-mawi-1c|--profile mawi --rate max --packets 60000"
  "l2fwd-1500-1c|--profile fixed:1500 --rate max --packets 60000"
  "l2fwd-mawi-4c|--profile mawi --rate max --packets 60000 --cores 4"
  "l2fwd-1500-4c|--profile fixed:1500 --rate max --packets 60000 --cores 4"
  "l2fwd-64-2c|--profile fixed:64 --rate max --packets 60000 --cores 2"
  "l2fwd-imix-10g|--profile imix --rate 10 --packets 40000"
  "l2fwd-mawi-ring1024|--profile mawi --rate max --packets 60000 --rx-ring 1024 --tx-ring 1024"
  "l2fwd-1500-ring2048-4c|--profile fixed:1500 --rate max --packets 60000 --rx-ring 2048 --cores 4"
  "l2fwd-1500-ring64|--profile fixed:1500 --rate 10 --packets 30000 --rx-ring 64"
  "l2fwd-srrip|--profile mawi --rate max --packets 50000 --policy srrip --cores 2"
  "l2fwd-drrip|--profile fixed:1500 --rate max --packets 50000 --policy drrip --rx-ring 1024"
  "l2fwd-bip|--profile mawi --rate max --packets 50000 --policy bip --rx-ring 2048"
  "l2fwd-dip|--profile fixed:1500 --rate max --packets 40000 --policy dip --cores 4"
  "l2fwd-brrip-modulo|--profile mawi --rate max --packets 40000 --policy brrip --mapping modulo"
  "l2fwd-random-map|--profile fixed:1500 --rate max --packets 40000 --mapping random --cores 2"
  "bdw-mawi-1c|--machine broadwell-2650v4 --profile mawi --rate max --packets 60000"
  "bdw-1500-4c|--machine broadwell-2650v4 --profile fixed:1500 --rate max --packets 60000 --cores 4"
  "bdw-srrip-ring1024|--machine broadwell-2650v4 --profile mawi --rate max --packets 50000 --policy srrip --rx-ring 1024 --cores 2"
  "sky6132-mawi|--machine skylake-6132 --profile mawi --rate max --packets 50000 --cores 2"
  "clx6248-1500-4c|--machine cascadelake-6248 --profile fixed:1500 --rate max --packets 40000 --cores 4"
  "icx6338-mawi|--machine icelake-6338 --profile mawi --rate max --packets 40000 --cores 2"
  "spr6430-1500|--machine sapphirerapids-6430 --profile fixed:1500 --rate max --packets 40000"
  "ice-1500-2c|--machine $root/tests/data/skylake-6140-e810.json --profile fixed:1500 --rate max --packets 40000 --cores 2"
  "acrobat-4c|--workload acrobat --profile fixed:1500 --rate max --packets 40000"
  "acrobat-bdw|--workload acrobat --machine broadwell-2650v4 --profile mawi --rate max --packets 40000 --cores 2"
  "l3router|--workload l3router --profile mawi --rate max --packets 40000"
  "l3router-bdw|--workload l3router --machine broadwell-2650v4 --profile fixed:1500 --rate 40 --packets 40000 --cores 2"
  "firewall|--workload firewall --profile mawi --rate max --packets 40000 --cores 2 --warmup 5000"
  "ipsec|--workload ipsec --profile imix --rate max --packets 30000 --warmup 5000"
  "loadbalancer|--workload loadbalancer --profile mawi --rate max --packets 30000"
  "nodesc|--profile mawi --rate max --packets 40000 --no-desc"
  "trace|--packets 40000"
  "trace-4c-rate|--packets 40000 --cores 4 --rate 20"
  "distractor|--profile fixed:1500 --rate 20 --packets 30000 --set workload.distractor.working_set=4194304 --set workload.distractor.cat_mask=0x3"
  "align4k|--profile fixed:1500 --rate max --packets 40000 --set workload.driver.align_4k=true --rx-ring 1024"
  "seed7|--profile mawi --rate max --packets 40000 --seed 7 --cores 3"
  "ddio4|--profile mawi --rate max --packets 40000 --ddio-ways 4 --rx-ring 1024"
  "send|--workload l2fwd --profile fixed:512 --rate 20 --packets 30000 --set workload.mode=send"
  "receive|--workload l2fwd --profile mawi --rate max --packets 30000 --set workload.mode=receive --cores 2"
  "threshold|--profile mawi --rate max --packets 40000 --set workload.driver.rx_refill=threshold --set workload.driver.tx_recycle=threshold"
)
fail=0
for c in "${configs[@]}"; do
  name=${c%%|*}
  args=${c#*|}
  raw=$("$bin" simulate $args --format json 2>&1)
  rc=$?
  out=$(printf '%s\n' "$raw" | grep -v -E '"(wall_seconds|sim_mpps|ddiosim)"' | sed "s#$root/#<repo>/#g")
  out="rc=$rc
$out"
  if [ "$mode" = record ]; then
    printf '%s\n' "$out" > "$dir/$name.json"
  elif ! diff -q <(printf '%s\n' "$out") "$dir/$name.json" >/dev/null; then
    echo "DIFF: $name"
    diff <(printf '%s\n' "$out") "$dir/$name.json" | head -20
    fail=1
  fi
done
[ "$mode" = check ] && { [ $fail = 0 ] && echo "sim-equiv: all ${#configs[@]} configurations identical" || echo "sim-equiv: FAILED (outputs differ from $dir)"; }
exit $fail
