#!/usr/bin/env python3
"""The SM clock and board power a GPU holds under each kind of training work, run back to back.

The step model's GEMM and attention rates come from short benchmark calls, taken at the clock of a
GPU that has not yet reached its power limit; a training run sits at that limit for hours. This
runs each workload without pause for --seconds, samples the SM clock and the power draw every
100 ms (nvidia-smi), and prints one JSON line per workload in clustersim's bench-record form:

  {"bench":"clock","work":"gemm","dtype":"bf16","kernel":"torch matmul bf16 8192^3","tflops":702.1,
   "sm_mhz_first_s":1980,"sm_mhz":1590,"power_w":699.2,"power_limit_w":700,"seconds":20}

sm_mhz_first_s is the median clock of the first second (the clock short benchmark calls see),
sm_mhz and power_w the medians of the last half (the clock held under sustained load), tflops the
rate over that last half. `clustersim calibrate` takes the bf16 GEMM's sm_mhz / sm_mhz_first_s as
the profile's sustained_clock_ratio, the attention rows' over it as attention_clock_factor (whether
attention, which keeps the tensor cores a third to a half as busy as a GEMM, holds a higher clock
than a GEMM at the same power limit), and reports every workload's.

Workloads: bf16 and fp8 GEMMs (torch.matmul, torch._scaled_mm), causal attention forward + backward
(scaled_dot_product_attention's cuDNN and flash backends; the flash-attn package where installed),
a device-to-device copy (memory-bound) and the idle GPU. A workload the installed PyTorch cannot
run is skipped with a note on stderr.

Usage: python3 clock_under_load.py [--seconds S] [--device N] > clock.jsonl
Needs PyTorch with CUDA and nvidia-smi; not run by the tests (no GPU here).
"""
import argparse
import json
import math
import statistics
import subprocess
import sys
import threading
import time

import torch


class ClockSampler:
    """nvidia-smi's SM clock and power draw every 100 ms, with the time each line arrived."""

    def __init__(self, device):
        self.samples = []  # (monotonic time, sm MHz, power W)
        self.proc = subprocess.Popen(
            ["nvidia-smi", "-i", str(device), "--query-gpu=clocks.sm,power.draw", "--format=csv,noheader,nounits",
             "-lms", "100"], stdout=subprocess.PIPE, text=True)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        for line in self.proc.stdout:
            try:
                mhz, watts = (float(x) for x in line.split(","))
            except ValueError:
                continue
            self.samples.append((time.monotonic(), mhz, watts))

    def window(self, start, end):
        return [(m, w) for t, m, w in self.samples if start <= t <= end]

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


def query(device, field):
    out = subprocess.run(["nvidia-smi", "-i", str(device), f"--query-gpu={field}", "--format=csv,noheader,nounits"],
                         capture_output=True, text=True, check=True).stdout
    return float(out.strip().splitlines()[0])


def run_for(step, seconds, sampler, work_per_step):
    """Runs step() back to back for `seconds`; returns (first-second clock, last-half clock, power,
    work per second over the last half)."""
    step()
    torch.cuda.synchronize()
    t0 = time.monotonic()
    steps_at_half, t_half, steps = 0, None, 0
    half_event = torch.cuda.Event(enable_timing=True)
    end_event = torch.cuda.Event(enable_timing=True)
    while True:
        step()
        steps += 1
        if steps % 4 == 0:
            torch.cuda.synchronize()  # keep the queue shallow, so the wall clock follows the GPU
            now = time.monotonic()
            if t_half is None and now - t0 >= seconds / 2:
                half_event.record()
                steps_at_half, t_half = steps, now
            elif t_half is not None and now - t0 >= seconds:
                break
    end_event.record()
    torch.cuda.synchronize()
    t_end = time.monotonic()
    first = sampler.window(t0, t0 + 1.0)
    last = sampler.window(t_half, t_end)
    rate = (steps - steps_at_half) * work_per_step / (half_event.elapsed_time(end_event) * 1e-3)
    median = lambda xs: statistics.median(xs) if xs else float("nan")
    return median([m for m, _ in first]), median([m for m, _ in last]), median([w for _, w in last]), rate


