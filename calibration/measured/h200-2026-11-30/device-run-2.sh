#!/usr/bin/env bash
# Second device run: GEMMs with the fastest of 8 cuBLASLt algorithms, a repeat of the heuristic's
# choice, and PyTorch's matmul on the same GPU as a cross-check.
set -uo pipefail
cd "$(dirname "$0")/.."
exec > >(tee -a "$OUT/log2.txt") 2>&1
l1=$(dirname "$(find /usr/local -name libcublasLt.so.13 | head -1)")
l2=$(dirname "$(find /opt -name libnccl.so.2 | head -1)")
export LD_LIBRARY_PATH="$PWD/.devrun:$l1:$l2"
raw=$OUT/raw2; mkdir -p "$raw"; b=.devrun/bench
SECONDS=0
timeout 120 $b/gemm_bench --model llama3-70b --tp 8 --algos 8 > $raw/gemm_llama3-70b_algos8.jsonl; echo "rc=$? ${SECONDS}s"
timeout 90 $b/gemm_bench --model gpt3-175b --tp 8 --square 0 --algos 8 > $raw/gemm_gpt3-175b_algos8.jsonl; echo "rc=$? ${SECONDS}s"
timeout 90 $b/gemm_bench --model llama3-405b --tp 8 --square 0 --algos 8 > $raw/gemm_llama3-405b_algos8.jsonl; echo "rc=$? ${SECONDS}s"
timeout 90 $b/gemm_bench --model llama3-70b --tp 8 > $raw/gemm_llama3-70b_repeat.jsonl; echo "rc=$? ${SECONDS}s"
timeout 60 python3 - > $raw/torch_matmul.txt <<'PY'
import torch
print("torch", torch.__version__, torch.cuda.get_device_name(0))
for dt, name in ((torch.bfloat16, "bf16"),):
    for n in (4096, 8192, 16384):
        a = torch.randn(n, n, device="cuda", dtype=dt); b = torch.randn(n, n, device="cuda", dtype=dt)
        for _ in range(5): a @ b
        torch.cuda.synchronize()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(20): a @ b
        e.record(); torch.cuda.synchronize()
        ms = s.elapsed_time(e) / 20
        print(f"{name} {n}x{n}x{n} back-to-back mean of 20: {ms*1e3:.1f} us {2*n**3/ms/1e9:.1f} TFLOP/s")
PY
echo "torch rc=$? ${SECONDS}s"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
tar -C "$OUT" -czf "$OUT/h200-raw2.tar.gz" raw2 && rm -rf "$raw"
