#!/usr/bin/env bash
# GPU runs for the CUDA work, on a machine with nvcc, cmake and ninja but no Node and no
# network. Builds ggml-cuda + hone-train + test-backend-ops from the llama.cpp bundle with
# our patches, then runs the stages named on the command line, logging under $OUT. Newer stages
# are files of device-stages/ (ops-packed, real-lengths), each run by its name.
#   native/scripts/device-cuda.sh [build] [ops] [ops-all] [ops-bf16] [mem] [train] [bench] [plan] [precision] [set-rows] [rows] [types] [archs] [grad-ops] [oom] [attn] [attn-fit] [kernels] [attn-ncu] [recompute] [peft-fit] [fa-fused] [ops-ce] [row-kernels] [ops-mm-add] [moe-archs] [ops-out-prod-add] [ops-skinny] [ops-fa-lean] [ops-shared-src1] [ops-ce-stats] [ops-bf16-copy] [ops-sgemm-scale] [moe] [mmq-big] [moe-make] [moe-big] [norm-spike] [ns-ops] [delta-net] [gemma4] [grad-agree]
# Inputs (ignored by git, carried to the machine): .device/gitRelease.bundle (from the pinned
# node-llama-cpp tarball), .device/text.txt (training text) and optionally .device/native.tar
# (`git archive HEAD native`: build a committed snapshot instead of the working tree).
# Build outputs go to native/build/device, which survives between calls on a warm machine.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dev=$root/.device
out=${OUT:-/tmp/hone-device-out}
mkdir -p "$out"
work=$root/native/build/device
native=$root/native
if [ -f "$dev/native.tar" ]; then
  rm -rf "$work/snapshot" && mkdir -p "$work/snapshot" && tar -xf "$dev/native.tar" -C "$work/snapshot" && native=$work/snapshot/native
fi
src=$work/llama.cpp
build=$work/build-cuda
bin=$build/bin
stages=${*:-build ops mem train}
jobs=$(nproc)
log() { echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$out/summary.txt"; }
# One sequence per step, LoRA r 8 alpha 16, GPU memory sampled by nvidia-smi, the run logged:
# train_run TAG MODEL CTX STEPS TIMEOUT LOGFILE [VAR=value ...] (the variables set for hone-train);
# TRAIN_FLAGS: more hone-train flags (e.g. --recompute)
train_run() {
  local tag=$1 model=$2 ctx=$3 steps=$4 limit=$5 logf=$6; shift 6
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 100 > "$out/smi-$tag.txt" & local smi=$!
  env "$@" timeout "$limit" "$bin/hone-train" --model "$model" --data "$dev/text.txt" --out "$out/$tag" \
    --backend cuda --steps "$steps" --ctx "$ctx" --batch 1 --rank 8 --alpha 16 --json ${TRAIN_FLAGS:-} > "$out/$tag.jsonl" 2>> "$logf"
  local rc=$?; kill $smi 2>/dev/null
  log "$tag: exit $rc, peak GPU $(sort -n "$out/smi-$tag.txt" | tail -1) MiB used (nvidia-smi); $(python3 "$native/scripts/ops-summary.py" "$out/$tag/ops.json" "$out/$tag.jsonl" 2>&1)"
}

log "card: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader)"
log "stages: $stages"

# SKIP_BUILD=1: stages that run no binary of ours (peft-fit), e.g. on the GPU while another
# invocation builds on the CPUs
if [ "${SKIP_BUILD:-0}" != 1 ]; then
. "$root/native/scripts/device-source.sh"
prepare_source "$src" "$native/patches" "$dev/gitRelease.bundle" || { log "preparing the llama.cpp source failed"; exit 1; }
t0=$(date +%s)
mkdir -p "$work"
cmake -S "$native" -B "$build" -G Ninja -DHONE_LLAMA_DIR="$src" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
  -DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DGGML_NATIVE=ON -DGGML_CUDA_FA=ON -DGGML_CUDA_NCCL=OFF -DLLAMA_OPENSSL=OFF \
  > "$out/cmake.log" 2>&1 || { tail -20 "$out/cmake.log"; exit 1; }
# BUILD_TARGETS: fewer targets when a call has little time (e.g. test-backend-ops alone)
cmake --build "$build" -j "$jobs" --target ${BUILD_TARGETS:-hone-train test-backend-ops hone-test-out-prod-cuda-mem} > "$out/build.log" 2>&1 \
  || { grep -E "error|FAILED" "$out/build.log" | head -20; exit 1; }
log "build: $(( $(date +%s) - t0 )) s"
fi

vocab() { echo "$src/models/ggml-vocab-$1.gguf"; }

# A switch of our patches' op tests against the CPU, at 2 (on, each use printed to stderr) and
# 0 (off), with MMQ's batch limit at 64 (the BF16 paths):
# ops_switched LABEL VARIABLE PRINTED LOGNAME test-backend-ops filter arguments...
ops_switched() {
  local label=$1 var=$2 printed=$3 name=$4 mode; shift 4
  for mode in 2 0; do
    local f=$out/ops-$name-$mode.log
    env "$var=$mode" GGML_CUDA_MMQ_MAX_BATCH=64 timeout 120 "$bin/test-backend-ops" test -b CUDA0 "$@" > "$f" 2>&1
    log "$label, $var=$mode: $(grep -E 'tests passed' "$f" | tail -1 | sed 's/^ *//'), $(grep -c 'FAIL' "$f") FAIL, $(grep -o "$printed" "$f" | wc -l) uses printed"
    grep -oE "FAIL|$printed.*" "$f" | head -8 | sed 's/^/    /' | tee -a "$out/summary.txt"
  done
}

# Real model shapes for the benchmark and the plan check.
declare -A spec=(
  [qwen2.5-0.5b]="--arch qwen2 --embd 896 --layers 24 --heads 14 --kv-heads 2 --ff 4864 --tied --vocab-from $(vocab qwen2)"
  [llama-3.2-1b]="--arch llama --embd 2048 --layers 16 --heads 32 --kv-heads 8 --ff 8192 --tied --vocab-from $(vocab llama-bpe)"
  [qwen3-4b]="--arch qwen3 --embd 2560 --layers 36 --heads 32 --kv-heads 8 --head-dim 128 --ff 9728 --tied --vocab-from $(vocab qwen2)"
)
# The Qwen3-30B-A3B shape (stages moe-make, moe-big)
moe_big_shape="--arch qwen3moe --embd 2048 --layers 48 --heads 32 --kv-heads 4 --head-dim 128 --ff 6144 --experts 128 --experts-used 8 --expert-ff 768"

for stage in $stages; do case $stage in
ops)
  # OUT_PROD against the CPU backend: every case, the new multi-block ones included.
  "$bin/test-backend-ops" test -b CUDA0 -o OUT_PROD > "$out/ops-out-prod.log" 2>&1
  log "OUT_PROD: $(grep -cE '^\s+OUT_PROD.*OK' "$out/ops-out-prod.log") OK, $(grep -cE '^\s+OUT_PROD.*FAIL' "$out/ops-out-prod.log") FAIL, $(grep -c 'not supported \[CUDA0\]' "$out/ops-out-prod.log") not supported by CUDA0, $(grep -c 'not supported \[CPU\]' "$out/ops-out-prod.log") not supported by the CPU reference; $(grep -E 'tests passed' "$out/ops-out-prod.log" | tail -1)"
  grep -E 'k=600000|type_a=f16' "$out/ops-out-prod.log" | sed 's/^/    /' | tee -a "$out/summary.txt"
  ;;
ops-all)
  # every other op the training graph uses
  # OPS_ALL_OPS: a shorter list
  for op in ${OPS_ALL_OPS:-ADD MUL SCALE CONT GET_ROWS RMS_NORM RMS_NORM_BACK ROPE ROPE_BACK SOFT_MAX SOFT_MAX_BACK SILU SILU_BACK \
            REPEAT REPEAT_BACK CROSS_ENTROPY_LOSS CROSS_ENTROPY_LOSS_BACK OPT_STEP_ADAMW MUL_MAT}; do
    timeout 120 "$bin/test-backend-ops" test -b CUDA0 -o "$op" > "$out/ops-$op.log" 2>&1
    log "$op: $(grep -E 'tests passed' "$out/ops-$op.log" | tail -1 | sed 's/^ *//'), $(grep -c 'FAIL' "$out/ops-$op.log") FAIL, $(grep -c 'not supported \[CUDA0\]' "$out/ops-$op.log") not supported by CUDA0"
  done
  ;;
attn)
  # Fused attention (patches 0007/0008): the backward op against the CPU, then training at
  # growing sequence lengths with the fused path (HONE_FUSED_ATTENTION=1) and, at the first
  # length, the unfused graph in the same call (=0); a profiled fused step at the first length.
  # ATTN_TESTS=0: the training runs only
  if [ "${ATTN_TESTS:-1}" = 1 ]; then
  timeout 240 "$bin/test-backend-ops" test -b CUDA0 -o FLASH_ATTN_BACK > "$out/ops-FLASH_ATTN_BACK.log" 2>&1
  log "FLASH_ATTN_BACK: $(grep -E 'tests passed' "$out/ops-FLASH_ATTN_BACK.log" | tail -1 | sed 's/^ *//'), $(grep -c 'FAIL' "$out/ops-FLASH_ATTN_BACK.log") FAIL, $(grep -c 'not supported \[CUDA0\]' "$out/ops-FLASH_ATTN_BACK.log") not supported by CUDA0"
  grep -E 'FAIL|NMSE' "$out/ops-FLASH_ATTN_BACK.log" | head -8 | sed 's/^/    /' | tee -a "$out/summary.txt"
  # patch 0009's class-index cross-entropy (loss and backward) against the CPU
  for op in CROSS_ENTROPY_LOSS CROSS_ENTROPY_LOSS_BACK; do
    timeout 120 "$bin/test-backend-ops" test -b CUDA0 -o $op > "$out/ops-$op.log" 2>&1
    log "$op: $(grep -E 'tests passed' "$out/ops-$op.log" | tail -1 | sed 's/^ *//'), $(grep -c 'FAIL' "$out/ops-$op.log") FAIL, $(grep -c 'labels=i32.*OK' "$out/ops-$op.log") index cases OK"
  done
  GGML_CUDA_FA_BACK_BLOCK=32 timeout 240 "$bin/test-backend-ops" test -b CUDA0 -o FLASH_ATTN_BACK > "$out/ops-FLASH_ATTN_BACK-block32.log" 2>&1
  log "FLASH_ATTN_BACK in 32-query blocks: $(grep -E 'tests passed' "$out/ops-FLASH_ATTN_BACK-block32.log" | tail -1 | sed 's/^ *//'), $(grep -c 'FAIL' "$out/ops-FLASH_ATTN_BACK-block32.log") FAIL"
  # patch 0008's BF16 products (the fused backward of patch 0016 off), in one block and in
  # 32-query blocks
  for blk in 0 32; do
    GGML_CUDA_FA_BACK_BF16=1 GGML_CUDA_FA_BACK_FUSED=0 GGML_CUDA_FA_BACK_BLOCK=$blk timeout 240 "$bin/test-backend-ops" test -b CUDA0 -o FLASH_ATTN_BACK > "$out/ops-FLASH_ATTN_BACK-bf16-$blk.log" 2>&1
    log "FLASH_ATTN_BACK BF16 (block ${blk/#0/auto}): $(grep -E 'tests passed' "$out/ops-FLASH_ATTN_BACK-bf16-$blk.log" | tail -1 | sed 's/^ *//'), $(grep -c 'FAIL' "$out/ops-FLASH_ATTN_BACK-bf16-$blk.log") FAIL"
    grep -E 'FAIL' "$out/ops-FLASH_ATTN_BACK-bf16-$blk.log" | head -4 | sed 's/^/    /' | tee -a "$out/summary.txt"
  done
  fi
  for shape in ${ATTN_SHAPES:-qwen3-4b}; do
    m=$work/$shape-q4_k_m.gguf
    t0=$(date +%s)
    [ -f "$m" ] || "$bin/hone-train" make-model ${spec[$shape]} --type q4_k_m --out "$m" 2>> "$out/attn.log"
    log "$shape: make-model $(( $(date +%s) - t0 )) s"
    first=1
    for ctx in ${ATTN_CTX:-2048 8192 16384}; do
      for fused in 1 ${first:+${ATTN_UNFUSED-0}}; do
        train_run "$shape-$ctx-fused$fused" "$m" "$ctx" "${ATTN_STEPS:-5}" "${ATTN_TIMEOUT:-240}" "$out/attn.log" HONE_FUSED_ATTENTION=$fused
      done
      if [ -n "$first" ] && [ "${ATTN_PROFILE:-1}" = 1 ]; then
        HONE_FUSED_ATTENTION=1 timeout 240 "$bin/hone-train" --model "$m" --data "$dev/text.txt" --out "$out/$shape-$ctx-prof" --backend cuda \
          --steps 4 --ctx $ctx --rank 8 --alpha 16 --profile --json > "$out/$shape-$ctx-prof.jsonl" 2>> "$out/attn.log"
        log "$(python3 "$native/scripts/profile-summary.py" "$out/$shape-$ctx-prof/ops.json" 16 "${ATTN_PROFILE_OPS:-ADD,OUT_PROD,MUL_MAT,MUL,SCALE}" 2>&1)"
      fi
      first=
    done
  done
  ;;
