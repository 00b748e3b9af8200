# Stage ops-packed (sourced by device-cuda.sh): packed rows' attention against the CPU, patch
# 0031's cases: the forward on upstream's kernels (a causal mask that is not exactly causal)
# and the backward (patches 0008/0016) with a mask plane per sequence.
for op in FLASH_ATTN_EXT FLASH_ATTN_BACK; do
  f=$out/ops-packed-$op.log
  timeout 240 "$bin/test-backend-ops" test -b CUDA0 -o $op -p seg= > "$f" 2>&1
  log "$op, packed rows (patch 0031): $(grep -E 'tests passed' "$f" | tail -1 | sed 's/^ *//'), $(grep -c 'FAIL' "$f") FAIL, $(grep -c 'seg=.*OK' "$f") packed cases OK"
  grep -E 'FAIL' "$f" | head -6 | sed 's/^/    /' | tee -a "$out/summary.txt"
done