def workloads():
    """(work, dtype, kernel text, step function, FLOPs or bytes a step, unit)."""
    dev = torch.device("cuda")
    n = 8192
    a = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
    b = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
    c = torch.empty(n, n, device=dev, dtype=torch.bfloat16)
    yield "gemm", "bf16", f"torch {torch.__version__} matmul bf16 {n}^3", lambda: torch.mm(a, b, out=c), 2.0 * n ** 3, "tflops"
    try:
        a8 = a.to(torch.float8_e4m3fn)
        b8 = b.t().contiguous().to(torch.float8_e4m3fn).t()  # column-major, as _scaled_mm wants
        one = torch.tensor(1.0, device=dev)
        torch._scaled_mm(a8, b8, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
        yield ("gemm", "fp8", f"torch {torch.__version__} _scaled_mm fp8_e4m3 {n}^3",
               lambda: torch._scaled_mm(a8, b8, scale_a=one, scale_b=one, out_dtype=torch.bfloat16), 2.0 * n ** 3,
               "tflops")
    except Exception as e:  # an older PyTorch or a GPU without fp8
        print(f"# fp8 GEMM skipped: {type(e).__name__}: {e}", file=sys.stderr)

    from torch.nn.attention import SDPBackend, sdpa_kernel
    import torch.nn.functional as F
    bsz, seq, heads, hd = 2, 8192, 16, 128
    flops = 3.5 * 4.0 * bsz * heads * seq * seq * hd / 2.0  # causal, backward 2.5 x forward
    q, k, v = (torch.randn(bsz, heads, seq, hd, device=dev, dtype=torch.bfloat16, requires_grad=True) for _ in range(3))
    grad = torch.randn(bsz, heads, seq, hd, device=dev, dtype=torch.bfloat16)
    for name, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION), ("flash2", SDPBackend.FLASH_ATTENTION)):
        def sdpa_step(backend=backend):
            with sdpa_kernel([backend]):
                F.scaled_dot_product_attention(q, k, v, is_causal=True).backward(grad)
        try:
            sdpa_step()
            yield "attention", "bf16", f"torch {torch.__version__} sdpa {name} fwd+bwd causal {bsz}x{seq}x{heads}x{hd}", sdpa_step, flops, "tflops"
        except Exception as e:
            print(f"# sdpa {name} skipped: {type(e).__name__}: {e}", file=sys.stderr)
    try:
        import flash_attn
        from flash_attn import flash_attn_func
        qf, kf, vf = (x.detach().transpose(1, 2).contiguous().requires_grad_(True) for x in (q, k, v))
        gf = grad.transpose(1, 2).contiguous()
        step = lambda: flash_attn_func(qf, kf, vf, causal=True).backward(gf)
        step()
        yield ("attention", "bf16", f"flash-attn {flash_attn.__version__} fwd+bwd causal {bsz}x{seq}x{heads}x{hd}", step,
               flops, "tflops")
    except Exception as e:  # not installed
        print(f"# flash-attn package skipped: {type(e).__name__}: {e}", file=sys.stderr)

    src = torch.empty(1 << 31, device=dev, dtype=torch.uint8)
    dst = torch.empty_like(src)
    yield "copy", "", "device-to-device copy 2 GiB", lambda: dst.copy_(src), 2.0 * src.numel(), "gb_per_s"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0, help="how long each workload runs (default 20)")
    parser.add_argument("--device", type=int, default=0, help="the CUDA device (default 0)")
    args = parser.parse_args()
    torch.cuda.set_device(args.device)
    props = torch.cuda.get_device_properties(args.device)
    print(json.dumps({"bench": "device", "name": props.name, "sm_count": props.multi_processor_count}), flush=True)
    limit = query(args.device, "power.limit")
    sampler = ClockSampler(args.device)
    try:
        time.sleep(3.0)
        t = time.monotonic()
        idle = sampler.window(t - 2.0, t)
        if idle:
            idle_mhz = statistics.median(m for m, _ in idle)
            print(json.dumps({"bench": "clock", "work": "idle", "kernel": "idle GPU", "sm_mhz_first_s": idle_mhz,
                              "sm_mhz": idle_mhz, "power_w": statistics.median(w for _, w in idle),
                              "power_limit_w": limit, "seconds": 2.0}), flush=True)
        for work, dtype, kernel, step, per_step, unit in workloads():
            time.sleep(2.0)  # let the board cool back towards idle, as a fresh short benchmark would find it
            first, held, watts, rate = run_for(step, args.seconds, sampler, per_step)
            if any(math.isnan(x) for x in (first, held, watts)):
                print(f"# {kernel}: nvidia-smi gave no samples, no record", file=sys.stderr)
                continue
            record = {"bench": "clock", "work": work, "kernel": kernel, unit: round(rate / 1e12 if unit == "tflops" else rate / 1e9, 1),
                      "sm_mhz_first_s": first, "sm_mhz": held, "power_w": round(watts, 1), "power_limit_w": limit,
                      "seconds": args.seconds}
            if dtype:
                record["dtype"] = dtype
            print(json.dumps(record), flush=True)
    finally:
        sampler.stop()


if __name__ == "__main__":
    main()
