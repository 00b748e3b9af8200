#!/usr/bin/env bash
# CPU training benchmark: hone-train (LoRA on the frozen base) beside upstream llama-finetune
# (full fine-tune) on the same model and text, in the same run; then on sequences with the
# lengths of real instruction data (real_lengths.py), packed and padded. Prints real
# (non-padding) tokens/s, how full the rows were, and peak RSS.
# usage: native/scripts/bench-cpu.sh [fixtures-dir] [threads]
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
fx=${1:-${HONE_FIXTURES:-$root/../shared/fixtures}}
threads=${2:-$(nproc)}
bin=$root/native/bin
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
head -c 40000 "$fx/tinyshakespeare.txt" > "$work/text.txt"
ctx=256

"$bin/hone-train" make-model --arch llama --embd 256 --layers 2 --heads 4 --kv-heads 2 --ff 512 \
  --vocab-from "$bin/vocab/llama-spm.gguf" --type q4_k_m --out "$work/syn-q4_k_m.gguf" 2>/dev/null

echo "machine: $(uname -m), $(nproc) cores, threads $threads; $(date -u +%Y-%m-%d)"
echo "text: first 40,000 bytes of tinyshakespeare; ctx $ctx; one sequence per step"
printf '%-34s %-16s %10s %12s %s\n' model trainer "tok/s" "peak RSS MiB" note

bench_hone() { # model label steps
  local out=$work/hone-$2
  /usr/bin/time -f '%M' -o "$work/rss" "$bin/hone-train" --model "$1" --data "$work/text.txt" --out "$out" \
    --steps "$3" --ctx $ctx --rank 8 --alpha 16 --lr 1e-4 --threads "$threads" --json > "$work/hone.jsonl" 2>/dev/null
  local rc=$?
  local tps=$(node -e 'const r=require(process.argv[1]);console.log(r.metrics.tokensPerS.toFixed(0))' "$out/run.json" 2>/dev/null)
  printf '%-34s %-16s %10s %12s %s\n' "$2" "hone-train LoRA" "${tps:-—}" "$(( $(tail -1 "$work/rss") / 1024 ))" "r=8, q/k/v/o/gate/up/down, exit $rc"
}

bench_real() { # model label pack(true|false)
  local out=$work/real-$2-$3
  /usr/bin/time -f '%M' -o "$work/rss" "$bin/hone-train" --model "$1" --data "$work/real.jsonl" --out "$out" \
    --steps 4 --ctx $ctx --batch 16 --ubatch 1 --pack "$3" --rank 8 --alpha 16 --lr 1e-4 --threads "$threads" --json > "$work/real.jsonl.log" 2>/dev/null
  local rc=$?
  local m=$(node -e 'const r=require(process.argv[1]);console.log(r.metrics.tokensPerS.toFixed(0), (100*r.metrics.rowFill).toFixed(0))' "$out/run.json" 2>/dev/null)
  printf '%-34s %-16s %10s %12s %s\n' "$2" "hone $([ "$3" = true ] && echo packed || echo padded)" "${m% *}" "$(( $(tail -1 "$work/rss") / 1024 ))" "rows ${m#* }% full, 16 examples a step, exit $rc"
}

bench_finetune() { # model label
  local start=$(date +%s.%N)
  /usr/bin/time -f '%M' -o "$work/rss" "$bin/llama-finetune" -m "$1" -f "$work/text.txt" -c $ctx -b $ctx -ub $ctx \
    -t "$threads" --epochs 1 -o "$work/ft-out.gguf" > "$work/ft.log" 2>&1
  local rc=$?
  local end=$(date +%s.%N)
  local note="full fine-tune, exit $rc"
  [ $rc -ne 0 ] && note="$note: $(grep -m1 -iE 'error|assert|abort' "$work/ft.log" | cut -c1-90)"
  local secs=$(echo "$end - $start" | bc)
  # the progress bar reads "train: [...] data=NNN/NNN": NNN training sequences of ctx tokens
  local ntrain=$(grep -oE 'train: [^d]*data=[0-9]+/[0-9]+' "$work/ft.log" | head -1 | grep -oE '[0-9]+$' | sed 's/^0*//')
  local tps="—"
  [ $rc -eq 0 ] && [ -n "$ntrain" ] && tps=$(echo "$ntrain * $ctx / $secs" | bc)
  printf '%-34s %-16s %10s %12s %s\n' "$2" "llama-finetune" "$tps" "$(( $(tail -1 "$work/rss") / 1024 ))" "$note (${secs%.*} s incl. load)"
}

bench_hone "$fx/stories260K.gguf" "stories260K (F32)" 40
bench_finetune "$fx/stories260K.gguf" "stories260K (F32)"
bench_hone "$work/syn-q4_k_m.gguf" "synthetic llama 256x2 Q4_K_M" 10
bench_finetune "$work/syn-q4_k_m.gguf" "synthetic llama 256x2 Q4_K_M"

# real instruction lengths (median 180, 90th percentile 500, at most 800 tokens), truncated to ctx 512
ctx=512
python3 "$root/native/scripts/real_lengths.py" instruct 400 "$work/real.jsonl" --vocab 512 > "$work/real-stats.json"
echo
echo "real lengths: $(cat "$work/real-stats.json"); ctx $ctx; tok/s counts real tokens only"
printf '%-34s %-16s %10s %12s %s\n' model trainer "tok/s" "peak RSS MiB" note
for pack in true false; do bench_real "$fx/stories260K.gguf" "stories260K (F32)" $pack; done
for pack in true false; do bench_real "$work/syn-q4_k_m.gguf" "synthetic llama 256x2 Q4_K_M" $pack; done
