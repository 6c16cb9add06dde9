#!/bin/sh
# Cross-check of the Markov model against the simulator (docs/model.md, section 9):
# one markdown row per (cores, RX ring) point.
# Usage: scripts/xcheck.sh [BIN] [PACKETS] [RATE] [CORES...]
BIN=${1:-build/ddiosim}
PKTS=${2:-400000}
RATE=${3:-max}
shift 3 2>/dev/null
CORES=${*:-1 2 4 8}
for C in $CORES; do
  for R in ${RINGS:-64 128 256 512 1024 2048 4096}; do
    "$BIN" predict --pkt-size 1500 --from-sim --no-desc --mapping random --policy lru \
      --cores "$C" --rx-ring "$R" --rate "$RATE" --packets "$PKTS" --format json |
    python3 -c '
import json, sys
c, r = sys.argv[1], sys.argv[2]
d = json.load(sys.stdin)
q = d["queues"]
s = d["simulated"]
w, rd = d["pcie_write_hit_frac"]["lower"], d["pcie_read_hit_frac"]["lower"]
sw, sr = s["pcie_write_hit_frac"], s["pcie_read_hit_frac"]
print("| %s | %s | %.1f / %.1f / %.1f / %.1f / %.1f | %.2f | %.2f | %+.2f | %.2f | %.2f | %+.2f |" % (
    c, r, q["rx_replenish"], q["rx"], q["tx"], q["tx_recycle"], q["sw_queue"],
    100 * sw, 100 * w, 100 * (w - sw), 100 * sr, 100 * rd, 100 * (rd - sr)))
' "$C" "$R"
  done
done