attn-fit)
  # The longest sequence whose memory plan fits 24 GiB and 80 GiB (--dry-run --memory-limit:
  # the plan the trainer refuses by), doubling then bisecting to 256 tokens; then a real run
  # at the 24 GiB length under the same limit (so it builds the graph that plan chose: selective
  # recomputation where the plain graph does not fit) with its measured peak.
  m=$work/qwen3-4b-q4_k_m.gguf
  [ -f "$m" ] || "$bin/hone-train" make-model ${spec[qwen3-4b]} --type q4_k_m --out "$m" 2>> "$out/attn.log"
  # FIT_FLAGS: more hone-train flags for every plan and run (e.g. --recompute)
  fits() { HONE_FUSED_ATTENTION=${FIT_FUSED:-1} "$bin/hone-train" --model "$m" --data "$dev/text.txt" --out "$out/fit-$2-$1" --backend cuda --steps 1 \
             --ctx $1 --rank 8 --alpha 16 --dry-run --memory-limit $2 --json ${FIT_FLAGS:-} > "$out/fit-$2-$1.jsonl" 2>> "$out/attn.log"; }
  # --memory-limit bounds what training allocates on top of the weights and adapter; a card of
  # 24 or 80 GiB also holds those and the CUDA context (~0.5 GiB), so the limit for a card is
  # its size less both (the resident bytes from a dry run's plan)
  fits 1024 80G
  resident=$(python3 -c "import json,sys; e=[json.loads(l) for l in open(sys.argv[1]) if l.startswith('{')]; p=[e for e in e if e.get('type')=='plan'][0]; print(sum(x.get('resident_bytes',0) for x in p['memory']['backends'] if x.get('pool')!='CPU'))" "$out/fit-80G-1024.jsonl" 2>/dev/null || echo 0)
  log "qwen3-4b: resident on the GPU (weights, adapter) $(( resident / 1048576 )) MiB; card limits below subtract it and 512 MiB for the context"
  for card in 24 80; do
    limit=$(( card * 1073741824 - resident - 536870912 ))
    lo=0; hi=1024
    while fits $hi $limit && [ $hi -le 262144 ]; do lo=$hi; hi=$((hi*2)); done
    while [ $((hi - lo)) -gt 256 ]; do mid=$(( (lo + hi) / 512 * 256 )); if fits $mid $limit; then lo=$mid; else hi=$mid; fi; done
    log "qwen3-4b fused=${FIT_FUSED:-1} ${FIT_FLAGS:-}: longest sequence that trains on a ${card} GiB card (plan within $(( limit / 1048576 )) MiB): $lo tokens (refused at $hi)"
    [ $card = 24 ] && [ $lo -gt 0 ] && {
      nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 100 > "$out/smi-fit.txt" & smi=$!
      HONE_FUSED_ATTENTION=${FIT_FUSED:-1} timeout 240 "$bin/hone-train" --model "$m" --data "$dev/text.txt" --out "$out/fit-run" --backend cuda --steps 3 \
        --ctx $lo --rank 8 --alpha 16 --memory-limit $limit --json ${FIT_FLAGS:-} > "$out/fit-run.jsonl" 2>> "$out/attn.log"
      rc=$?; kill $smi 2>/dev/null
      log "qwen3-4b at $lo tokens: exit $rc, peak GPU $(sort -n "$out/smi-fit.txt" | tail -1) MiB used (nvidia-smi); $(python3 "$native/scripts/ops-summary.py" "$out/fit-run/ops.json" "$out/fit-run.jsonl" 2>&1)"
    }
  done
  ;;
fa-fused)
  # Patch 0016's fused FLASH_ATTN_BACK (the default with BF16 products; GGML_CUDA_FA_BACK_FUSED=0
  # falls back to patch 0008):
  # the op against the CPU (the eligible cases run fused, the rest patch 0008's path), then
  # Qwen3-4B training at FA_FUSED_CTX tokens with the fused backward off and on in one call.
  GGML_CUDA_FA_BACK_BF16=1 GGML_CUDA_FA_BACK_FUSED=1 timeout 240 "$bin/test-backend-ops" test -b CUDA0 -o FLASH_ATTN_BACK > "$out/ops-fa-fused.log" 2>&1
  log "FLASH_ATTN_BACK fused (patches 0016, 0019, 0023): $(grep -E 'tests passed' "$out/ops-fa-fused.log" | tail -1 | sed 's/^ *//'), $(grep -c 'FAIL' "$out/ops-fa-fused.log") FAIL, $(grep -c 'exact=1' "$out/ops-fa-fused.log") exact-causal cases among them, $(grep -c 'lse=1.*OK' "$out/ops-fa-fused.log") with the forward's log-sum-exp OK"
  grep -E 'FAIL|NMSE' "$out/ops-fa-fused.log" | head -8 | sed 's/^/    /' | tee -a "$out/summary.txt"
  # patch 0019's forward (the exact-causal cases) against the CPU
  timeout 120 "$bin/test-backend-ops" test -b CUDA0 -o FLASH_ATTN_EXT -p exact=1 > "$out/ops-fa-fwd.log" 2>&1
  log "FLASH_ATTN_EXT exact-causal (patch 0019's forward): $(grep -E 'tests passed' "$out/ops-fa-fwd.log" | tail -1 | sed 's/^ *//'), $(grep -c 'FAIL' "$out/ops-fa-fwd.log") FAIL, $(grep -c 'lse=1.*OK' "$out/ops-fa-fwd.log") log-sum-exp cases (patch 0023) OK"
  grep -E 'FAIL' "$out/ops-fa-fwd.log" | head -4 | sed 's/^/    /' | tee -a "$out/summary.txt"
  # patch 0016's ways (dq's own first pass, the mask read) on the same cases
  GGML_CUDA_FA_BACK_BF16=1 GGML_CUDA_FA_BACK_FUSED=1 GGML_CUDA_FA_BACK_LSE_PASS=0 GGML_CUDA_FA_BACK_CAUSAL_INDEX=0 timeout 240 "$bin/test-backend-ops" test -b CUDA0 -o FLASH_ATTN_BACK > "$out/ops-fa-fused-0016.log" 2>&1
  log "FLASH_ATTN_BACK fused, patch 0019 off: $(grep -E 'tests passed' "$out/ops-fa-fused-0016.log" | tail -1 | sed 's/^ *//'), $(grep -c 'FAIL' "$out/ops-fa-fused-0016.log") FAIL"
  grep -E 'FAIL' "$out/ops-fa-fused-0016.log" | head -4 | sed 's/^/    /' | tee -a "$out/summary.txt"
  # the looping dK/dV form (per KV head, no partials) on the same cases
  GGML_CUDA_FA_BACK_BF16=1 GGML_CUDA_FA_BACK_FUSED=1 GGML_CUDA_FA_BACK_FUSED_SPLIT=0 timeout 240 "$bin/test-backend-ops" test -b CUDA0 -o FLASH_ATTN_BACK > "$out/ops-fa-fused-loop.log" 2>&1
  log "FLASH_ATTN_BACK fused, looping dK/dV: $(grep -E 'tests passed' "$out/ops-fa-fused-loop.log" | tail -1 | sed 's/^ *//'), $(grep -c 'FAIL' "$out/ops-fa-fused-loop.log") FAIL"
  grep -E 'FAIL' "$out/ops-fa-fused-loop.log" | head -4 | sed 's/^/    /' | tee -a "$out/summary.txt"
  m=$work/qwen3-4b-q4_k_m.gguf
  [ -f "$m" ] || "$bin/hone-train" make-model ${spec[qwen3-4b]} --type q4_k_m --out "$m" 2>> "$out/fa-fused.log"
  # FA_FUSED_CTX=none: the op tests alone
  for ctx in ${FA_FUSED_CTX:-2048 8192}; do
    [ "$ctx" = none ] && continue
    for fused in 0 1; do
      train_run "qwen3-4b-$ctx-fabf$fused" "$m" "$ctx" "${FA_FUSED_STEPS:-5}" "${FA_FUSED_TIMEOUT:-120}" "$out/fa-fused.log" GGML_CUDA_FA_BACK_FUSED=$fused
    done
  done
  ;;
ops-ce)
  # Patch 0022: the class-index cross-entropy (loss and backward) against the CPU, with the
  # float4 loops (30000 classes) and with GGML_CUDA_CE_VEC=0 (the scalar ones everywhere)
  for vec in 1 0; do
    for op in CROSS_ENTROPY_LOSS CROSS_ENTROPY_LOSS_BACK; do
      f=$out/ops-$op-vec$vec.log
      GGML_CUDA_CE_VEC=$vec timeout 120 "$bin/test-backend-ops" test -b CUDA0 -o $op > "$f" 2>&1
      log "$op (GGML_CUDA_CE_VEC=$vec): $(grep -E 'tests passed' "$f" | tail -1 | sed 's/^ *//'), $(grep -c 'FAIL' "$f") FAIL, $(grep -c 'labels=i32.*OK' "$f") index cases OK"
      grep -E 'FAIL' "$f" | head -4 | sed 's/^/    /' | tee -a "$out/summary.txt"
    done
  done
  ;;
