#!/usr/bin/env bash
# The distributable engine build (build-native.mjs with HONE_DIST=1) on a Linux GPU machine that has
# nvcc, cmake and ninja but no Node: the same CMake flags as the script's dist branch, with CUDA on,
# then the package layout checked from a folder outside the build tree.
#   native/scripts/device-dist.sh [source] [build] [check]      (default: all three)
#   source  the llama.cpp bundle (.device/gitRelease.bundle) cloned and patched, in the folder
#           device-cuda.sh and device-peft.sh use (native/build/device/llama.cpp)
#   build   hone-train and llama-quantize (the backend modules come with them: ggml depends on
#           them in a GGML_BACKEND_DL build); not the addon (no Node headers there)
#   check   hone-train, llama-quantize and the shared libraries copied as build-native.mjs copies
#           them (files named *.so) into a fresh folder; from there: ldd, a small model, 8 steps on
#           --backend cpu and --backend cuda (HONE_VERBOSE=1: the modules ggml loaded), the ops
#           each ran on; pass/fail lines. If the copied folder does not load, the check is repeated
#           with the versioned names (*.so.*) copied too, so the remaining checks still run.
# Logs: $OUT/dist-summary.txt (the figures), $OUT/dist-build.log (the end of the build output),
# $OUT/dist-check.tar (the check's files). Build outputs survive between calls on a warm machine.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dev=$root/.device
out=${OUT:-/tmp/hone-device-out}
mkdir -p "$out"
work=$root/native/build/device
src=$work/llama.cpp
build=$work/build-dist
pkg=${DIST_PKG:-/tmp/hone-dist-pkg}
jobs=${DIST_JOBS:-$(nproc)}
stages=${*:-source build check}
log() { echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$out/dist-summary.txt"; }
. "$root/native/scripts/device-source.sh"
verdict() { # verdict NAME EXIT-STATUS DETAIL
  if [ "$2" = 0 ]; then log "PASS $1: $3"; else log "FAIL $1: $3"; fi
}

source_tree() {
  prepare_source "$src" "$root/native/patches" "$dev/gitRelease.bundle" | tee -a "$out/dist-summary.txt"
  [ "${PIPESTATUS[0]}" = 0 ] || return 1
  log "source: $(git -C "$src" describe --tags --always 2>/dev/null) + $(ls "$root"/native/patches/*.patch | wc -l) patches (stamp $(cat "$src/.hone-stamp"))"
}

do_build() {
  local t0 rc
  t0=$(date +%s)
  # build-native.mjs, HONE_DIST=1 HONE_CUDA=1 HONE_CUDA_ARCH=90, on Linux x86-64 (no ccache there)
  cmake -S "$root/native" -B "$build" -G Ninja -DHONE_LLAMA_DIR="$src" -DCMAKE_BUILD_TYPE=Release \
    -DBUILD_SHARED_LIBS=ON -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DGGML_NATIVE=OFF -DGGML_CUDA=ON -DGGML_METAL=OFF \
    -DGGML_OPENMP=OFF -DGGML_BACKEND_DL=ON -DGGML_CPU_ALL_VARIANTS=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DGGML_CUDA_NCCL=OFF -DLLAMA_OPENSSL=OFF \
    ${DIST_CMAKE_EXTRA:-} > /tmp/hone-dist-cmake.log 2>&1 || { tail -30 /tmp/hone-dist-cmake.log | tee -a "$out/dist-summary.txt"; return 1; }
  log "configure: $(( $(date +%s) - t0 )) s; $(grep -cE 'GGML_CPU_ALL_VARIANTS|Adding CPU backend variant' /tmp/hone-dist-cmake.log) CPU variant lines; $(grep -iE 'NCCL' /tmp/hone-dist-cmake.log | head -1)"
  cmake --build "$build" -j "$jobs" --target hone-train llama-quantize > /tmp/hone-dist-build.log 2>&1
  rc=$?
  tail -200 /tmp/hone-dist-build.log > "$out/dist-build.log"
  if [ $rc != 0 ]; then
    grep -E "error|FAILED|undefined reference" /tmp/hone-dist-build.log | head -30 | tee -a "$out/dist-summary.txt"
    log "build: FAILED (exit $rc) after $(( $(date +%s) - t0 )) s"
    return 1
  fi
  log "build: $(( $(date +%s) - t0 )) s with -j $jobs ($(grep -cE '^\[[0-9]+/[0-9]+\]' /tmp/hone-dist-build.log) ninja steps this call)"
  log "build/bin shared objects: $(cd "$build/bin" && ls -1 | grep -E '\.so' | tr '\n' ' ')"
}

# Copy the package: what build-native.mjs copies (the executables; files whose names end in .so,
# links followed), and with ALL=1 the versioned names as well (links kept).
lay_out() {
  rm -rf "$pkg" && mkdir -p "$pkg" || return 1
  cp "$build/bin/hone-train" "$build/bin/llama-quantize" "$pkg/"
  for f in "$build"/bin/*.so; do cp -L "$f" "$pkg/"; done
  [ "${1:-}" = all ] && for f in "$build"/bin/*.so.*; do cp -P "$f" "$pkg/"; done
  log "package folder $pkg ($1): $(ls -1 "$pkg" | tr '\n' ' ')"
}

check_ldd() {
  local tag=$1 missing
  ldd "$pkg/hone-train" > "$pkg/ldd-hone-train.txt" 2>&1
  ldd "$pkg/llama-quantize" > "$pkg/ldd-llama-quantize.txt" 2>&1
  log "ldd hone-train ($tag), LD_LIBRARY_PATH='${LD_LIBRARY_PATH:-}':"
  sed 's/^/    /' "$pkg/ldd-hone-train.txt" | tee -a "$out/dist-summary.txt"
  log "hone-train dynamic section: $(readelf -d "$pkg/hone-train" 2>/dev/null | grep -E 'NEEDED|RUNPATH|RPATH' | sed -E 's/.*\((NEEDED|RUNPATH|RPATH)\)[^[]*\[([^]]*)\]/\1 \2/' | tr '\n' ';')"
  missing=$(cat "$pkg"/ldd-*.txt | grep -c 'not found')
  # every ggml/llama library resolved inside the package folder
  local outside
  outside=$(cat "$pkg"/ldd-*.txt | grep -E 'lib(ggml|llama)' | grep -vc "=> $pkg/")
  verdict "ldd ($tag)" $([ "$missing" = 0 ] && [ "$outside" = 0 ] && echo 0 || echo 1) \
    "$missing not found, $outside ggml/llama libraries resolved outside $pkg"
  [ "$missing" = 0 ] && [ "$outside" = 0 ]
}

do_check() {
  log "card: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1)"
  log "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'); flags: $(grep -m1 '^flags' /proc/cpuinfo | grep -oE 'avx512f|avx512_vnni|avx512_bf16|amx_tile|avx_vnni|avx2' | sort -u | tr '\n' ' ')"
  lay_out product || return 1
  if ! check_ldd "as build-native.mjs copies"; then
    log "the copied folder does not load as build-native.mjs lays it out; again with the versioned names copied too"
    lay_out all || return 1
    check_ldd "with *.so.* too" || return 1
  fi
  log "ldd of the modules: $(for m in "$pkg"/libggml-cuda*.so "$pkg"/libggml-cpu-x64.so; do echo "$(basename "$m"): $(ldd "$m" | grep -E 'ggml|cudart|cublas|nccl|not found' | awk '{print $1 "=>" $3}' | tr '\n' ' ')"; done)"

  cd "$pkg" || return 1
  local vocab=$src/models/ggml-vocab-llama-spm.gguf
  ./hone-train make-model --arch llama --embd 256 --layers 4 --heads 4 --kv-heads 2 --ff 512 --vocab-from "$vocab" \
    --type q8_0 --out m.gguf > make-model.log 2>&1
  verdict "make-model" $? "$(ls -l m.gguf 2>/dev/null | awk '{print $5}') bytes (q8_0, llama 256x4)"
  ./llama-quantize --allow-requantize m.gguf m-q4_k_m.gguf q4_k_m > quantize.log 2>&1
  verdict "llama-quantize from the folder" $? "q8_0 -> q4_k_m: $(ls -l m-q4_k_m.gguf 2>/dev/null | awk '{print $5}') bytes"
  python3 - > text.txt <<'PY'
import random
r = random.Random(5)
names = ["Mia", "Tom", "Ada", "Leo", "Ivy", "Sam"]
things = ["a red kite", "an old map", "the blue door", "a small boat", "the garden gate", "a wooden box"]
verbs = ["found", "painted", "opened", "carried", "lost", "fixed"]
for _ in range(600):
    print(f"{r.choice(names)} {r.choice(verbs)} {r.choice(things)} and then {r.choice(verbs)} {r.choice(things)} before dinner.")
PY
  for b in cpu cuda; do
    HONE_VERBOSE=1 ./hone-train --model m.gguf --data text.txt --out "run-$b" --backend $b --steps 8 --ctx 128 --rank 8 --alpha 16 \
      --lr 1e-3 --seed 1 --json > "train-$b.jsonl" 2> "train-$b.err"
    echo $? > "train-$b.rc"
    log "train --backend $b: exit $(cat "train-$b.rc"); modules ggml loaded:"
    grep -E 'load_backend|loaded .* backend|ggml_cuda_init|Device 0|score' "train-$b.err" | head -20 | sed 's/^/    /' | tee -a "$out/dist-summary.txt"
    [ "$(cat "train-$b.rc")" = 0 ] || grep -vE '^\s*$' "train-$b.err" | tail -15 | sed 's/^/    /' | tee -a "$out/dist-summary.txt"
  done
  python3 - "$pkg" <<'PY' | tee -a "$out/dist-summary.txt"
import json, math, sys, pathlib
d = pathlib.Path(sys.argv[1])
first = {}
for b in ("cpu", "cuda"):
    steps = [json.loads(l) for l in (d / f"train-{b}.jsonl").read_text().splitlines() if l.startswith('{"type":"step"')] if (d / f"train-{b}.jsonl").exists() else []
    ops_path = d / f"run-{b}" / "ops.json"
    ops = json.loads(ops_path.read_text()) if ops_path.exists() else None
    share = {k: v["nodes"] for k, v in ops["share"].items()} if ops else {}
    losses = [s["loss"] for s in steps]
    print(f"{b}: {len(steps)} steps, loss " + " ".join(f"{x:.4f}" for x in losses))
    if ops:
        print(f"{b}: {ops['n_compute_nodes']} compute nodes per step graph; nodes per backend {share}; splits {ops['n_splits']}; CPU fallbacks {len(ops['cpu_fallbacks'])}")
    ok = len(steps) == 8 and all(math.isfinite(x) for x in losses)
    if b == "cpu":
        ok = ok and bool(share) and all(k.startswith("CPU") for k in share)
    else:
        ok = ok and sum(v for k, v in share.items() if k.startswith("CUDA")) > 0
    print(f"{'PASS' if ok else 'FAIL'} train {b}: 8 finite steps, {'every node on the CPU' if b == 'cpu' else 'nodes on CUDA0'}")
    if losses:
        first[b] = losses[0]
if len(first) == 2:
    rel = abs(first["cpu"] - first["cuda"]) / abs(first["cpu"])
    print(f"{'PASS' if rel < 0.02 else 'FAIL'} first-step loss cpu {first['cpu']:.4f} vs cuda {first['cuda']:.4f}: relative difference {rel:.2e} (allowed 2e-2)")
PY
  tar -cf "$out/dist-check.tar" --exclude='*.so' --exclude='*.so.*' --exclude='*.gguf' --exclude=hone-train --exclude=llama-quantize -C "$(dirname "$pkg")" "$(basename "$pkg")"
}

for stage in $stages; do case $stage in
  source) source_tree || exit 1 ;;
  build) do_build || exit 1 ;;
  check) do_check || log "FAIL check: stopped early" ;;
  *) sed -n '2,17p' "$0"; exit 2 ;;
esac; done
fails=$(grep -cE '(^|\] )FAIL ' "$out/dist-summary.txt")
log "done: $fails FAIL line(s)"
[ "$fails" = 0 ]
