#!/usr/bin/env bash
# CI phase: geoattn where the GPUs are. A Debian 12 root that never had geoattn's -dev packages
# (debootstrap --variant=minbase, then only g++, python3-venv and python3-dev), with no CUDA
# toolkit; in it, as a user without root:
#   1. a venv with PyPI's cmake, ninja and a torch wheel (TORCH_SPEC, a CUDA build);
#   2. `pip install ./python` with build isolation: the package and the geoattn command, linked
#      against that venv's torch (python/build_backend), every other dependency from vendor/;
#   3. `geoattn` from PATH on the shipped stories260K, and the installed package's pytest;
#   4. the suite that links LibTorch (ctest, less the `release-only` label), built in the same build
#      folder as the wheel so that nothing is compiled twice.
#   scripts/ci/bare-root.sh        (root: debootstrap, chroot and mounts need it)
# Environment: TORCH_SPEC (default torch==2.6.0, the oldest docs/building.md claims), BARE_ROOT (the
# root's folder, reused while it holds the same packages), BARE_PIP_CACHE (pip's cache, shared by
# the runs on one machine). Prints the torch it used.
set -euo pipefail
cd "$(dirname "$0")/../.."
die() { echo "bare-root: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot, mount)"
TORCH_SPEC=${TORCH_SPEC:-torch==2.6.0}
root=${BARE_ROOT:-/var/tmp/geoattn-bare-root}
cache=${BARE_PIP_CACHE:-/var/cache/geoattn-bare-pip}
packages=g++,python3-venv,python3-dev
user=builder
uid=4242

mounts=()
real_models=()
cleanup() {
  local i
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[i]}" 2>/dev/null || true; done
}
trap cleanup EXIT
mount_into() {  # mount_into TARGET MOUNT-ARGS...
  local target=$1
  shift
  mkdir -p "$target"
  mount "$@" "$target"
  mounts+=("$target")
}

# A run killed before its trap ran (SIGKILL, a machine stopped) leaves its mounts behind, the real
# models read-only among them: undo them, deepest first, before anything under the root is removed.
while read -r target; do
  umount -l "$target" || die "cannot unmount $target, left by an earlier run"
done < <(findmnt -rno TARGET | grep "^$root/" | sort -r)
! findmnt -rno TARGET | grep -q "^$root/" || die "$root still has mounts after unmounting them"

# 1. The root, made once per machine (about 2 minutes) and reused while its stamp matches.
stamp="bookworm minbase $packages user $user:$uid"
if [ "$(cat "$root/.geoattn-bare-root" 2>/dev/null)" != "$stamp" ]; then
  if ! command -v debootstrap >/dev/null; then
    apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap >/dev/null
  fi
  rm -rf "$root"
  echo "bare-root: debootstrap --variant=minbase --include=$packages bookworm $root" >&2
  debootstrap --variant=minbase --include="$packages" bookworm "$root" http://deb.debian.org/debian >/dev/null
  chroot "$root" useradd --create-home --uid "$uid" "$user"
  echo "$stamp" >"$root/.geoattn-bare-root"
fi
for dev in libtorch-dev libfmt-dev nlohmann-json3-dev libcli11-dev libeigen3-dev libgtest-dev libsentencepiece-dev \
           libarchive-dev cmake ninja-build nvidia-cuda-toolkit; do
  ! chroot "$root" dpkg-query -W -f='${Status}' "$dev" 2>/dev/null | grep -q "install ok installed" ||
    die "$root has $dev installed: not a bare root"
done
[ ! -e "$root/usr/local/cuda" ] || die "$root has a CUDA toolkit"

# The working tree (tracked and untracked files, not the ignored ones) copied in afresh.
home=$root/home/$user
rm -rf "$home/geoattn"
mkdir -p "$home/geoattn"
git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf - | tar -xf - -C "$home/geoattn"
chown -R "$uid:$uid" "$home/geoattn"
# The real models the release phase fetched and converted (scripts/get-model.sh; ignored by git,
# so not in the copy): bound in read-only, so that RealModel.* and python/tests/test_hf.py run
# here too (in CI they fail where a model is absent).
for model in models/smollm2-135m models/gemma3-270m; do
  [ -f "$model/model.safetensors" ] && real_models+=("$model")
done
# This machine's way to the package registry: its resolver, its pip configuration and the CA
# bundle that configuration names (a TLS-intercepting proxy signs with a CA of its own).
cp /etc/resolv.conf "$root/etc/resolv.conf"
pass=()
while IFS= read -r line; do pass+=("$line"); done < <(env | grep -E '^(PIP_(CERT|INDEX_URL|EXTRA_INDEX_URL|TRUSTED_HOST|DEFAULT_TIMEOUT)|https?_proxy|HTTPS?_PROXY|no_proxy|NO_PROXY)=' || true)
[ -f /etc/pip.conf ] && cp /etc/pip.conf "$root/etc/pip.conf"
for cert in "${PIP_CERT:-}" $(sed -n 's/^ *cert *= *//p' /etc/pip.conf 2>/dev/null); do
  [ -f "$cert" ] && mkdir -p "$root$(dirname "$cert")" && cp "$cert" "$root$cert"