ops-skinny)
  # Patch 0024's skinny-product kernel against the CPU, on and off (GGML_CUDA_SKINNY=1: the kernel):
  # OUT_PROD (every case), MUL_MAT with F32 operands, the product + SCALE pairs (test_skinny_scale)
  # and the LoRA OUT_PROD + ADD accumulations (SKINNY_MODES: "1" alone when time is short)
  for sk in ${SKINNY_MODES:-1 0}; do
    f=$out/ops-skinny$sk.log; : > "$f"
    for t in "-o OUT_PROD" "-o MUL_MAT -p type_a=f32,type_b=f32" "-o SCALE" "-o ADD -p out_prod"; do
      GGML_CUDA_SKINNY=$sk timeout 150 "$bin/test-backend-ops" test -b CUDA0 $t >> "$f" 2>&1
    done
    log "skinny products (GGML_CUDA_SKINNY=$sk): $(grep -cE '^ +[A-Z_]+\(.*OK' "$f") OK, $(grep -c 'FAIL' "$f") FAIL; $(grep -E 'tests passed' "$f" | sed 's/^ *//' | tr '\n' ' ')"
    grep -E 'FAIL' "$f" | head -6 | sed 's/^/    /' | tee -a "$out/summary.txt"
  done
  ;;
ops-fa-lean)
  # Patch 0025's leaner attention loops (the default; set here all the same) against the CPU: the
  # backward (the split and the looping dK/dV forms; with patch 0026's dq from G^T, dqg 1, and
  # without) and the exact-causal forward
  for dqg in 1 0; do
    for split in 1 0; do
      f=$out/ops-fa-lean-dqg$dqg-split$split.log
      GGML_CUDA_FA_DQ_G=$dqg GGML_CUDA_FA_LEAN=1 GGML_CUDA_FA_BACK_BF16=1 GGML_CUDA_FA_BACK_FUSED=1 GGML_CUDA_FA_BACK_FUSED_SPLIT=$split \
        timeout 240 "$bin/test-backend-ops" test -b CUDA0 -o FLASH_ATTN_BACK > "$f" 2>&1
      log "FLASH_ATTN_BACK lean (patch 0025; 0026's dq from G^T $dqg, split $split): $(grep -E 'tests passed' "$f" | tail -1 | sed 's/^ *//'), $(grep -c 'FAIL' "$f") FAIL, $(grep -c 'exact=1.*OK' "$f") exact-causal cases OK"
      grep -E 'FAIL' "$f" | head -4 | sed 's/^/    /' | tee -a "$out/summary.txt"
    done
  done
  GGML_CUDA_FA_LEAN=1 timeout 120 "$bin/test-backend-ops" test -b CUDA0 -o FLASH_ATTN_EXT -p exact=1 > "$out/ops-fa-lean-fwd.log" 2>&1
  log "FLASH_ATTN_EXT exact-causal lean (patch 0025): $(grep -E 'tests passed' "$out/ops-fa-lean-fwd.log" | tail -1 | sed 's/^ *//'), $(grep -c 'FAIL' "$out/ops-fa-lean-fwd.log") FAIL"
  grep -E 'FAIL' "$out/ops-fa-lean-fwd.log" | head -4 | sed 's/^/    /' | tee -a "$out/summary.txt"
  ;;
row-kernels)
  # Patch 0018's launches and conversions against the CPU: RoPE forward and backward, RMS norm's
  # backward, the fused RMS norm + mul + RoPE, OUT_PROD (the src1 slices) and its fused sums, and
  # the quantized BF16 GEMMs (their F32 -> BF16 inputs)
  for t in "ROPE" "ROPE_BACK" "RMS_NORM_BACK" "RMS_NORM_MUL_ROPE" "OUT_PROD" "ADD -p out_prod" "MUL_MAT -p type_a=q4_K"; do
    f=$out/ops-rows-${t%% *}.log
    GGML_CUDA_MMQ_MAX_BATCH=64 timeout 150 "$bin/test-backend-ops" test -b CUDA0 -o $t > "$f" 2>&1
    log "$t: $(grep -E 'tests passed' "$f" | tail -1 | sed 's/^ *//'), $(grep -c 'FAIL' "$f") FAIL, $(grep -c 'not supported \[CUDA0\]' "$f") not supported by CUDA0"
    grep -E 'FAIL' "$f" | head -4 | sed 's/^/    /' | tee -a "$out/summary.txt"
  done
  ;;
peft-fit)
  # PyTorch + PEFT's longest Qwen3-4B sequence within a 24 GiB and an 80 GiB card (the cap
  # leaves 512 MiB for the CUDA context, as attn-fit does for Hone), without and with
  # activation checkpointing. Runs no binary of ours: with SKIP_BUILD=1 it can use the GPU while
  # another invocation builds.
  for card in ${PEFT_FIT_CARDS:-24 80}; do
    for ck in "" --checkpointing; do
      timeout ${PEFT_FIT_TIMEOUT:-200} python3 "$native/scripts/peft-fit.py" qwen3-4b --cap-mib $(( card * 1024 - 512 )) $ck \
        >> "$out/peft-fit.jsonl" 2>> "$out/peft-fit.log"
      log "qwen3-4b peft ${card} GiB ${ck:-(no checkpointing)}: exit $? $(tail -1 "$out/peft-fit.jsonl")"
    done
  done
  ;;
recompute)
  # Activation recomputation (--recompute) against the plain graph on Qwen3-4B: speed, peak and
  # losses at RECOMPUTE_CTX tokens (the losses must match: the same gradients).
  m=$work/qwen3-4b-q4_k_m.gguf
  [ -f "$m" ] || "$bin/hone-train" make-model ${spec[qwen3-4b]} --type q4_k_m --out "$m" 2>> "$out/recompute.log"
  for ctx in ${RECOMPUTE_CTX:-2048 8192}; do
    train_run "qwen3-4b-$ctx-plain" "$m" "$ctx" "${RECOMPUTE_STEPS:-5}" "${RECOMPUTE_TIMEOUT:-150}" "$out/recompute.log"
    TRAIN_FLAGS=--recompute train_run "qwen3-4b-$ctx-recompute" "$m" "$ctx" "${RECOMPUTE_STEPS:-5}" "${RECOMPUTE_TIMEOUT:-150}" "$out/recompute.log"
  done
  ;;
attn-ncu)
  # Nsight Compute's full sections for the attention kernels of one step (forward, and patch
  # 0016's backward: prep, dQ, dK/dV, group sums) on a 2-layer Qwen3-4B shape at ATTN_NCU_CTX
  # tokens: what bounds each (tensor pipes, shared memory, issue, occupancy, stalls).
  shape=qwen3-4b; ctx=${ATTN_NCU_CTX:-2048}
  m=$work/$shape-l2-q4_k_m.gguf
  [ -f "$m" ] || "$bin/hone-train" make-model $(echo "${spec[$shape]}" | sed -E "s/--layers [0-9]+/--layers 2/") --type q4_k_m --out "$m" 2>> "$out/attn-ncu.log"
  ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | tail -1)
  GGML_CUDA_DISABLE_GRAPHS=1 timeout ${ATTN_NCU_TIMEOUT:-240} "$ncu" --set full --kernel-name "regex:${ATTN_NCU_KERNELS:-flash_attn|fa_fused|fa_fwd|fattn}" \
    --launch-count ${ATTN_NCU_COUNT:-16} --print-units base --page details --log-file "$out/attn-ncu.txt" \
    "$bin/hone-train" --model "$m" --data "$dev/text.txt" --out "$out/attn-ncu" --backend cuda --steps 1 --ctx $ctx --rank 8 --alpha 16 \
    > "$out/attn-ncu.log" 2>&1
  log "attn-ncu: exit $? ($ncu), $(grep -c '^  [a-z_].*(' "$out/attn-ncu.txt") kernels"
  grep -E '^  [a-z_].*\(|Duration|Compute \(SM\) Throughput|Memory Throughput|Achieved Occupancy|Registers Per Thread|Issue Slots Busy' "$out/attn-ncu.txt" | sed 's/^/    /' | tee -a "$out/summary.txt"
  ;;
kernels)
  # Each kernel's own GPU time in one training step (Nsight Compute, no per-node
  # synchronisation, CUDA graphs off so that every kernel is launched on its own), beside the
  # unprofiled step's wall time: what the step spends in kernels and what between them.
  # A bench shape (KERNELS_SHAPE, Qwen3-4B by default) cut to KERNELS_LAYERS layers (per layer
  # the same kernels, fewer of them).
  shape=${KERNELS_SHAPE:-qwen3-4b}; layers=${KERNELS_LAYERS:-4}; ctx=${KERNELS_CTX:-2048}
  m=$work/$shape-l$layers-q4_k_m.gguf
  [ -f "$m" ] || "$bin/hone-train" make-model $(echo "${spec[$shape]}" | sed -E "s/--layers [0-9]+/--layers $layers/") --type q4_k_m --out "$m" 2>> "$out/kernels.log"
  ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | tail -1)
  for mode in graphs nographs; do
    env_switch=""; [ $mode = nographs ] && env_switch="GGML_CUDA_DISABLE_GRAPHS=1"
    env $env_switch timeout 120 "$bin/hone-train" --model "$m" --data "$dev/text.txt" --out "$out/kernels-$mode" --backend cuda \
      --steps 8 --ctx $ctx --rank 8 --alpha 16 --json > "$out/kernels-$mode.jsonl" 2>> "$out/kernels.log"
    log "$shape x$layers layers $mode: exit $? $(python3 "$native/scripts/ops-summary.py" "$out/kernels-$mode/ops.json" "$out/kernels-$mode.jsonl" 2>&1 | head -1)"
  done
  wall=$(python3 -c "import json,sys,statistics; s=[json.loads(l) for l in open(sys.argv[1]) if l.startswith('{\"type\":\"step\"')]; print(statistics.median(1000*$ctx/x['tokens_per_s'] for x in s[2:]))" "$out/kernels-nographs.jsonl" 2>/dev/null)
  GGML_CUDA_DISABLE_GRAPHS=1 timeout ${KERNELS_TIMEOUT:-200} "$ncu" --clock-control none --csv --page raw --print-units base \
    --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size --log-file "$out/kernels-ncu.csv" \
    "$bin/hone-train" --model "$m" --data "$dev/text.txt" --out "$out/kernels-ncu" --backend cuda --steps 3 --ctx $ctx --rank 8 --alpha 16 \
    > "$out/kernels-ncu.log" 2>&1
  log "ncu: exit $? ($ncu)"; tail -3 "$out/kernels-ncu.log" | sed 's/^/    /' | tee -a "$out/summary.txt"
  log "$(python3 "$native/scripts/kernel-summary.py" "$out/kernels-ncu.csv" ${KERNELS_TOP:-30} $wall 2>&1)"
  ;;
mem)
  "$bin/hone-test-out-prod-cuda-mem" 2560 151936 2048 > "$out/mem.log" 2>&1
  log "mem: $(tail -1 "$out/mem.log")"
  ;;
