# Stage real-lengths (sourced by device-cuda.sh): issue 54's benchmark. Token JSONL with the
# lengths of real instruction data (real_lengths.py: median 180, 90th percentile 500, maximum
# 800), RL_BATCH examples a step at context RL_CTX, the micro-batch chosen by the trainer (--ubatch
# auto; RL_UBATCH to set it), for each shape:
#   full    Hone on full windows of text at the same context, one window a step (the target's 1x)
#   packed  Hone on the real lengths, packed
#   padded  the same unpacked (one example a row, right-padded)
#   PyTorch + PEFT on the same examples: eager (one example a forward, no padding), packed (rows
#   with position ids and a block-diagonal mask), compiled (torch.compile dynamic=True; RL_COMPILE=0 skips)
# Speeds are real (non-padding) tokens per second; peaks by nvidia-smi (Hone) and PyTorch's allocator.
rl_ctx=${RL_CTX:-1024}; rl_batch=${RL_BATCH:-32}; rl_dist=${RL_DIST:-instruct}
rl_data=$work/rl-$rl_dist.jsonl
[ -f "$rl_data" ] || python3 "$native/scripts/real_lengths.py" "$rl_dist" 4000 "$rl_data" --vocab 128000 | tee -a "$out/summary.txt"
rl_hone() { # rl_hone TAG MODEL DATA STEPS hone-train flags...
  local tag=$1 model=$2 data=$3 steps=$4; shift 4
  nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 100 > "$out/smi-$tag.txt" & local smi=$!
  timeout 300 "$bin/hone-train" --model "$model" --data "$data" --out "$out/$tag" --backend cuda --steps "$steps" --ctx "$rl_ctx" \
    --rank 8 --alpha 16 --json "$@" > "$out/$tag.jsonl" 2>> "$out/real-lengths.log"
  local rc=$?; kill $smi 2>/dev/null
  log "$tag: exit $rc, peak GPU $(sort -n "$out/smi-$tag.txt" | tail -1) MiB used; $(python3 "$native/scripts/ops-summary.py" "$out/$tag/ops.json" "$out/$tag.jsonl" 2>&1 | head -1)"
}
for shape in ${RL_SHAPES:-qwen3-4b llama-3.2-1b qwen2.5-0.5b}; do
  m=$work/$shape-q4_k_m.gguf
  [ -f "$m" ] || "$bin/hone-train" make-model ${spec[$shape]} --type q4_k_m --out "$m" 2>> "$out/real-lengths.log"
  rl_hone "$shape-full" "$m" "$dev/text.txt" 8 --batch 1
  rl_hone "$shape-packed" "$m" "$rl_data" 6 --batch "$rl_batch" --ubatch "${RL_UBATCH:-auto}"
  rl_hone "$shape-padded" "$m" "$rl_data" 3 --batch "$rl_batch" --ubatch "${RL_UBATCH:-auto}" --pack false
  for mode in eager packed $([ "${RL_COMPILE:-1}" = 1 ] && echo compiled); do
    (cd "$native/scripts" && timeout ${RL_PEFT_TIMEOUT:-240} python3 bench-peft-real.py "$shape" "$rl_data" $mode --ctx "$rl_ctx" --batch "$rl_batch" --steps 2 \
      >> "$out/peft-real.jsonl" 2>> "$out/peft-real.log"); rc=$?
    log "$shape peft-$mode: exit $rc $(tail -1 "$out/peft-real.jsonl")"
  done
done
