#!/usr/bin/env bash
# Submits a sharded geoattn measure (sinks, intervene) run to Slurm: an array of n shard tasks, then a
# merge that runs when all of them succeeded.
#   scripts/slurm/submit.sh --shards N --out OUTDIR [--command measure|sinks|intervene] [--wait]
#                           [--sbatch "EXTRA SBATCH FLAGS"] -- ARGS...
# e.g. scripts/slurm/submit.sh --shards 16 --out runs/llama2 --sbatch "--gres=gpu:1 --time=4:00:00" -- \
#        --model /models/Llama-2-7b-hf --data /data/owt/urlsf_subset0*.tar --device cuda --ctx 1024
# GEOATTN (default: build/bin/geoattn beside this script) is the binary the tasks run.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
shards="" out="" wait_flag="" extra="" command=measure
while [ $# -gt 0 ]; do
  case "$1" in
    --shards) shards=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --wait) wait_flag="--wait"; shift ;;
    --command) command=$2; shift 2 ;;
    --sbatch) extra=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "submit.sh: unknown argument $1 (see the header of $0)" >&2; exit 2 ;;
  esac
done
[[ "$shards" =~ ^[1-9][0-9]*$ ]] || { echo "submit.sh: --shards N (N >= 1) is required" >&2; exit 2; }
[ -n "$out" ] || { echo "submit.sh: --out OUTDIR is required" >&2; exit 2; }
case "$command" in measure|sinks|intervene) ;; *) echo "submit.sh: --command $command: measure, sinks or intervene" >&2; exit 2 ;; esac
export GEOATTN_COMMAND=$command
mkdir -p "$out"
out=$(cd "$out" && pwd)
export GEOATTN=${GEOATTN:-$(cd "$here/../.." && pwd)/build/bin/geoattn}
# shellcheck disable=SC2086
array=$(sbatch --parsable $extra --output "$out/%x-%A_%a.log" --array=0-$((shards - 1)) \
  "$here/shard-array.sbatch" "$out" "$@")
echo "submitted shards: job $array (${shards} tasks)"
# shellcheck disable=SC2086
merge=$(sbatch --parsable $wait_flag --output "$out/%x-%j.log" --dependency=afterok:"$array" "$here/merge.sbatch" "$out")
echo "submitted merge: job $merge -> $out/merged.json"