train)
  # A small Llama-shaped Q4_K_M model: the op report for the patched path and for the old one.
  m=$work/llama-512x4-q4_k_m.gguf
  [ -f "$m" ] || "$bin/hone-train" make-model --arch llama --embd 512 --layers 4 --heads 8 --kv-heads 2 --ff 1536 \
      --vocab-from "$(vocab llama-bpe)" --type q4_k_m --tied --out "$m" 2>> "$out/train.log"
  for mode in patched fallback; do
    env_switch=""; [ $mode = fallback ] && env_switch="GGML_CUDA_DISABLE_OUT_PROD_QUANT=1"
    env $env_switch "$bin/hone-train" --model "$m" --data "$dev/text.txt" --out "$out/train-$mode" --backend cuda \
      --steps 4 --ctx 512 --rank 8 --alpha 16 --json > "$out/train-$mode.jsonl" 2>> "$out/train.log"
    log "train $mode: exit $? $(python3 "$native/scripts/ops-summary.py" "$out/train-$mode/ops.json" "$out/train-$mode.jsonl" 2>&1)"
  done
  ;;
bench)
  # One sequence of 2048 tokens per optimizer step, LoRA r=8 alpha=16 on q/k/v/o/gate/up/down.
  # (a) patched, (b) the same build with the switch off (short: it is slow), (c) PyTorch + PEFT.
  # BENCH_MODES="patched nographs" adds a run without CUDA graphs, "noselective" and "selective"
  # runs with selective recomputation off and on, "norowkernels" one with upstream's row-kernel
  # launches (patch 0018).
  for shape in ${BENCH_SHAPES:-qwen2.5-0.5b llama-3.2-1b qwen3-4b}; do
    m=$work/$shape-q4_k_m.gguf
    t0=$(date +%s)
    [ -f "$m" ] || "$bin/hone-train" make-model ${spec[$shape]} --type q4_k_m --out "$m" 2>> "$out/bench.log"
    log "$shape: make-model $(( $(date +%s) - t0 )) s, $(du -m "$m" | cut -f1) MiB"
    for mode in ${BENCH_MODES-patched} ${BENCH_FALLBACK:-}; do
      steps=6; env_switch=""
      [ $mode = fallback ] && { steps=2; env_switch="GGML_CUDA_DISABLE_OUT_PROD_QUANT=1"; }
      # the same build without ggml-cuda's CUDA graphs: what capturing the step gives
      [ $mode = nographs ] && env_switch="GGML_CUDA_DISABLE_GRAPHS=1"
      # selective recomputation off and on (a GPU's default takes it only where the plain graph
      # does not fit): what rebuilding norms, RoPE and SwiGLU costs and saves
      [ $mode = noselective ] && env_switch="HONE_SELECTIVE_RECOMPUTE=0"
      [ $mode = selective ] && env_switch="HONE_SELECTIVE_RECOMPUTE=1"
      # without patch 0018's row-kernel launches and vectorised conversions
      [ $mode = norowkernels ] && env_switch="GGML_CUDA_ROW_KERNELS=0"
      # without patch 0019's log-sum-exp kernel and position-based causal mask (patch 0016's way)
      [ $mode = fa0019off ] && env_switch="GGML_CUDA_FA_BACK_LSE_PASS=0 GGML_CUDA_FA_BACK_CAUSAL_INDEX=0 GGML_CUDA_FA_FWD_FUSED=0"
      # upstream's forward kernels instead of patch 0019's
      [ $mode = fwdupstream ] && env_switch="GGML_CUDA_FA_FWD_FUSED=0"
      # the attention kernels' blocks in the grid's own order instead of patch 0020's longest first
      [ $mode = noheadsfirst ] && env_switch="GGML_CUDA_FA_HEADS_FIRST=0"
      # the optimizer's norm and clipping per tensor instead of over the flat gradient accumulator
      [ $mode = noflatgrads ] && env_switch="HONE_FLAT_GRADIENTS=0"
      # AdamW per tensor instead of once over the adapter's buffer
      [ $mode = noflatadamw ] && env_switch="HONE_FLAT_ADAMW=0"
      # patch 0022's float4 cross-entropy loops off (the scalar ones)
      [ $mode = cescalar ] && env_switch="GGML_CUDA_CE_VEC=0"
      # the backward's own log-sum-exp kernel instead of the forward's (patch 0023)
      [ $mode = nolse ] && env_switch="HONE_ATTENTION_LSE=0"
      # patch 0024's kernel for the LoRA path's skinny products instead of cuBLAS's split-K GEMMs
      # (opt-in: slower than cuBLAS in run 26)
      [ $mode = skinny ] && env_switch="GGML_CUDA_SKINNY=1"
      # the attention loops before patch 0025's leaner ones
      [ $mode = nolean ] && env_switch="GGML_CUDA_FA_LEAN=0"
      # patch 0026: dq from the G^T that dK/dV stores (opt-in: no faster in run 27)
      [ $mode = dqg ] && env_switch="GGML_CUDA_FA_DQ_G=1"
      # without patch 0027's one BF16 copy of x for q, k and v (gate and up)
      [ $mode = nosharedsrc1 ] && env_switch="GGML_CUDA_SHARED_SRC1=0"
      # without patch 0028: the cross-entropy's backward computes its own row statistics
      [ $mode = nocestats ] && env_switch="GGML_CUDA_CE_STATS=0"
      # without patch 0029: the products after SwiGLU convert its F32 result and gradients to BF16
      [ $mode = nobf16copy ] && env_switch="GGML_CUDA_BF16_SHADOW=0"
      # without patch 0030: the adapter's scale as a SCALE kernel after its product
      [ $mode = nosgemmscale ] && env_switch="GGML_CUDA_SGEMM_SCALE=0"
      # without patches 0028-0030 (each measured alone and together in run 28)
      [ $mode = no2830 ] && env_switch="GGML_CUDA_CE_STATS=0 GGML_CUDA_BF16_SHADOW=0 GGML_CUDA_SGEMM_SCALE=0"
      nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 100 > "$out/smi-$shape-$mode.txt" & smi=$!
      # BENCH_TIMEOUT bounds a run (the fallback of a 4B model takes minutes per step); the
      # steps finished before it are in the .jsonl.
      env $env_switch timeout ${BENCH_TIMEOUT:-540} "$bin/hone-train" --model "$m" --data "$dev/text.txt" --out "$out/$shape-$mode" --backend cuda \
        --steps $steps --ctx 2048 --batch 1 --rank 8 --alpha 16 --json > "$out/$shape-$mode.jsonl" 2>> "$out/bench.log"
      rc=$?; kill $smi 2>/dev/null
      log "$shape $mode: exit $rc, peak GPU $(sort -n "$out/smi-$shape-$mode.txt" | tail -1) MiB used (nvidia-smi); $(python3 "$native/scripts/ops-summary.py" "$out/$shape-$mode/ops.json" "$out/$shape-$mode.jsonl" 2>&1)"
    done
    [ "${BENCH_PEFT:-1}" = 1 ] || continue
    # BENCH_PEFT_EAGER=0 leaves out eager PEFT (only the BENCH_COMPILE run)
    peft_modes=(); [ "${BENCH_PEFT_EAGER:-1}" = 1 ] && peft_modes=("")
    for c in "${peft_modes[@]}" ${BENCH_COMPILE:-}; do
      timeout 300 python3 "$native/scripts/bench-peft.py" "$shape" $c >> "$out/peft.jsonl" 2>> "$out/peft.log"
      log "$shape peft $c: $(tail -1 "$out/peft.jsonl")"
    done
  done
  ;;
plan)
  # The memory plan before training (--dry-run) against the measured GPU peak, and a profiled
  # run: where a step's time goes. Uses the bench models (made by the bench stage if absent).
  for shape in ${PLAN_SHAPES:-qwen2.5-0.5b qwen3-4b}; do
    m=$work/$shape-q4_k_m.gguf
    [ -f "$m" ] || "$bin/hone-train" make-model ${spec[$shape]:-} --type q4_k_m --out "$m" 2>> "$out/plan.log"
    "$bin/hone-train" --model "$m" --data "$dev/text.txt" --out "$out/$shape-dry" --backend cuda --steps 4 --ctx 2048 --rank 8 --alpha 16 \
      --dry-run --json > "$out/$shape-dry.jsonl" 2>> "$out/plan.log"
    log "$shape dry run: exit $? $(python3 "$native/scripts/ops-summary.py" "$out/$shape-dry/ops.json" 2>&1 | sed -n 2,20p)"
    "$bin/hone-train" --model "$m" --data "$dev/text.txt" --out "$out/$shape-prof" --backend cuda --steps 4 --ctx 2048 --rank 8 --alpha 16 \
      --profile --json > "$out/$shape-prof.jsonl" 2>> "$out/plan.log"
    log "$shape profiled run: exit $? $(python3 "$native/scripts/ops-summary.py" "$out/$shape-prof/ops.json" "$out/$shape-prof.jsonl" 2>&1)"
    log "$(python3 "$native/scripts/profile-summary.py" "$out/$shape-prof/ops.json" 14 2>&1)"
  done
  ;;
ops-bf16)
  # Patch 0003: OUT_PROD's batched BF16 path (stage ops), and every MUL_MAT case again with
  # quantized weights of more than 64 columns routed to the dequantized BF16 copy.
  # OPS_BF16_FILTER: only the cases whose parameters match (test-backend-ops -p), e.g. type_a=q4_K
  GGML_CUDA_MMQ_MAX_BATCH=64 timeout 240 "$bin/test-backend-ops" test -b CUDA0 -o MUL_MAT ${OPS_BF16_FILTER:+-p "$OPS_BF16_FILTER"} > "$out/ops-mul-mat-bf16.log" 2>&1
  log "MUL_MAT, MMQ max batch 64: $(grep -E 'tests passed' "$out/ops-mul-mat-bf16.log" | tail -1 | sed 's/^ *//'), $(grep -c 'FAIL' "$out/ops-mul-mat-bf16.log") FAIL"
  grep -E 'FAIL' "$out/ops-mul-mat-bf16.log" | head -5 | sed 's/^/    /' | tee -a "$out/summary.txt"
  ;;
ops-mm-add)
  # patch 0013's MUL_MAT + ADD fusion (one GEMM accumulating into the sum) against the CPU's two ops
  GGML_CUDA_MMQ_MAX_BATCH=64 timeout 120 "$bin/test-backend-ops" test -b CUDA0 -o ADD -p c_first > "$out/ops-mul-mat-add.log" 2>&1
  log "MUL_MAT + ADD, MMQ max batch 64: $(grep -E 'tests passed' "$out/ops-mul-mat-add.log" | tail -1 | sed 's/^ *//'), $(grep -c 'FAIL' "$out/ops-mul-mat-add.log") FAIL"
  grep -E 'FAIL' "$out/ops-mul-mat-add.log" | head -5 | sed 's/^/    /' | tee -a "$out/summary.txt"
  ;;
