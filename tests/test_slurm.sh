#!/usr/bin/env bash
# The job-array route end to end on a real single-node Slurm (Debian's slurm-wlm, started here):
# submit.sh runs 3 shard tasks and the merge, for measure, sinks and intervene; the merged numbers
# equal one run's.
#   tests/test_slurm.sh SOURCE_DIR BIN_DIR
# Needs root (the daemons) and Slurm (installed with apt-get if missing); without them, or with
# GEOATTN_SKIP_SLURM=1, it skips (exit 77).
set -euo pipefail
src=$1 bin=$2
if [ "$(id -u)" -ne 0 ] || [ "${GEOATTN_SKIP_SLURM:-0}" = 1 ]; then echo "skipped: needs root for slurmctld/slurmd"; exit 77; fi
tmp=$(mktemp -d)
# The verdict is the test's, not the cleanup's: a leftover temp file never fails the run.
cleanup() {
  local rc=$?
  bash "$src/tests/slurm/single-node.sh" stop "$tmp/slurm" >/dev/null 2>&1 || true
  rm -rf "$tmp" || echo "note: could not remove $tmp" >&2
  exit "$rc"
}
trap cleanup EXIT
rc=0
bash "$src/tests/slurm/single-node.sh" start "$tmp/slurm" || rc=$?
if [ "$rc" = 77 ]; then echo "skipped: no Slurm here and none installable"; exit 77; fi
[ "$rc" = 0 ] || { echo "single-node.sh start failed ($rc)"; exit "$rc"; }
python3 - "$src" "$tmp/docs.jsonl" <<'PY'
import json, sys
text = open(sys.argv[1] + "/data/openwebtext/openwebtext-first100.txt").read()
with open(sys.argv[2], "w") as f:
    for i in range(8):
        f.write(json.dumps({"text": text[i * 3000:(i + 1) * 3000]}) + "\n")
PY
args=(--model "$src/models/stories260K" --data "$tmp/docs.jsonl" --ctx 64 --bootstrap 200)
GEOATTN="$bin/geoattn" timeout 600 bash "$src/scripts/slurm/submit.sh" --shards 3 --out "$tmp/run" --wait -- "${args[@]}"
"$bin/geoattn" measure "${args[@]}" --quiet --out "$tmp/one.json"
# Each task's log holds its progress and its last line, not only the end.
for i in 0 1 2; do
  log=$(ls "$tmp/run"/geoattn-shard-*_"$i".log)
  grep -q "windows/s\|ETA" "$log" || { echo "slurm: task $i's log has no progress line:"; cat "$log"; exit 1; }
  grep -q "^wrote .*shard-$i.json" "$log" || { echo "slurm: task $i's log has no last line:"; cat "$log"; exit 1; }
done
echo "slurm: every task's log shows its progress"
python3 - "$tmp/run/merged.json" "$tmp/one.json" "$src/python" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[3])
from geoattn.results import load_measure
merged, one = (load_measure(p) for p in sys.argv[1:3])
for j in (merged, one):
    j.pop("data"); j.pop("timing"); j.pop("run_id")  # a digest of the description, data included
assert json.dumps(merged, sort_keys=True) == json.dumps(one, sort_keys=True), "merged shards differ from one run"
print("slurm: 3 shard tasks + merge == one run")
PY
# geoattn sinks through the same route.
sargs=(--model "$src/models/stories260K" --data "$tmp/docs.jsonl" --ctx 64)
GEOATTN="$bin/geoattn" timeout 600 bash "$src/scripts/slurm/submit.sh" --command sinks --shards 3 --out "$tmp/sinks" --wait -- "${sargs[@]}"
"$bin/geoattn" sinks "${sargs[@]}" --quiet --out "$tmp/sinks-one.json"
python3 - "$tmp/sinks/merged.json" "$tmp/sinks-one.json" <<'PY'
import json, sys
merged, one = (json.load(open(p)) for p in sys.argv[1:3])
for j in (merged, one):
    j.pop("data"); j.pop("timing"); j.pop("run_id")  # a digest of the description, data included
assert merged["schema"] == "geoattn.sinks/1" and merged["windows"] == 8, (merged["schema"], merged["windows"])
assert json.dumps(merged, sort_keys=True) == json.dumps(one, sort_keys=True), "merged sinks shards differ from one run"
print("slurm: 3 sinks shard tasks + merge == one run")
PY
# geoattn intervene through the same route: each head alone and a random control, merged.
iargs=(--model "$src/models/stories260K" --data "$tmp/docs.jsonl" --ctx 64 --heads 2.1,3.0 --intervention random:4 --random-sets 1)
GEOATTN="$bin/geoattn" timeout 600 bash "$src/scripts/slurm/submit.sh" --command intervene --shards 3 --out "$tmp/iv" --wait -- "${iargs[@]}"
"$bin/geoattn" intervene "${iargs[@]}" --quiet --out "$tmp/iv-one.json"
python3 - "$tmp/iv/merged.json" "$tmp/iv-one.json" <<'PY'
import json, sys
merged, one = (json.load(open(p)) for p in sys.argv[1:3])
for j in (merged, one):
    j.pop("data"); j.pop("timing")
    j["per_document"] = dict(zip(j["per_document"]["documents"], j["per_document"]["sums"]))
assert merged["schema"] == "geoattn.intervene/1" and merged["intervals"]["documents"] == 8, merged["intervals"]
assert json.dumps(merged, sort_keys=True) == json.dumps(one, sort_keys=True), "merged intervene shards differ from one run"
print("slurm: 3 intervene shard tasks + merge == one run")
PY
