#!/bin/bash
# Regenerates tests/data/babylon_generated.json: generated models (sinew-hostile's generator,
# unique bone names, ordinary numbers) with a static pose each, evaluated by babylon-mmd 1.3.0
# through ../shared/oracle (Node 20 + npm; see its README).
#
# usage: crates/sinew-hostile/oracle/regenerate.sh [COUNT] [SEED]   (from the workspace root)
set -euo pipefail
COUNT=${1:-250}
SEED=${2:-31}
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
WORK=$(mktemp -d)
cp -r "$ROOT/../shared/oracle" "$WORK/oracle"
(cd "$WORK/oracle" && npm ci --silent)
cargo run --release -q -p sinew-hostile --example oracle_cases -- "$WORK/cases" "$COUNT" "$SEED"
for i in $(seq 0 $((COUNT - 1))); do
  (cd "$WORK/oracle" && node --import ./register-hook.mjs babylon_oracle.mjs \
    --model "$WORK/cases/case_$i.pmx" --pose "$WORK/cases/case_$i.json" \
    --out "$WORK/cases/b_$i.json" > /dev/null 2>&1) || echo "case $i: babylon-mmd refused the model"
done
python3 "$ROOT/crates/sinew-hostile/oracle/pack.py" "$WORK/cases" "$COUNT" \
  "$ROOT/crates/sinew-hostile/tests/data/babylon_generated.json"
rm -rf "$WORK"
