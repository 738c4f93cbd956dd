#!/usr/bin/env bash
# Third device run: attention kernels (cuDNN and FlashAttention-2 through PyTorch SDPA).
set -uo pipefail
cd "$(dirname "$0")/.."
exec > >(tee -a "$OUT/log3.txt") 2>&1
SECONDS=0
PYTHONUNBUFFERED=1 timeout 240 python3 .devrun/attention.py > "$OUT/attention_fwd_bwd.jsonl" 2> "$OUT/attention_fwd.txt"
echo "attention rc=$? ${SECONDS}s"
cat "$OUT/attention_fwd_bwd.jsonl" "$OUT/attention_fwd.txt"
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw --format=csv