ops-shared-src1)
  # patch 0027: three W·x + C of one x reading one BF16 copy of x; mode 2 prints each read of a
  # copy (2 in each of the two plain cases, 1 in each case with x scaled in place between the
  # products: 6 in all)
  ops_switched "W·x + C sharing x's BF16 copy (patch 0027)" GGML_CUDA_SHARED_SRC1 'shared src1: node' shared-src1 -o ADD -p written_between
  ;;
ops-ce-stats)
  # patch 0028: the loss and its backward in one graph, the backward reading the forward's row
  # statistics; mode 2 prints each read (one in each of the two cases)
  ops_switched "CROSS_ENTROPY_LOSS_BACK with the forward's statistics (patch 0028)" GGML_CUDA_CE_STATS 'ce stats: node' ce-stats -o CROSS_ENTROPY_LOSS_BACK
  ;;
ops-bf16-copy)
  # patch 0029: the SwiGLU forward and backward with BF16 copies for the products after them;
  # mode 2 prints each read (1 in each plain forward case, 0 with the in-place write between, 2
  # in each backward case: 6 in all)
  ops_switched "SwiGLU BF16 copies (patch 0029)" GGML_CUDA_BF16_SHADOW 'bf16 shadow: node' bf16-copy -o ADD -p swiglu_copy
  ;;
ops-sgemm-scale)
  # patch 0030: A·x and B^T·dy then SCALE as one SGEMM with alpha; mode 2 prints each fused pair
  # (4: two MUL_MAT and two OUT_PROD cases)
  ops_switched "SCALE in the SGEMM (patch 0030)" GGML_CUDA_SGEMM_SCALE 'sgemm scale: ' sgemm-scale -o SCALE -p out_prod=
  ;;
ops-out-prod-add)
  # patches 0014 and 0015's OUT_PROD + ADD fusion (the GEMMs accumulating into the sum) against the CPU's two ops
  GGML_CUDA_MMQ_MAX_BATCH=64 timeout 120 "$bin/test-backend-ops" test -b CUDA0 -o ADD -p out_prod > "$out/ops-out-prod-add.log" 2>&1
  log "OUT_PROD + ADD, MMQ max batch 64: $(grep -E 'tests passed' "$out/ops-out-prod-add.log" | tail -1 | sed 's/^ *//'), $(grep -c 'FAIL' "$out/ops-out-prod-add.log") FAIL"
  grep -E 'FAIL' "$out/ops-out-prod-add.log" | head -5 | sed 's/^/    /' | tee -a "$out/summary.txt"
  # patch 0015's SWIGLU backward in one kernel (the four nodes of ggml's autograd, concatenated outputs)
  timeout 60 "$bin/test-backend-ops" test -b CUDA0 -o CONCAT -p swiglu_back > "$out/ops-swiglu-back.log" 2>&1
  log "SWIGLU backward fused: $(grep -E 'tests passed' "$out/ops-swiglu-back.log" | tail -1 | sed 's/^ *//'), $(grep -c 'FAIL' "$out/ops-swiglu-back.log") FAIL"
  grep -E 'FAIL' "$out/ops-swiglu-back.log" | head -5 | sed 's/^/    /' | tee -a "$out/summary.txt"
  ;;
precision)
  # One build, the same runs under --gpu-precision f32 (ggml's own choices) and bf16 (patch 0003's switches).
  for shape in ${BENCH_SHAPES:-qwen2.5-0.5b llama-3.2-1b qwen3-4b}; do
    m=$work/$shape-q4_k_m.gguf
    [ -f "$m" ] || "$bin/hone-train" make-model ${spec[$shape]} --type q4_k_m --out "$m" 2>> "$out/bench.log"
    # ROW_MODES="on off": also run with patch 0004's kernels switched off.
    for prec in ${PRECISIONS:-f32 bf16}; do for rows in ${ROW_MODES:-on}; do
      env_switch=""; tag=$shape-$prec; [ $rows = off ] && { env_switch="GGML_CUDA_DISABLE_ROW_KERNELS=1"; tag=$tag-rows-off; }
      nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 100 > "$out/smi-$tag.txt" & smi=$!
      env $env_switch "$bin/hone-train" --model "$m" --data "$dev/text.txt" --out "$out/$tag" --backend cuda --gpu-precision $prec \
        --steps 6 --ctx 2048 --batch 1 --rank 8 --alpha 16 ${PROFILE:+--profile} --json > "$out/$tag.jsonl" 2>> "$out/bench.log"
      rc=$?; kill $smi 2>/dev/null
      log "$shape gpu-precision $prec, row kernels $rows: exit $rc, peak GPU $(sort -n "$out/smi-$tag.txt" | tail -1) MiB used (nvidia-smi); $(python3 "$native/scripts/ops-summary.py" "$out/$tag/ops.json" "$out/$tag.jsonl" 2>&1 | head -3)"
      [ -n "${PROFILE:-}" ] && log "$(python3 "$native/scripts/profile-summary.py" "$out/$tag/ops.json" 16 ADD,MUL_MAT,OUT_PROD,SCALE,MUL,CONT,SOFT_MAX,SOFT_MAX_BACK 2>&1)"
    done; done
  done
  ;;
types)
  # Issue 8's "zero ops on the CPU" for llama, qwen2 and qwen3 at Q4_K_M and at Q8_0: small models
  # of each, 4 steps at 512 tokens, the op report's placement line for each.
  for arch in llama qwen2 qwen3; do for type in q4_k_m q8_0; do
    v=llama-bpe; [ $arch = llama ] || v=qwen2
    m=$work/types-$arch-$type.gguf
    [ -f "$m" ] || "$bin/hone-train" make-model --arch $arch --embd 512 --layers 4 --heads 8 --kv-heads 2 --ff 1536 \
        --vocab-from "$(vocab $v)" --type $type --tied --out "$m" 2>> "$out/types.log"
    "$bin/hone-train" --model "$m" --data "$dev/text.txt" --out "$out/types-$arch-$type" --backend cuda \
      --steps 4 --ctx 512 --rank 8 --alpha 16 --json > "$out/types-$arch-$type.jsonl" 2>> "$out/types.log"
    log "$arch $type: exit $? $(python3 "$native/scripts/ops-summary.py" "$out/types-$arch-$type/ops.json" "$out/types-$arch-$type.jsonl" 2>&1 | head -1)"
  done; done
  ;;
