#!/usr/bin/env bash
# Device run for calibration: the carried bench binaries on one H200, raw results into $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
log=$OUT/log.txt
exec > >(tee -a "$log") 2>&1
date -u; nvidia-smi; nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,power.limit --format=csv
libs2=""
for l in libcublasLt.so.13 libnccl.so.2; do
  p=$(find /usr/local /opt /usr/lib -name "$l" 2>/dev/null | head -1); echo "$l -> $p"; libs2="$libs2:$(dirname "$p")"
done
export LD_LIBRARY_PATH="$PWD/.devrun$libs2${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
for b in gemm_bench membw_bench nccl_bench; do ldd .devrun/bench/$b | grep -E "not found|cublas|nccl|cudart"; done
chmod +x .devrun/bench/*
raw=$OUT/raw; mkdir -p "$raw"
SECONDS=0
timeout 420 tools/calibrate-node --build .devrun --out "$raw" --gpu h200-sxm --model llama3-70b --tp 8 --no-calibrate
rc=$?; echo "calibrate-node rc=$rc after ${SECONDS}s"
if (( rc != 0 )); then  # keep whatever still runs
  timeout 60 .devrun/bench/membw_bench > "$raw/membw.jsonl"; echo "membw rc=$?"
  for op in all_reduce all_gather reduce_scatter alltoall sendrecv; do
    timeout 60 .devrun/bench/nccl_bench --op $op --max-bytes 4G > "$raw/nccl_$op.txt"; echo "nccl $op rc=$?"
  done
fi
# A second model's shapes (GPT-3 175B at tp 8) broaden the GEMM fit, if time allows.
if (( SECONDS < 300 )); then
  timeout 120 .devrun/bench/gemm_bench --model gpt3-175b --tp 8 --square 0 > "$raw/gemm_gpt3.jsonl"
  echo "gemm gpt3 rc=$? after ${SECONDS}s"
fi
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
ls -la "$raw"
tar -C "$OUT" -czf "$OUT/h200-raw.tar.gz" raw && rm -rf "$raw"