done
mkdir -p "$cache" "$home/.cache/pip"
chown "$uid:$uid" "$cache" "$home/.cache" "$home/.cache/pip"
mount_into "$root/proc" -t proc proc
mount_into "$root/dev" --bind /dev
mount_into "$root/dev/shm" -t tmpfs tmpfs
mount_into "$home/.cache/pip" --bind "$cache"
for model in ${real_models[@]+"${real_models[@]}"}; do
  mount_into "$home/geoattn/$model" --bind "$model"
  mount -o remount,bind,ro "$home/geoattn/$model"
done

# 2-4, as the user, with nothing of this machine's environment but the way to the registry.
chroot --userspec="$user:$user" "$root" /usr/bin/env -i HOME="/home/$user" USER="$user" PATH=/usr/bin:/bin LANG=C.UTF-8 \
  ${pass[@]+"${pass[@]}"} CI="${CI:-}" TORCH_SPEC="$TORCH_SPEC" JOBS="$(nproc)" bash -c '
set -euo pipefail
cd ~/geoattn
SECONDS=0
python3 -m venv ~/venv
export PATH=~/venv/bin:$PATH
pip install -q --disable-pip-version-check cmake ninja "$TORCH_SPEC" -r scripts/requirements-bare.txt
echo "bare-root: $(python -c "import torch; print(\"torch\", torch.__version__, \"CUDA\", torch.version.cuda)"), $(cmake --version | head -1), $(g++ --version | head -1); no nvcc: $(command -v nvcc || echo none); venv ready at ${SECONDS} s" >&2

# The one pip command (build isolation on), with the tests configured too so that step 4 reuses its objects.
CMAKE_BUILD_PARALLEL_LEVEL=$JOBS pip install -q --disable-pip-version-check \
  --config-settings=cmake.define.GEOATTN_BUILD_TESTS=ON --config-settings=cmake.define.GEOATTN_PURE_TESTS=OFF "./python[hf,figures]"
echo "bare-root: pip install ./python done at ${SECONDS} s" >&2
build=$(ls -d python/build/*/ | head -1)
scripts/check-links.sh "$(python -c "import geoattn, os; print(os.path.dirname(geoattn.__file__))")/bin/geoattn" \
  "$(python -c "import torch, os; print(os.path.dirname(torch.__file__))")"

# The installed command and package, from outside the source tree.
cd ~
geoattn --version
rm -f /tmp/bare.json /tmp/bare.*.safetensors  # a root kept from an earlier run holds its outputs
geoattn measure --quiet --model geoattn/models/stories260K --data geoattn/data/tinystories/tinystories-sample.txt \
  --ctx 64 --max-windows 4 --bootstrap 100 --out /tmp/bare.json
python -c "import json; j = json.load(open(\"/tmp/bare.json\")); print(\"bare-root: geoattn measure from PATH:\", j[\"data\"][\"windows\"], \"windows\")"
# A command of the Python package through geoattn, the venv off PATH: geoattn summary runs
# geoattn-summary of the venv (the geoattn of the package puts its scripts folder first on PATH).
# (No apostrophe in these lines: they are inside the single quotes of bash -c.)
env PATH=/usr/bin:/bin ~/venv/bin/geoattn summary /tmp/bare.json --per head --top 3 --csv >/tmp/top3.csv
[ "$(wc -l </tmp/top3.csv)" = 4 ] && head -1 /tmp/top3.csv | grep -q "^layer,head,P@4," ||
  { echo "bare-root: geoattn summary did not print the table of geoattn-summary:" >&2; cat /tmp/top3.csv >&2; exit 1; }
echo "bare-root: geoattn summary ran geoattn-summary of the package: 3 heads" >&2
# No libarchive here: a tar shard is refused in one line that names it, with a non-zero exit.
if geoattn capture --quiet --model geoattn/models/stories260K --data geoattn/data/openwebtext/urlsf_subset00.tar \
     --out /tmp/owt.safetensors 2>/tmp/owt.err; then
  echo "bare-root: a tar shard was read without libarchive" >&2; exit 1
fi
[ "$(wc -l </tmp/owt.err)" = 1 ] && grep -q "urlsf_subset00.tar: a tar archive, and this geoattn was built without libarchive" /tmp/owt.err ||
  { echo "bare-root: not the one-line refusal:" >&2; cat /tmp/owt.err >&2; exit 1; }
[ ! -e /tmp/owt.safetensors ] || { echo "bare-root: a refused run left its output" >&2; exit 1; }
echo "bare-root: without libarchive: $(cat /tmp/owt.err)" >&2
GEOATTN_BIN=$(command -v geoattn) python -m pytest -q -p no:cacheprovider geoattn/python/tests
echo "bare-root: installed package tests done at ${SECONDS} s" >&2
# The package type-checks (its [tool.mypy] in python/pyproject.toml): every error fails CI.
(cd geoattn/python && python -m mypy --cache-dir=/dev/null)
echo "bare-root: mypy passed on the package" >&2

# The suite that links LibTorch, in the build folder of the wheel.
# (Configured again with the venv'"'"'s cmake and ninja: those of pip'"'"'s build environment are gone.)
cd ~/geoattn
cmake -S . -B "$build" "-DCMAKE_MAKE_PROGRAM=$(command -v ninja)" >/dev/null
cmake --build "$build" -j"$JOBS"
ctest --test-dir "$build" --output-on-failure -j"$JOBS" -LE release-only
echo "bare-root: suite done at ${SECONDS} s" >&2
'