grad-ops)
  # Patch 0005: the GELU, TANH and split GEGLU backward graphs on CUDA against finite differences;
  # patch 0006: NORM's (its weighted cases, "NORM(ne=...,weighted=1)").
  for op in GELU TANH GEGLU NORM; do
    timeout 120 "$bin/test-backend-ops" grad -b CUDA0 -o "$op" > "$out/grad-$op.log" 2>&1
    log "grad $op: $(grep -E 'tests passed' "$out/grad-$op.log" | tail -1 | sed 's/^ *//'), $(grep -cE "$op\((type=f32|ne=).*OK" "$out/grad-$op.log") f32 cases OK, $(grep -c 'FAIL' "$out/grad-$op.log") FAIL"
  done
  ;;
archs)
  # The layouts issue 3 added (fused Q/K/V, fused gate/up, partial RoPE, ALiBi through the mask,
  # windows, sinks, sub-norms, per-layer heads) on CUDA: each architecture's probe model against
  # llama.cpp (forward at --gpu-precision f32), its gradients, and 4 training steps' op placement.
  # ARCH_CASES="arch:kv ..." narrows the list (llama: and qwen3: are controls of known-good graphs);
  # "arch:kv#tensors" also gives the probe --layer-tensors, ARCH_EPS check-grad's step (e.g. 1e-3
  # for top-k routers, whose selection a larger step can move).
  for case in ${ARCH_CASES:-qwen: refact: chatglm:rope.dimension_count=8 glm4: plamo: cogvlm: talkie: bitnet: \
      openelm:attention.head_count=4:2,attention.head_count_kv=2:1,feed_forward_length=128:96 \
      plamo3:attention.sliding_window=3,attention.sliding_window_pattern=2 granite_swa: hunyuan_vl: \
      phi2:rope.dimension_count=8 starcoder2: stablelm:rope.dimension_count=4 gptneox:rope.dimension_count=8}; do
    tensors=""; [[ $case == *"#"* ]] && { tensors=${case#*#}; case=${case%%#*}; }
    arch=${case%%:*}; kv=${case#*:}
    m=$work/arch-$arch.gguf
    "$bin/hone-train" probe-arch --arch $arch ${kv:+--kv $kv} ${tensors:+--layer-tensors $tensors} --vocab-from "$(vocab llama-spm)" --out "$m" > /dev/null 2>> "$out/archs.log"
    fwd=$("$bin/hone-train" check-forward --model "$m" --backend cuda --gpu-precision f32 --perturb-b 0.05 --json \
      --text "Once upon a time, there was a little dog named Max. He loved to run in the park." 2>> "$out/archs.log" | tail -1)
    grad=$("$bin/hone-train" check-grad --model "$m" --backend cuda --gpu-precision f32 --elements 4 --seed 3 ${ARCH_EPS:+--eps $ARCH_EPS} --json 2>> "$out/archs.log" | grep '"check-grad"')
    "$bin/hone-train" --model "$m" --data "$dev/text.txt" --out "$out/arch-$arch" --backend cuda --steps 4 --ctx 256 \
      --json > "$out/arch-$arch.jsonl" 2>> "$out/archs.log"
    log "$arch: forward $(echo "$fwd" | grep -o '"max_rel_diff":[^,}]*'); grad $(echo "$grad" | grep -o '"checked":[0-9]*,"failed":[0-9]*'),$(echo "$grad" | grep -o '"pass":[a-z]*'); train: $(python3 "$native/scripts/ops-summary.py" "$out/arch-$arch/ops.json" "$out/arch-$arch.jsonl" 2>&1 | head -1)"
  done
  ;;
grad-agree)
  # The same gradient elements computed on the CPU and on CUDA (--gpu-precision f32): the CUDA
  # backward's own check against finite differences can pass where both sides share an error, and
  # fail where a top-k selection moves; this compares the analytic values directly. Cases as in
  # `archs` (ARCH_CASES, arch:kv#tensors).
  for case in ${ARCH_CASES:-llama: qwen3:}; do
    tensors=""; [[ $case == *"#"* ]] && { tensors=${case#*#}; case=${case%%#*}; }
    arch=${case%%:*}; kv=${case#*:}
    m=$work/agree-$arch.gguf
    "$bin/hone-train" probe-arch --arch $arch ${kv:+--kv $kv} ${tensors:+--layer-tensors $tensors} --vocab-from "$(vocab llama-spm)" --out "$m" > /dev/null 2>> "$out/grad-agree.log"
    for be in cpu cuda; do
      "$bin/hone-train" check-grad --model "$m" --backend $be --gpu-precision f32 --elements 4 --seed 3 --eps 1e-3 --json 2>> "$out/grad-agree.log" \
        | grep '"grad"' > "$out/agree-$arch-$be.jsonl"
    done
    log "$arch: CPU vs CUDA analytic gradients: $(python3 - "$out/agree-$arch-cpu.jsonl" "$out/agree-$arch-cuda.jsonl" <<'PY'
import json, sys
a = [json.loads(l) for l in open(sys.argv[1])]
b = [json.loads(l) for l in open(sys.argv[2])]
same = len(a) == len(b) and all(x["tensor"] == y["tensor"] and x["index"] == y["index"] for x, y in zip(a, b))
if not a or not same:
    print("elements differ or none"); sys.exit()
norm = sum(x["analytic"] ** 2 for x in a) ** 0.5
diff = sum((x["analytic"] - y["analytic"]) ** 2 for x, y in zip(a, b)) ** 0.5
worst = max(zip(a, b), key=lambda p: abs(p[0]["analytic"] - p[1]["analytic"]))
print(f"{len(a)} elements, vector rel. diff {diff / norm:.2e}; worst {worst[0]['tensor']}[{worst[0]['index']}] {worst[0]['analytic']:.4e} vs {worst[1]['analytic']:.4e}")
PY
)"
  done
  ;;
moe-archs)
  # Mixtral (a llama file with experts) and Granite MoE Q4_K_M on CUDA: made by make-model, since
  # probe-arch gives them no experts (their expert tensors are optional to the loader); the forward
  # against llama.cpp at --gpu-precision f32 and 4 training steps' op placement.
  for arch in llama granitemoe; do
    m=$work/moe-arch-$arch.gguf
    "$bin/hone-train" make-model --arch $arch --embd 128 --layers 2 --heads 4 --kv-heads 2 --ff 192 --experts 4 --experts-used 2 \
      --vocab-from "$(vocab llama-spm)" --type q4_k_m --out "$m" > /dev/null 2>> "$out/moe-archs.log"
    fwd=$("$bin/hone-train" check-forward --model "$m" --backend cuda --gpu-precision f32 --perturb-b 0.05 --json \
      --text "Once upon a time, there was a little dog named Max. He loved to run in the park." 2>> "$out/moe-archs.log" | tail -1)
    "$bin/hone-train" --model "$m" --data "$dev/text.txt" --out "$out/moe-arch-$arch" --backend cuda --steps 4 --ctx 256 \
      --json > "$out/moe-arch-$arch.jsonl" 2>> "$out/moe-archs.log"
    log "$arch with experts (q4_k_m): forward $(echo "$fwd" | grep -o '"max_rel_diff":[^,}]*'); train: $(python3 "$native/scripts/ops-summary.py" "$out/moe-arch-$arch/ops.json" "$out/moe-arch-$arch.jsonl" 2>&1 | head -1)"
  done
  ;;
rows)
  # Patch 0004: SOFT_MAX, SOFT_MAX_BACK, CPY and CONT against the CPU backend, then their perf
  # cases (one layer's attention scores of a 2048-token step) with the new kernels and without.
  for op in SOFT_MAX SOFT_MAX_BACK CPY CONT; do
    timeout 180 "$bin/test-backend-ops" test -b CUDA0 -o "$op" > "$out/ops-$op.log" 2>&1
    log "$op: $(grep -E 'tests passed' "$out/ops-$op.log" | tail -1 | sed 's/^ *//'), $(grep -c 'FAIL' "$out/ops-$op.log") FAIL, $(grep -c 'not supported \[CUDA0\]' "$out/ops-$op.log") not supported by CUDA0"
    grep -E 'FAIL' "$out/ops-$op.log" | head -5 | sed 's/^/    /' | tee -a "$out/summary.txt"
  done
  for mode in on off; do
    env_switch=""; [ $mode = off ] && env_switch="GGML_CUDA_DISABLE_ROW_KERNELS=1"
    for op in SOFT_MAX SOFT_MAX_BACK CONT; do
      env $env_switch timeout 120 "$bin/test-backend-ops" perf -b CUDA0 -o "$op" > "$out/perf-$op-$mode.log" 2>&1
      log "perf $op, row kernels $mode:"
      grep -E 'ne=\[2048,2048,1,1\].*nr23=\[32,1\]|ne=\[2048,2048,32,1\]|ne=\[128,2048,32,1\]' "$out/perf-$op-$mode.log" | sed 's/^ */    /' | tee -a "$out/summary.txt"
    done
  done
  ;;
oom)
  # Out of GPU memory (issue 14). (a) A context too large for the card is refused before training,
  # naming the pool and the sizes. (b) Another program takes the card's free memory once the
  # trainer has allocated (its "start" event) or after its first step: the run either ends with
  # the engine's report (hone: fatal: ...) or, needing nothing more, trains on; either way it
  # resumes from its newest checkpoint once the memory is free again.
  m=$work/qwen3-4b-q4_k_m.gguf
  [ -f "$m" ] || "$bin/hone-train" make-model ${spec[qwen3-4b]} --type q4_k_m --out "$m" 2>> "$out/oom.log"
  "$bin/hone-train" --model "$m" --data "$dev/text.txt" --out "$work/oom-a" --backend cuda --steps 2 --ctx 65536 --rank 8 \
    --json > "$out/oom-a.jsonl" 2> "$out/oom-a.err"
  log "oom (a) ctx 65536: exit $? $(grep -h '"type":"error"' "$out/oom-a.jsonl" | head -1 | cut -c1-700)"
  for when in start step; do
    rm -rf "$work/oom-$when" "$work/hog-go"
    # the hog starts first (CUDA and torch take seconds to start) and takes the memory on a signal
    python3 -u - "$work/hog-go" > "$out/oom-hog-$when.log" 2>&1 <<'PY' &
import os, sys, time, torch
torch.cuda.init(); torch.empty(1, device='cuda')
flag = sys.argv[1]
while not os.path.exists(flag): time.sleep(0.005)
free, _ = torch.cuda.mem_get_info()
blocks, left = [], free - (48 << 20)
while left > (16 << 20):
    n = min(left, 2 << 30)
    try:
        blocks.append(torch.empty(n, dtype=torch.uint8, device='cuda')); left -= n
    except RuntimeError:
        left = n // 2
print(f"hog: took {sum(b.numel() for b in blocks) / 2**30:.2f} GiB of {free / 2**30:.2f} GiB free; {torch.cuda.mem_get_info()[0] / 2**20:.0f} MiB left", flush=True)
time.sleep(90)
PY
    hog=$!
    sleep 8
    "$bin/hone-train" --model "$m" --data "$dev/text.txt" --out "$work/oom-$when" --backend cuda --steps 12 --ctx 4096 --rank 8 \
      --eval-split 0.1 --eval-every 6 --checkpoint-every 1 --json > "$out/oom-$when.jsonl" 2> "$out/oom-$when.err" &
    pid=$!
    until grep -q "\"type\":\"$when\"" "$out/oom-$when.jsonl" 2>/dev/null || ! kill -0 $pid 2>/dev/null; do sleep 0.01; done
    touch "$work/hog-go"
    wait $pid; rc=$?
    kill $hog 2>/dev/null; wait $hog 2>/dev/null
    log "oom (b) memory taken at the first '$when' event: exit $rc, $(grep -c '"type":"step"' "$out/oom-$when.jsonl") steps; $(cat "$out/oom-hog-$when.log" | tail -1)"
    log "    $(grep -h 'hone: fatal' "$out/oom-$when.err" | cut -c1-1200) $(grep -h '"type":"error"' "$out/oom-$when.jsonl" | cut -c1-700)"
    ck=$(ls "$work/oom-$when/checkpoints" 2>/dev/null | sort -n | tail -1)
    if [ -n "$ck" ] && [ ! -f "$work/oom-$when/adapter.gguf" ]; then
      "$bin/hone-train" --resume "$work/oom-$when/checkpoints/$ck" --json > "$out/oom-$when-resume.jsonl" 2>> "$out/oom.log"
      log "    resumed from step $ck: exit $?, steps $(grep '"type":"step"' "$out/oom-$when-resume.jsonl" | head -1 | sed 's/.*"step":\([0-9]*\).*/\1/')..$(grep '"type":"step"' "$out/oom-$when-resume.jsonl" | tail -1 | sed 's/.*"step":\([0-9]*\).*/\1/'), adapter $( [ -f "$work/oom-$when/adapter.gguf" ] && echo written || echo missing)"
    fi
  done
  ;;
moe)
  # Patch 0010: MUL_MAT_ID_BACK and the batched GET_ROWS_BACK against the CPU; the MoE grad
  # cases on CUDA; a small Qwen3-MoE Q4_K_M training run (its op report: zero CPU ops?).
  # Stage moe-big: a Qwen3-30B-A3B-shaped Q4_K_M step's peak beside the weights' size.
  for op in MUL_MAT_ID_BACK GET_ROWS_BACK; do
    timeout 240 "$bin/test-backend-ops" test -b CUDA0 -o $op > "$out/ops-$op.log" 2>&1
    log "$op: $(grep -E 'tests passed' "$out/ops-$op.log" | tail -1 | sed 's/^ *//'), $(grep -c 'FAIL' "$out/ops-$op.log") FAIL, $(grep -c 'not supported \[CUDA0\]' "$out/ops-$op.log") not supported by CUDA0"
    grep -E 'FAIL' "$out/ops-$op.log" | head -4 | sed 's/^/    /' | tee -a "$out/summary.txt"
  done
  for op in MUL_MAT_ID CLAMP GET_ROWS DIV; do
    timeout 120 "$bin/test-backend-ops" grad -b CUDA0 -o $op > "$out/grad-$op.log" 2>&1
    log "grad $op on CUDA: $(grep -E 'tests passed' "$out/grad-$op.log" | tail -1 | sed 's/^ *//'), $(grep -c 'FAIL' "$out/grad-$op.log") FAIL"
  done
  m=$work/qwen3moe-small-q4_k_m.gguf
  [ -f "$m" ] || "$bin/hone-train" make-model --arch qwen3moe --embd 1024 --layers 4 --heads 16 --kv-heads 4 --head-dim 64 --ff 3072 \
      --experts 32 --experts-used 4 --expert-ff 384 --vocab-from "$(vocab qwen2)" --type q4_k_m --out "$m" 2>> "$out/moe.log"
  "$bin/hone-train" --model "$m" --data "$dev/text.txt" --out "$out/moe-small" --backend cuda --steps 4 --ctx 512 --rank 8 --alpha 16 \
    --json > "$out/moe-small.jsonl" 2>> "$out/moe.log"
  log "qwen3moe small: exit $? $(python3 "$native/scripts/ops-summary.py" "$out/moe-small/ops.json" "$out/moe-small.jsonl" 2>&1)"
  ;;
