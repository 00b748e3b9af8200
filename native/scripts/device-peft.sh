#!/usr/bin/env bash
# Hone's PEFT export checked in transformers + PEFT (docs/export.md), in three steps: the GPU machine
# has torch, transformers and peft but no Node, and `hone export` is the product code under test.
#
#   1. GPU machine:  native/scripts/device-peft.sh prepare
#        builds a CPU hone-train from the llama.cpp bundle with our patches (carry .device/gitRelease.bundle,
#        as for device-cuda.sh; the source folder is shared with it), makes a small random
#        Hugging Face llama and qwen2 (config only), converts them with the bundle's convert_hf_to_gguf.py,
#        trains each with hone-train (CPU, 12 steps, rank 8, every target: non-zero B), scores the token
#        sequences with and without the adapter (hone-train score), and leaves $OUT/peft-check.tar.
#   2. Here (Node):  native/scripts/device-peft.sh export PATH/peft-check.tar
#        unpacks it into .device/peft-check/ and runs `hone export --format peft` on each adapter.
#   3. GPU machine:  native/scripts/device-peft.sh check        (carry .device/peft-check)
#        loads each HF model with Hone's PEFT folder and compares its cross-entropy with Hone's:
#        one JSON line per model in $OUT/peft-check.jsonl; exit 1 unless both pass.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dev=$root/.device
work=$dev/peft-check
out=${OUT:-/tmp/hone-device-out}
stage=${1:-}
. "$root/native/scripts/device-source.sh"
log() { echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$out/peft-summary.txt"; }

# The patched llama.cpp source (its converter too) and a CPU hone-train; the logs stay out of $OUT.
build_cpu() {
  local build=$root/native/build/device/build-cpu
  prepare_source "$src" "$root/native/patches" "$dev/gitRelease.bundle" || return 1
  cmake -S "$root/native" -B "$build" -G Ninja -DHONE_LLAMA_DIR="$src" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
    -DGGML_NATIVE=ON -DGGML_CUDA=OFF -DGGML_OPENMP=OFF -DLLAMA_OPENSSL=OFF > /tmp/hone-peft-cmake.log 2>&1 || { tail -20 /tmp/hone-peft-cmake.log; return 1; }
  cmake --build "$build" -j "$(nproc)" --target hone-train > /tmp/hone-peft-build.log 2>&1 || { grep -E "error|FAILED" /tmp/hone-peft-build.log | head -20; return 1; }
}

src=$root/native/build/device/llama.cpp
bin=$root/native/build/device/build-cpu/bin/hone-train

case $stage in
prepare)
  mkdir -p "$out"
  t0=$(date +%s)
  build_cpu || exit 1
  log "built hone-train (CPU) in $(( $(date +%s) - t0 )) s; $(python3 -c 'import torch, transformers, peft; print("torch", torch.__version__, "transformers", transformers.__version__, "peft", peft.__version__)')"
  rm -rf "$work" && mkdir -p "$work"
  PYTHONUNBUFFERED=1 python3 "$root/native/scripts/peft-check.py" make "$work" --llama-src "$src" > "$out/peft-make.log" 2>&1 \
    || { tail -30 "$out/peft-make.log"; exit 1; }
  for arch in llama qwen2; do
    m=$work/$arch/base.gguf
    "$bin" --model "$m" --data "$work/tokens.jsonl" --out "$work/$arch/run" --steps 12 --ctx 64 --lr 2e-2 --rank 8 --alpha 16 \
      --targets all --backend cpu --threads 4 --seed 1 --json > "$work/$arch/train.jsonl" 2>> "$out/peft-make.log" || { log "$arch: training failed"; exit 1; }
    cp "$work/$arch/run/adapter.gguf" "$work/$arch/adapter.gguf"
    for with in base adapter; do
      extra=(); [ $with = adapter ] && extra=(--adapter "$work/$arch/adapter.gguf")
      "$bin" score --model "$m" "${extra[@]}" --data "$work/tokens.jsonl" --ctx 64 --threads 4 --logits-out "$work/$arch/logits-$with.f32" \
        --json > "$work/$arch/score-$with.jsonl" \
        || { log "$arch: score ($with) failed"; exit 1; }
    done
    python3 - "$work/$arch" <<'PY'
import json, sys, pathlib
d = pathlib.Path(sys.argv[1])
nll = lambda f: [e["nll"] for e in map(json.loads, (d / f).read_text().splitlines()) if e.get("type") == "score"]
(d / "hone-score.json").write_text(json.dumps({"base": nll("score-base.jsonl"), "adapter": nll("score-adapter.jsonl")}) + "\n")
PY
    rm -rf "$work/$arch/run"
    log "$arch: trained, loss $(grep '"type":"step"' "$work/$arch/train.jsonl" | head -1 | sed 's/.*"loss":\([0-9.e+-]*\).*/\1/') -> $(grep '"type":"step"' "$work/$arch/train.jsonl" | tail -1 | sed 's/.*"loss":\([0-9.e+-]*\).*/\1/')"
  done
  tar -cf "$out/peft-check.tar" -C "$dev" peft-check
  log "wrote $out/peft-check.tar ($(du -h "$out/peft-check.tar" | cut -f1)): next, here: native/scripts/device-peft.sh export <that file>"
  ;;
export)
  tarball=${2:?usage: device-peft.sh export PATH/peft-check.tar}
  mkdir -p "$dev" && rm -rf "$work" && tar -xf "$tarball" -C "$dev" || exit 1
  for arch in llama qwen2; do
    node "$root/bin/hone.mjs" export --adapter "$work/$arch/adapter.gguf" --model "$work/$arch/base.gguf" --format peft \
      --out "$work/$arch/peft" --json | tail -1 || exit 1
  done
  echo "next, on the GPU machine with carry .device/peft-check: native/scripts/device-peft.sh check"
  ;;
check)
  mkdir -p "$out"
  [ -d "$work/llama/peft" ] || { echo "no $work/llama/peft: run the export step here first (and carry .device/peft-check)"; exit 1; }
  PYTHONUNBUFFERED=1 python3 "$root/native/scripts/peft-check.py" check "$work" | tee "$out/peft-check.jsonl"
  status=${PIPESTATUS[0]}
  log "check: $([ "$status" = 0 ] && echo pass || echo FAIL)"
  exit "$status"
  ;;
*)
  sed -n '2,15p' "$0"
  exit 2
  ;;
esac
