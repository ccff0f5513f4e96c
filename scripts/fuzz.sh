#!/usr/bin/env bash
# libFuzzer over geoattn's parsers: safetensors header and index, config.json, the
# shard readers (.jsonl, OpenWebText tar-of-xz, .bin), bounds params, taxonomy, merge state
# (measure and sinks sidecars).
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default 120 s, every target)
#   FUZZ_MERGE=1 scripts/fuzz.sh ...   also write a minimised corpus (committed + new) to
#                                      build-fuzz/merged/<target>/ to pick regression inputs from
# The committed corpus (tests/fuzz/corpus/, < 2 MB) stays curated: seeds plus every input that
# once found a bug; a full merge of a 3-minute run is ~1000 files per target.
# Installs clang/libFuzzer if missing (Debian), builds build-fuzz/ (-DGEOATTN_FUZZ=ON: clang with
# -fsanitize=fuzzer,address,undefined), runs the targets one at a time, and prints one line per
# target. Inputs found along the way go to build-fuzz/corpus/<target>/, findings to
# build-fuzz/artifacts/<target>/ (replay one: build-fuzz/bin/fuzz_<target> FILE).
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_PER_TARGET=${1:-120}
[ $# -gt 0 ] && shift
ALL_TARGETS=(safetensors safetensors_index config shard_jsonl shard_tar shard_bin bounds_params taxonomy run_state sink_state)
TARGETS=("$@")
[ ${#TARGETS[@]} -eq 0 ] && TARGETS=("${ALL_TARGETS[@]}")
BUILD=${FUZZ_BUILD_DIR:-build-fuzz}
JOBS=${FUZZ_BUILD_JOBS:-$(nproc)}

# Each target's longest input: room above the largest seed, small enough to stay fast.
max_len_of() {
  case $1 in
    shard_tar) echo 32768 ;;
    taxonomy | run_state | sink_state) echo 20000 ;;
    safetensors) echo 8192 ;;
    shard_jsonl) echo 4096 ;;
    *) echo 2048 ;;
  esac
}
# Each target's dictionary (tests/fuzz/dict/): the JSON tokens plus its own keys.
dicts_of() {
  case $1 in
    shard_tar | shard_bin) ;;
    *) echo tests/fuzz/dict/json.dict tests/fuzz/dict/$1.dict ;;
  esac
}

# ---- clang + libFuzzer (Debian 12: clang 14 and its compiler-rt) ------------------------
source scripts/setup.sh
have_libfuzzer() {
  command -v clang++ >/dev/null 2>&1 &&
    echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' |
      clang++ -x c++ -fsanitize=fuzzer,address,undefined - -o /dev/null >/dev/null 2>&1
}
GEOATTN_PACKAGES=(cmake ninja-build pkg-config clang libclang-rt-dev libsentencepiece-dev libcli11-dev
                  nlohmann-json3-dev libeigen3-dev libfmt-dev libarchive-dev)
geoattn_install_packages
have_libfuzzer || { echo "fuzz: clang++ cannot link -fsanitize=fuzzer (is libclang-rt-dev installed?)" >&2; exit 1; }

# ---- build --------------------------------------------------------------------------------
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DGEOATTN_FUZZ=ON >/dev/null
cmake --build "$BUILD" -j"$JOBS" >/dev/null

# ---- run ----------------------------------------------------------------------------------
summary=()
status=0
for t in "${TARGETS[@]}"; do
  bin="$BUILD/bin/fuzz_$t"
  [ -x "$bin" ] || { echo "fuzz: no target '$t' (have: ${ALL_TARGETS[*]})" >&2; exit 2; }
  work="$BUILD/corpus/$t" artifacts="$BUILD/artifacts/$t" log="$BUILD/logs/$t.log"
  mkdir -p "$work" "$artifacts" "$(dirname "$log")"
  dict_args=()
  dicts=$(dicts_of "$t")
  if [ -n "$dicts" ]; then
    cat $dicts >"$BUILD/logs/$t.dict"
    dict_args=(-dict="$BUILD/logs/$t.dict")
  fi
  before=$(find "$artifacts" -type f | wc -l)
  echo "fuzz: $t for ${SECONDS_PER_TARGET}s (log: $log)" >&2
  rc=0
  # The first folder receives new inputs; the committed corpus is read as seeds only.
  "$bin" "$work" "tests/fuzz/corpus/$t" -max_total_time="$SECONDS_PER_TARGET" -max_len="$(max_len_of "$t")" \
    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts/" "${dict_args[@]}" \
    >"$log" 2>&1 || rc=$?
  crashes=$(( $(find "$artifacts" -type f | wc -l) - before ))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  new=$(sed -n 's/^stat::new_units_added: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  if [ "${FUZZ_MERGE:-0}" = 1 ] && [ "$rc" -eq 0 ]; then
    rm -rf "$BUILD/merged/$t" && mkdir -p "$BUILD/merged/$t"
    "$bin" -merge=1 -max_len="$(max_len_of "$t")" "$BUILD/merged/$t" "tests/fuzz/corpus/$t" "$work" >>"$log" 2>&1 || true
  fi
  files=$(find "tests/fuzz/corpus/$t" -type f | wc -l)
  bytes=$(find "tests/fuzz/corpus/$t" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
  line=$(printf '%-18s %5ss  execs %-10s new_units %-6s cov %-6s crashes %s  corpus %s files, %s bytes' \
    "$t" "$SECONDS_PER_TARGET" "${execs:-?}" "${new:-?}" "${cov:-?}" "$crashes" "$files" "$bytes")
  if [ "$rc" -ne 0 ]; then
    line="$line  FINDING (exit $rc): $(grep -m1 -E 'ERROR: |geoattn fuzz finding|runtime error' "$log" || echo "see $log")"
    status=1
  fi
  summary+=("$line")
done

echo
printf '%s\n' "${summary[@]}"
total=$(find tests/fuzz/corpus -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
echo "committed corpus: $total bytes in all"
[ "$total" -lt $((2 * 1024 * 1024)) ] || echo "fuzz: warning: tests/fuzz/corpus is above 2 MB; prune it" >&2
exit $status