delta-net)
  # Qwen3.5 (issue 22): the probe's hybrid models (gated delta-net layers in Hone's own graph,
  # delta_net.cpp) on CUDA: forward over three 64-token chunks against llama.cpp at f32,
  # gradients, 4 training steps' op placement (zero CPU ops?); then make-model's Qwen3.5-4B shape
  # (DN_LAYERS layers, default 32; Q4_K_M, the qwen2 vocabulary) trained at each of DN_CTX tokens.
  dn_kv=block_count=4,ssm.conv_kernel=4,ssm.state_size=16,ssm.group_count=2,ssm.time_step_rank=4,ssm.inner_size=64
  dn_tensors=attn_qkv.weight@0:1:2,attn_gate.weight@0:1:2
  sentence="Once upon a time, there was a little dog named Max. He loved to run in the park with his red ball."
  long="$sentence $sentence $sentence $sentence $sentence $sentence"
  for arch in qwen35 qwen35moe; do
    m=$work/dn-$arch.gguf
    experts=; [ $arch = qwen35moe ] && experts=--experts
    "$bin/hone-train" probe-arch --arch $arch $experts --kv "$dn_kv" --layer-tensors "$dn_tensors" --vocab-from "$(vocab llama-spm)" --out "$m" > /dev/null 2>> "$out/delta-net.log"
    fwd=$("$bin/hone-train" check-forward --model "$m" --backend cuda --gpu-precision f32 --perturb-b 0.05 --json --text "$long" 2>> "$out/delta-net.log" | tail -1)
    # every element's analytic and numeric gradient, beside the CPU's, to place a disagreement
    for be in cuda cpu; do
      "$bin/hone-train" check-grad --model "$m" --backend $be --gpu-precision f32 --elements 4 --seed 3 --json > "$out/dn-grad-$arch-$be.jsonl" 2>> "$out/delta-net.log"
    done
    grad=$(grep '"check-grad"' "$out/dn-grad-$arch-cuda.jsonl")
    "$bin/hone-train" --model "$m" --data "$dev/text.txt" --out "$out/dn-$arch" --backend cuda --steps 4 --ctx 256 --lr 1e-2 \
      --json > "$out/dn-$arch.jsonl" 2>> "$out/delta-net.log"
    log "$arch: forward $(echo "$fwd" | grep -o '"max_rel_diff":[^,}]*'); grad $(echo "$grad" | grep -o '"checked":[0-9]*,"failed":[0-9]*'),$(echo "$grad" | grep -o '"pass":[a-z]*'); train: $(python3 "$native/scripts/ops-summary.py" "$out/dn-$arch/ops.json" "$out/dn-$arch.jsonl" 2>&1)"
  done
  # DN_BIG=0: the tiny models only
  [ "${DN_BIG:-1}" = 1 ] || continue
  layers=${DN_LAYERS:-32}
  big=$work/dn-qwen35-4b-$layers-q4_k_m.gguf
  [ -f "$big" ] || "$bin/hone-train" make-model --arch qwen35 --embd 2560 --layers $layers --heads 16 --kv-heads 4 --head-dim 256 --ff 9216 \
    --ssm-state 128 --ssm-groups 16 --ssm-heads 32 --tied --type q4_k_m --vocab-from "$(vocab qwen2)" --out "$big" > /dev/null 2>> "$out/delta-net.log"
  log "qwen35 4B-shaped Q4_K_M ($layers layers): $([ -f "$big" ] && echo "$(du -m "$big" | cut -f1) MiB" || echo "not made")"
  for ctx in ${DN_CTX:-2048}; do
    [ -f "$big" ] || break
    timeout ${DN_TIMEOUT:-150} "$bin/hone-train" --model "$big" --data "$dev/text.txt" --out "$out/dn-big-$ctx" --backend cuda --steps 3 --ctx $ctx \
      --rank 8 --alpha 16 --json > "$out/dn-big-$ctx.jsonl" 2>> "$out/delta-net.log"
    log "qwen35 4B-shaped, ctx $ctx: exit $? $(python3 "$native/scripts/ops-summary.py" "$out/dn-big-$ctx/ops.json" "$out/dn-big-$ctx.jsonl" 2>&1)"
  done
  ;;
gemma4)
  # Gemma 4 (issue 22): the probe's models (windowed layers with smaller heads, per-layer
  # embeddings, shared K/V layers) on CUDA: forward against llama.cpp at f32, gradients, and
  # 4 training steps' op placement (zero CPU ops?) at F32 and Q4_K_M.
  g4_kv=attention.sliding_window=3,attention.key_length=16,attention.value_length=16,attention.key_length_swa=8,attention.value_length_swa=8,rope.dimension_count=16,rope.dimension_count_swa=8,rope.freq_base_swa=500,embedding_length_per_layer_input=8,final_logit_softcapping=3.0
  text="Once upon a time, there was a little dog named Max. He loved to run in the park with his red ball."
  for shape in "3:1:0:1:1" "5:1:1:0:1:0:2"; do
    IFS=: read -r n rest <<< "$shape"; pattern=${rest%:*}; shared=${rest##*:}
    m=$work/gemma4-$n.gguf
    "$bin/hone-train" probe-arch --arch gemma4 --kv "block_count=$n,attention.sliding_window_pattern=$pattern,attention.shared_kv_layers=$shared,$g4_kv" \
      --layer-tensors attn_v.weight@0,layer_output_scale.weight@1 --vocab-from "$(vocab llama-spm)" --out "$m" > /dev/null 2>> "$out/gemma4.log"
    "$bin/llama-quantize" "$m" "${m%.gguf}-q4_k_m.gguf" Q4_K_M > /dev/null 2>> "$out/gemma4.log"
    fwd=$("$bin/hone-train" check-forward --model "$m" --backend cuda --gpu-precision f32 --perturb-b 0.05 --json --text "$text" 2>> "$out/gemma4.log" | tail -1)
    grad=$("$bin/hone-train" check-grad --model "$m" --backend cuda --gpu-precision f32 --elements 4 --seed 3 --eps 5e-3 --json 2>> "$out/gemma4.log" | grep '"check-grad"')
    log "gemma4 $n layers (pattern $pattern, $shared shared): forward $(echo "$fwd" | grep -o '"max_rel_diff":[^,}]*'); grad $(echo "$grad" | grep -o '"checked":[0-9]*,"failed":[0-9]*,"max_rel_error":[^,]*,"vector_rel_error":[^,]*'),$(echo "$grad" | grep -o '"pass":[a-z]*')"
    for q in "" -q4_k_m; do
      "$bin/hone-train" --model "${m%.gguf}$q.gguf" --data "$dev/text.txt" --out "$out/g4-$n$q" --backend cuda --steps 4 --ctx 256 --lr 5e-2 \
        --json > "$out/g4-$n$q.jsonl" 2>> "$out/gemma4.log"
      log "gemma4 $n layers${q:+ $q} train: $(python3 "$native/scripts/ops-summary.py" "$out/g4-$n$q/ops.json" "$out/g4-$n$q.jsonl" 2>&1 | head -1)"
    done
  done
  ;;
mmq-big)
  # Patch 0012: a MUL_MAT whose output passes 2^31 elements (a 151936-token head at 14336 tokens)
  timeout ${MMQ_TIMEOUT:-240} "$bin/test-backend-ops" test -b CUDA0 -o MUL_MAT -p 'm=151936,n=14336' > "$out/ops-mmq-big.log" 2>&1
  log "MUL_MAT m=151936 n=14336 (patch 0012): exit $?, $(grep -E 'tests passed' "$out/ops-mmq-big.log" | tail -1 | sed 's/^ *//'); $(grep -E 'MUL_MAT\(' "$out/ops-mmq-big.log" | tail -2 | tr -s ' ')"
  ;;
moe-make)
  # The Qwen3-30B-A3B-shaped model's make-model in the background (a session of its own, so it
  # outlives this call on a warm machine; the moe-big stage of a later call waits for it). It
  # writes $work/moe-make.done ("rc N, S s") when it ends. MOE_MAKE_THREADS: its threads.
  m=$work/qwen3-30b-a3b-q4_k_m.gguf
  if [ -f "$m" ]; then
    log "qwen3-30b-a3b: made already ($(du -m "$m" | cut -f1) MiB)"
  elif [ -f "$work/moe-make.pid" ] && kill -0 "$(cat "$work/moe-make.pid")" 2>/dev/null; then
    log "qwen3-30b-a3b: make-model already running (pid $(cat "$work/moe-make.pid"))"
  else
    rm -f "$work/moe-make.done"
    setsid bash -c 't0=$(date +%s); "$1" make-model $2 --vocab-from "$3" --type q4_k_m --threads "$4" --json --out "$5" > "$6/moe-make.log" 2>&1; echo "rc $?, $(( $(date +%s) - t0 )) s" > "$6/moe-make.done"' \
      _ "$bin/hone-train" "$moe_big_shape" "$(vocab qwen2)" "${MOE_MAKE_THREADS:-$jobs}" "$m" "$work" < /dev/null > /dev/null 2>&1 &
    echo $! > "$work/moe-make.pid"
    log "qwen3-30b-a3b: make-model started in the background (pid $!, ${MOE_MAKE_THREADS:-$jobs} threads)"
  fi
  ;;
moe-big)
  # MOE_CTX: the lengths (default 2048); MOE_TIMEOUT: each run's limit; MOE_WAIT: how long to
  # wait for a background make-model (stage moe-make) to end.
  m=$work/qwen3-30b-a3b-q4_k_m.gguf
  t0=$(date +%s)
  if [ ! -f "$m" ] && [ -f "$work/moe-make.pid" ] && kill -0 "$(cat "$work/moe-make.pid")" 2>/dev/null; then
    while [ ! -f "$work/moe-make.done" ] && [ $(( $(date +%s) - t0 )) -lt ${MOE_WAIT:-600} ]; do sleep 2; done
    log "qwen3-30b-a3b: waited $(( $(date +%s) - t0 )) s for the background make-model: $(cat "$work/moe-make.done" 2>/dev/null || echo 'still running')"
  elif [ ! -f "$m" ]; then
    "$bin/hone-train" make-model $moe_big_shape --vocab-from "$(vocab qwen2)" --type q4_k_m --json --out "$m" > "$work/moe-make.log" 2>&1
    echo "rc $?, $(( $(date +%s) - t0 )) s" > "$work/moe-make.done"
  fi
  [ -f "$m" ] || { log "qwen3-30b-a3b: no model"; continue; }
  log "qwen3-30b-a3b: make-model $(cat "$work/moe-make.done" 2>/dev/null), $(du -m "$m" | cut -f1) MiB ($(stat -c %s "$m") bytes); $(grep -o '"n_params":[0-9]*' "$work/moe-make.log" 2>/dev/null)"
  for ctx in ${MOE_CTX:-2048}; do
    nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 100 > "$out/smi-moe-$ctx.txt" & smi=$!
    t1=$(date +%s)
    timeout ${MOE_TIMEOUT:-200} "$bin/hone-train" --model "$m" --data "$dev/text.txt" --out "$work/moe-30b-$ctx" --backend cuda --steps ${MOE_STEPS:-3} \
      --ctx $ctx --rank 8 --alpha 16 --json > "$out/moe-30b-$ctx.jsonl" 2>> "$out/moe.log"
    rc=$?; kill $smi 2>/dev/null
    cp "$work/moe-30b-$ctx/ops.json" "$out/moe-30b-$ctx-ops.json" 2>/dev/null
    log "qwen3-30b-a3b at $ctx tokens: exit $rc after $(( $(date +%s) - t1 )) s, peak GPU $(sort -n "$out/smi-moe-$ctx.txt" | tail -1) MiB used (nvidia-smi); $(python3 "$native/scripts/ops-summary.py" "$work/moe-30b-$ctx/ops.json" "$out/moe-30b-$ctx.jsonl" 2>&1)"
    log "    steps: $(python3 -c 'import json,sys; print("; ".join("step %d loss %.4f grad %.4g %.0f tok/s %.1f s" % (e["step"], e["loss"], e["grad_norm"], e["tokens_per_s"], e["elapsed_s"]) for e in (json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")) if e.get("type") == "step"))' "$out/moe-30b-$ctx.jsonl" 2>&1)"
  done
  ;;
