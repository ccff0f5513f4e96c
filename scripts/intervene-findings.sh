#!/usr/bin/env bash
# The runs behind docs/intervene.md's readings: on one model, zero ablation of each taxonomy class
# beside random sets of as many heads, the sparsification sweep (budgets from a measure of
# WikiText-2 at T = 256 beside uniform top-n and sink-recent on every head), and every head alone
# under sink-recent:16 (the streaming heads). Windows of OpenWebText.
#
#   scripts/intervene-findings.sh [smollm2|gemma3|stories15M]   -> out/intervene/<model>/
#
# The committed runs are these files copied into docs/findings/<model>/ (stories15M: its
# sparsification run, at T = 256 over 32 windows with the budgets of its committed measure).
# About 40 minutes for SmolLM2 and 30 for Gemma-3 on 2 cores. BUILD_DIR (default build) holds geoattn.
set -euo pipefail
cd "$(dirname "$0")/.."
die() { echo "intervene-findings.sh: error: $*" >&2; exit 1; }
which=${1:-smollm2}
G=${BUILD_DIR:-build}/bin/geoattn
[ -x "$G" ] || die "$G is missing: build first (scripts/demo.sh or scripts/test.sh)"
OUT=${OUT:-out/intervene}/$which
mkdir -p "$OUT"
sweep=()
for t in 0.5 0.6 0.7 0.8 0.9; do sweep+=(--intervention "budget:R_rmin:$t"); done
for n in 4 8 16 32 64; do sweep+=(--intervention "top-n:$n" --intervention "sink-recent:$n"); done
case $which in
  smollm2) M=models/smollm2-135m; sets=19; W=12 ;;
  gemma3) M=models/gemma3-270m; sets=9; W=8 ;;
  stories15M)
    exec "$G" intervene --model models/stories15M --data data/openwebtext/openwebtext-60docs.jsonl --ctx 256 --max-windows 32 \
      --heads all --budget-from docs/findings/stories15M/measure.json "${sweep[@]}" --out "$OUT/intervene-sparsification.json" ;;
  *) die "unknown model '$which' (smollm2, gemma3 or stories15M)" ;;
esac
[ -f "$M/config.json" ] || die "$M is missing: scripts/get-model.sh $which"
for label in Retriever Reset Mixer; do
  "$G" intervene --model $M --data $M/openwebtext-60docs.bin --ctx 256 --max-windows $W --intervention zero \
    --taxonomy docs/findings/$which/taxonomy.json --label $label --random-sets $sets --out "$OUT/intervene-class-$label.json"
done
"$G" measure --model $M --data $M/wikitext2-raw-valid.bin --ctx 256 --max-windows 8 --bootstrap 0 --out "$OUT/measure256.json"
"$G" intervene --model $M --data $M/openwebtext-60docs.bin --ctx 256 --max-windows 8 --heads all \
  --budget-from "$OUT/measure256.json" "${sweep[@]}" --out "$OUT/intervene-sparsification.json"
"$G" intervene --model $M --data $M/openwebtext-60docs.bin --ctx 128 --max-windows 8 --each --intervention sink-recent:16 \
  --bootstrap 4000 --out "$OUT/intervene-streaming.json"
