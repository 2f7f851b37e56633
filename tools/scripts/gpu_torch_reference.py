#!/usr/bin/python3
"""Times PyTorch (cuBLAS, its fused kernels) on the workloads gpu_check.py runs,
in the same session on the same GPU, so that tessel's times have a reference:

    python3 tools/scripts/gpu_torch_reference.py [--repeat=50]   # one JSON line per workload

f32 matmuls run with TF32 off (tessel computes in f32). Also prints the device
copy bandwidth (a device-to-device copy of 256 MiB), the reference for
memory-bound kernels. Exits 0 with a note when torch or a GPU is missing.
"""
import argparse
import json
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=50)
    args = ap.parse_args()
    try:
        import torch
    except ImportError:
        print(json.dumps({"reference": "torch", "skipped": "torch is not installed"}))
        return
    if not torch.cuda.is_available():
        print(json.dumps({"reference": "torch", "skipped": "no CUDA device"}))
        return
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = "cuda"
    f32 = torch.float32

    def rand(*shape):
        return torch.rand(*shape, device=dev, dtype=f32) * 2 - 1

    def time_ms(fn):
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(args.repeat):
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop))
        times.sort()
        return times[len(times) // 2]

    def gelu_tanh(x):
        return torch.nn.functional.gelu(x, approximate="tanh")

    cases = {}
    for n in (256, 1024, 4096):
        a, b = rand(n, n), rand(n, n)
        cases["matmul_%dx%dx%d_f32" % (n, n, n)] = (lambda a=a, b=b: torch.mm(a, b), 2.0 * n ** 3, 0)
    x, w1, b1, w2, b2 = rand(128, 768), rand(3072, 768), rand(3072), rand(768, 3072), rand(768)
    cases["bert_ffn_128x3072x768"] = (
        lambda: torch.nn.functional.linear(torch.nn.functional.gelu(
            torch.nn.functional.linear(x, w1, b1)), w2, b2), 2.0 * 2 * 128 * 768 * 3072, 0)
    a, v = rand(4096, 4096), rand(4096)
    cases["gemv_4096x4096"] = (lambda: torch.mv(a, v), 2.0 * 4096 * 4096, (4096 * 4096 + 8192) * 4)
    s = rand(4096, 4096)
    cases["softmax_4096x4096"] = (lambda: torch.softmax(s, dim=-1), 0, 2 * 4096 * 4096 * 4)
    ln, g, be = rand(4096, 768), rand(768), rand(768)
    cases["layernorm_4096x768"] = (
        lambda: torch.nn.functional.layer_norm(ln, (768,), g, be, 1e-5), 0, 2 * 4096 * 768 * 4)
    bg, bb = rand(4096, 3072), rand(3072)
    cases["bias_gelu_4096x3072"] = (lambda: gelu_tanh(bg + bb), 0, 2 * 4096 * 3072 * 4)
    q, k, vv = rand(1, 12, 128, 64), rand(1, 12, 128, 64), rand(1, 12, 128, 64)
    cases["attention_1x12x128x64"] = (
        lambda: torch.softmax(q @ k.transpose(-1, -2) / 8.0, dim=-1) @ vv, 0, 0)

    src = torch.empty(64 << 20, device=dev, dtype=f32)
    dst = torch.empty_like(src)
    ms = time_ms(lambda: dst.copy_(src))
    print(json.dumps({"reference": "device copy", "ms": round(ms, 5),
                      "GB/s": round(2 * src.numel() * 4 / ms / 1e6, 1),
                      "device": torch.cuda.get_device_name(), "torch": torch.__version__}))
    for name, (fn, flops, nbytes) in cases.items():
        ms = time_ms(fn)
        line = {"reference": "torch", "workload": name, "ms": round(ms, 5)}
        if flops:
            line["TFLOP/s"] = round(flops / ms / 1e9, 2)
        if nbytes:
            line["GB/s"] = round(nbytes / ms / 1e6, 1)
        print(json.dumps(line))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