norm-spike)
  # Issue 20's gradient-norm spike (fused-attention-h200.md, run 5: a step mostly of padding had
  # a norm 40,000 times the full steps'). Small qwen3-shaped Q4_K_M models; token JSONL data
  # of five sequences at ctx T: two full, one of 0.42 T tokens (the rest padding), one full with
  # loss on its first 0.40 T rows only (rows without loss, no padding), one full with loss on
  # its last 0.38 T rows only. --steps 5: one epoch; each step's loss-token count names its
  # sequence. NS_RUNS picks runs (default all of: gpu16k gpu16k-f32 gpu4k gpu4k-unfused gpu1k
  # gpu1k-unfused text16k v32k-16k v32k-4k cpu1k cpu1k-unfused cpu4k; more below; NS_RUNS=none:
  # none); NS_T adds data lengths (14080 14336 for the f32-* runs); NS_4B=1 adds the Qwen3-4B
  # shape (NS_4B_RUNS: text = run 5 itself, jsonl, jsonl4k, jsonl14080, jsonl14336).
  # Found (fused-attention-h200.md, run 6): MMQ's 32-bit dst offset overflows past 2^31 logits.
  ns=$work/norm-spike; mkdir -p "$ns"
  shape=${NS_SHAPE:---embd 512 --layers 4 --heads 8 --kv-heads 2 --head-dim 64 --ff 1536}
  ns_model() { [ -f "$ns/$1.gguf" ] || "$bin/hone-train" make-model --arch qwen3 $shape --tied --type q4_k_m --vocab-from "$2" --out "$ns/$1.gguf" >> "$out/norm-spike.log" 2>&1; }
  ns_data() { # file T V
    [ -f "$1" ] || python3 - "$1" "$2" "$3" <<'PY'
import json, random, sys
f, T, V = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
r = random.Random(20)
seq = lambda n: [r.randrange(V) for _ in range(n)]
a, b, c = int(0.42 * T), int(0.40 * T), int(0.38 * T)
with open(f, "w") as o:
    o.write(json.dumps({"tokens": seq(T + 1)}) + "\n")
    o.write(json.dumps({"tokens": seq(a + 1)}) + "\n")
    o.write(json.dumps({"tokens": seq(T + 1), "loss_mask": [1] * (b + 1) + [0] * (T - b)}) + "\n")
    o.write(json.dumps({"tokens": seq(T + 1), "loss_mask": [0] * (T + 1 - c) + [1] * c}) + "\n")
    o.write(json.dumps({"tokens": seq(T + 1)}) + "\n")
PY
  }
  ns_sum() { python3 - "$1" "$2" <<'PY'
import json, sys
T = int(sys.argv[2])
names = {T: "full", int(0.42 * T): "padded", int(0.40 * T): "loss-head", int(0.38 * T): "loss-tail"}
ev = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"type":"step"')]
print(" | ".join(f"{names.get(e['loss_tokens'], e['loss_tokens'])} {e['grad_norm']:.5g} (loss {e['loss']:.4f})" for e in ev) or "no steps")
PY
  }
  ns_run() { # tag model data T backend fused steps [extra hone-train args]
    local tag=$1 model=$2 data=$3 T=$4 be=$5 fused=$6 steps=$7; shift 7
    local t1=$(date +%s)
    HONE_FUSED_ATTENTION=$fused timeout ${NS_TIMEOUT:-150} ${NS_WRAP:-} "$bin/hone-train" --model "$model" --data "$data" --out "$ns/out-$tag" --backend $be \
      --steps $steps --ctx $T --rank 8 --alpha 16 "$@" --json > "$out/ns-$tag.jsonl" 2>> "$out/norm-spike.log"
    local rc=$?
    log "ns $tag (ctx $T, $be, fused $fused${*:+, $*}): exit $rc in $(( $(date +%s) - t1 )) s: $(ns_sum "$out/ns-$tag.jsonl" $T 2>&1)"
  }
  ns_model q151k "$(vocab qwen2)"; ns_model q32k "$(vocab llama-spm)"
  log "ns models: $(cd "$ns" && du -m q151k.gguf q32k.gguf | tr '\t\n' ' ')(qwen3 $shape, tied, Q4_K_M; vocab qwen2 151936 / llama-spm 32000)"
  for T in 1024 4096 16384 ${NS_T:-}; do ns_data "$ns/d151k-$T.jsonl" $T 151643; ns_data "$ns/d32k-$T.jsonl" $T 32000; done
  for r in ${NS_RUNS:-gpu16k text16k gpu4k gpu4k-unfused gpu16k-f32 v32k-16k gpu1k gpu1k-unfused v32k-4k cpu1k cpu1k-unfused cpu4k}; do case $r in
    gpu16k)        ns_run $r "$ns/q151k.gguf" "$ns/d151k-16384.jsonl" 16384 cuda 1 5 ;;
    gpu16k-f32)    ns_run $r "$ns/q151k.gguf" "$ns/d151k-16384.jsonl" 16384 cuda 1 5 --gpu-precision f32 ;;
    gpu16k-rowsoff) GGML_CUDA_DISABLE_ROW_KERNELS=1 ns_run $r "$ns/q151k.gguf" "$ns/d151k-16384.jsonl" 16384 cuda 1 5 ;;
    gpu4k)         ns_run $r "$ns/q151k.gguf" "$ns/d151k-4096.jsonl" 4096 cuda 1 5 ;;
    gpu4k-unfused) ns_run $r "$ns/q151k.gguf" "$ns/d151k-4096.jsonl" 4096 cuda 0 5 ;;
    gpu1k)         ns_run $r "$ns/q151k.gguf" "$ns/d151k-1024.jsonl" 1024 cuda 1 5 ;;
    gpu1k-unfused) ns_run $r "$ns/q151k.gguf" "$ns/d151k-1024.jsonl" 1024 cuda 0 5 ;;
    text16k)       ns_run $r "$ns/q151k.gguf" "$dev/text.txt" 16384 cuda 1 ${NS_TEXT_STEPS:-19} ;;
    v32k-16k)      ns_run $r "$ns/q32k.gguf" "$ns/d32k-16384.jsonl" 16384 cuda 1 5 ;;
    v32k-4k)       ns_run $r "$ns/q32k.gguf" "$ns/d32k-4096.jsonl" 4096 cuda 1 5 ;;
    cpu1k)         ns_run $r "$ns/q151k.gguf" "$ns/d151k-1024.jsonl" 1024 cpu 1 5 --threads ${NS_CPU_THREADS:-$jobs} ;;
    cpu1k-unfused) ns_run $r "$ns/q151k.gguf" "$ns/d151k-1024.jsonl" 1024 cpu 0 5 --threads ${NS_CPU_THREADS:-$jobs} ;;
    cpu4k)         ns_run $r "$ns/q151k.gguf" "$ns/d151k-4096.jsonl" 4096 cpu 1 5 --threads ${NS_CPU_THREADS:-$jobs} ;;
    # --gpu-precision f32 leaves the 151936-row head on MMQ (the BF16 copy is for heads under
    # 256 MiB): 16384 x 151936 logits = 2.49e9 elements, past 2^31; 14080 tokens stay under it
    f32-16k-sync)  CUDA_LAUNCH_BLOCKING=1 ns_run $r "$ns/q151k.gguf" "$ns/d151k-16384.jsonl" 16384 cuda 1 1 --gpu-precision f32 ;;
    f32-14080)     ns_run $r "$ns/q151k.gguf" "$ns/d151k-14080.jsonl" 14080 cuda 1 5 --gpu-precision f32 ;;
    f32-14336)     ns_run $r "$ns/q151k.gguf" "$ns/d151k-14336.jsonl" 14336 cuda 1 5 --gpu-precision f32 ;;
    f32-16k-memcheck) NS_WRAP="compute-sanitizer --tool memcheck --print-limit 8" ns_run $r "$ns/q151k.gguf" "$ns/d151k-16384.jsonl" 16384 cuda 1 1 --gpu-precision f32 ;;
    cpu16k)        ns_run $r "$ns/q151k.gguf" "$ns/d151k-16384.jsonl" 16384 cpu 1 5 --threads ${NS_CPU_THREADS:-$jobs} ;;
  esac; done
  if [ "${NS_4B:-0}" = 1 ]; then
    m=$work/qwen3-4b-q4_k_m.gguf
    t1=$(date +%s)
    [ -f "$m" ] || "$bin/hone-train" make-model ${spec[qwen3-4b]} --type q4_k_m --out "$m" 2>> "$out/norm-spike.log"
    log "qwen3-4b: make-model $(( $(date +%s) - t1 )) s"
    for r in ${NS_4B_RUNS:-text jsonl}; do case $r in
      text)     ns_run 4b-text "$m" "$dev/text.txt" 16384 cuda 1 3 ;;
      text-f32) ns_run 4b-text-f32 "$m" "$dev/text.txt" 16384 cuda 1 3 --gpu-precision f32 ;;
      jsonl)    ns_run 4b-jsonl "$m" "$ns/d151k-16384.jsonl" 16384 cuda 1 5 ;;
      jsonl4k)  ns_run 4b-jsonl4k "$m" "$ns/d151k-4096.jsonl" 4096 cuda 1 5 ;;
      jsonl14080) ns_run 4b-jsonl14080 "$m" "$ns/d151k-14080.jsonl" 14080 cuda 1 5 ;;
      jsonl14336) ns_run 4b-jsonl14336 "$m" "$ns/d151k-14336.jsonl" 14336 cuda 1 5 ;;
    esac; done
  fi
  ;;
ns-ops)
  # the ops under suspicion for the norm spike against the CPU
  for op in CROSS_ENTROPY_LOSS CROSS_ENTROPY_LOSS_BACK FLASH_ATTN_BACK; do
    timeout ${NS_OPS_TIMEOUT:-150} "$bin/test-backend-ops" test -b CUDA0 -o $op > "$out/ops-$op.log" 2>&1
    log "$op: $(grep -E 'tests passed' "$out/ops-$op.log" | tail -1 | sed 's/^ *//'), $(grep -c 'FAIL' "$out/ops-$op.log") FAIL, $(grep -c 'labels=i32.*OK' "$out/ops-$op.log") index cases OK"
    grep -E 'FAIL' "$out/ops-$op.log" | head -6 | sed 's/^/    /' | tee -a "$out/summary.txt"
  done
  ;;
set-rows)
  "$bin/test-backend-ops" test -b CUDA0 -o SET_ROWS > "$out/ops-SET_ROWS.log" 2>&1
  log "SET_ROWS: $(grep -E 'tests passed' "$out/ops-SET_ROWS.log" | tail -1 | sed 's/^ *//')"
  ;;
build) ;; # the build above
*)
  # newer stages live one file each in device-stages/, sourced with this script's variables
  if [ -f "$root/native/scripts/device-stages/$stage.sh" ]; then . "$root/native/scripts/device-stages/$stage.sh"; else log "unknown stage $stage"; fi
  ;;
esac; done
log "done"
