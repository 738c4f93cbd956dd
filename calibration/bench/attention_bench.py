#!/usr/bin/env python3
"""Fused attention's throughput by kernel and call size, with and without dropout.

Times causal bf16 forward + backward calls of PyTorch's scaled_dot_product_attention through its
cuDNN and flash backends (PyTorch's build of FlashAttention-2), and of the flash-attn package where
installed, at the per-GPU shapes of the validated runs, each at --dropout 0 and at every other
probability given. Prints one JSON line per call in clustersim's bench-record form:

  {"bench":"attention","dtype":"bf16","batch":1,"seq":4096,"heads":16,"head_dim":128,"causal":true,
   "kernel":"torch 2.11.0 sdpa cudnn fwd+bwd","tflops":412.3,"dropout":0.1}

tflops counts the executed FLOPs of the call, 4 b h s^2 d / 2 (causal) x 3.5 (backward 2.5 x the
forward), the median of --iters timed calls between CUDA events after --warmup. `clustersim
calibrate` fits each kernel's rate to the calls without dropout and the profile's
attention_dropout_share to the time each call with dropout adds against the same call without,
per FLOP at the bf16 peak. A backend the installed PyTorch cannot run at a shape or a probability is skipped with a
note on stderr.

Usage: python3 attention_bench.py [--dropout P ...] [--iters N] [--warmup N] > attention.jsonl
Needs PyTorch with CUDA; not run by the tests (no GPU here).
"""
import argparse
import json
import statistics
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

# (batch, seq, heads, head dim): one GPU's share of the validated runs' attention.
SHAPES = [
    (1, 4096, 16, 128),  # Megatron-Core's 2024 GPT 1.7B (TP 1)
    (1, 4096, 8, 128),   # Llama 3 70B / 405B heads per TP 8 rank, 4K tokens
    (1, 8192, 8, 128),   # the same at 8K
    (2, 8192, 16, 128),  # FlashAttention-3 paper's 16K-token calls
    (2, 2048, 12, 128),  # GPT-3 175B heads per TP 8 rank
]


def call_flops(b, s, h, d):
    return 4.0 * b * h * s * s * d / 2.0 * 3.5


def time_call(step, iters, warmup):
    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(iters):
        start.record()
        step()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) * 1e-3)
    return statistics.median(times)


def sdpa_kernels():
    for name, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION), ("flash2", SDPBackend.FLASH_ATTENTION)):
        def make(q, k, v, grad, p, backend=backend):
            def step():
                with sdpa_kernel([backend]):
                    F.scaled_dot_product_attention(q, k, v, dropout_p=p, is_causal=True).backward(grad)
            return step
        yield f"torch {torch.__version__} sdpa {name} fwd+bwd", "bhsd", make
    try:
        from flash_attn import __version__ as fa_version, flash_attn_func
    except ImportError:
        print("# flash-attn package not installed: its FlashAttention-2 not measured", file=sys.stderr)
        return

    def make_fa(q, k, v, grad, p):
        return lambda: flash_attn_func(q, k, v, dropout_p=p, causal=True).backward(grad)
    yield f"flash-attn {fa_version} flash-attention-2 fwd+bwd", "bshd", make_fa


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dropout", type=float, nargs="*", default=[0.1],
                        help="dropout probabilities measured beside 0 (default: 0.1, Megatron-LM's default)")
    parser.add_argument("--iters", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=5)
    args = parser.parse_args()
    dev = torch.device("cuda")
    props = torch.cuda.get_device_properties(0)
    print(json.dumps({"bench": "device", "name": torch.cuda.get_device_name(0),
                      "sm_count": props.multi_processor_count}), flush=True)
    probabilities = [0.0] + [p for p in args.dropout if p > 0.0]
    for kernel, layout, make in sdpa_kernels():
        for b, s, h, d in SHAPES:
            shape = (b, h, s, d) if layout == "bhsd" else (b, s, h, d)
            q, k, v = (torch.randn(*shape, device=dev, dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
            grad = torch.randn(*shape, device=dev, dtype=torch.bfloat16)
            for p in probabilities:
                try:
                    seconds = time_call(make(q, k, v, grad, p), args.iters, args.warmup)
                except Exception as e:  # the backend cannot run this shape or probability here
                    print(f"# {kernel} {b}x{s}x{h}x{d} dropout {p} skipped: {type(e).__name__}: {e}",
                          file=sys.stderr)
                    continue
                record = {"bench": "attention", "dtype": "bf16", "batch": b, "seq": s, "heads": h, "head_dim": d,
                          "causal": True, "kernel": kernel, "tflops": round(call_flops(b, s, h, d) / seconds / 1e12, 2)}
                if p > 0.0:
                    record["dropout"] = p
                print(json.dumps(record), flush=True)
            del q, k, v, grad
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
