# Attention kernel throughput on this GPU through PyTorch's scaled_dot_product_attention, per
# backend (cuDNN fused attention, FlashAttention-2), causal, bf16, forward and forward+backward.
# Prints JSON lines in clustersim's bench-record form: {"bench":"attention", ...}. FLOPs are those
# executed: 4 b h s^2 d / 2 for a causal forward, x 3.5 for forward + backward (backward = 2.5 x).
import json, sys, time
import torch
from torch.nn.attention import sdpa_kernel, SDPBackend
import torch.nn.functional as F

dev = torch.device("cuda")
print(json.dumps({"bench": "device", "name": torch.cuda.get_device_name(0),
                  "sm_count": torch.cuda.get_device_properties(0).multi_processor_count}), flush=True)
backends = [("cudnn", SDPBackend.CUDNN_ATTENTION), ("flash2", SDPBackend.FLASH_ATTENTION)]
# (batch, seq, query heads, kv heads, head dim): Llama 3 70B / 405B per TP-8 rank, GPT-3 per TP-8 rank.
shapes = [(1, 4096, 8, 1, 128), (1, 8192, 8, 1, 128), (2, 8192, 16, 16, 128), (1, 8192, 16, 2, 128), (2, 2048, 12, 12, 128)]
iters, warmup = 20, 5
for name, backend in backends:
    for b, s, h, hkv, d in shapes:
        try:
            q = torch.randn(b, h, s, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
            k = torch.randn(b, hkv, s, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
            v = torch.randn(b, hkv, s, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
            if hkv != h:  # expand GQA heads, as frameworks do before the kernel when it lacks GQA
                k2 = k.repeat_interleave(h // hkv, dim=1).detach().requires_grad_(True)
                v2 = v.repeat_interleave(h // hkv, dim=1).detach().requires_grad_(True)
            else:
                k2, v2 = k, v
            grad = torch.randn(b, h, s, d, device=dev, dtype=torch.bfloat16)
            with sdpa_kernel([backend]):
                def fwd():
                    return F.scaled_dot_product_attention(q, k2, v2, is_causal=True)
                for _ in range(warmup):
                    fwd().backward(grad)
                torch.cuda.synchronize()
                e0, e1, e2 = (torch.cuda.Event(enable_timing=True) for _ in range(3))
                fwd_ms, all_ms = [], []
                for _ in range(iters):
                    e0.record(); o = fwd(); e1.record(); o.backward(grad); e2.record()
                    torch.cuda.synchronize()
                    fwd_ms.append(e0.elapsed_time(e1)); all_ms.append(e0.elapsed_time(e2))
            fwd_ms.sort(); all_ms.sort()
            f_ms, a_ms = fwd_ms[len(fwd_ms) // 2], all_ms[len(all_ms) // 2]
            flops_fwd = 4.0 * b * h * s * s * d / 2.0
            rec = {"bench": "attention", "dtype": "bf16", "batch": b, "seq": s, "heads": h, "head_dim": d, "causal": True,
                   "kernel": f"torch {torch.__version__} sdpa {name} fwd+bwd", "tflops": round(3.5 * flops_fwd / (a_ms * 1e-3) / 1e12, 2)}
            print(json.dumps(rec), flush=True)
            print(json.dumps(dict(rec, kernel=f"torch {torch.__version__} sdpa {name} fwd",
                                  tflops=round(flops_fwd / (f_ms * 1e-3) / 1e12, 2))), file=sys.stderr, flush=True)
        except Exception as e:  # a backend may refuse a shape
            print(f"# {name} {(b, s, h, hkv, d)}: {type(e).__name__}: {e}", file=sys.stderr, flush=True)
