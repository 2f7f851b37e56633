"""Whole models through tessel's graph pipeline, timed end to end beside PyTorch.

    /usr/bin/python3 tools/bench/graph_models.py [--threads=1,2] [--repeat=15] [--small]
        [--describe]     (also print each model's launch sequence, once)

One JSON line per model and thread count, e.g.

    {"name": "graph/bert_ffn_128x768x3072_1t", "threads": 1, "tessel_ms": 8.1,
     "unfused_ms": 12.4, "constants_ms": 8.0, "torch_ms": 10.9, "ratio_vs_torch": 1.35, "fused_speedup": 1.53,
     "kernels": 2, "kernels_unfused": 5, "planned_bytes": 1572864, "unplanned_bytes": 5111808}

- tessel: `sink-reshapes,legalize,eliminate-common-calls,fuse-ops,fuse-tir,default-schedule,plan-memory`,
  built and called as `ex["main"](...)` on tessel.nd arrays (aligned: no staging
  copy; the weights stay where they are, as torch's tensors do), returning numpy;
  the time includes the call and the allocation of the results;
- unfused: `legalize,default-schedule` (one kernel per operator, no plan);
- constants: the weights bound as constants of the module before the pipeline
  (`tessel.graph.bind_params`, then `fold-constants` after `legalize` and
  `hoist-constant-packing` after `default-schedule`), called on x;
- torch: PyTorch CPU eager on the same arrays, `torch.set_num_threads(threads)`;
  null when python3-torch is not installed;
- ratio_vs_torch = torch_ms / tessel_ms (> 1: tessel is faster).
Each time is the median of `repeat` calls after two warm-up calls; the results of
every variant are compared with numpy first.

Models: BERT-base's FFN (x W1 + b1, GELU, W2 + b2; 128 x 768 x 3072) from the graph
builder, and a transformer encoder block (layer norm, 12-head attention, FFN; 128
tokens of 768) imported from ONNX (skipped when python3-onnx is missing).
"""

import argparse
import json
import math
import os
import statistics
import sys
import time

import numpy as np

import tessel
from tessel import graph, ops

FUSED = ("sink-reshapes,legalize,eliminate-common-calls,fuse-ops,fuse-tir,default-schedule{{target=\"{t}\"}},"
         "plan-memory")
CONSTANTS = FUSED.replace("legalize,", "legalize,fold-constants,").replace(
    ",plan-memory", ",hoist-constant-packing,plan-memory")
UNFUSED = "legalize,default-schedule{{target=\"{t}\"}}"


def median_ms(f, args, repeat):
    f(*args)
    f(*args)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        f(*args)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def ffn(m, d, h):
    with graph.Builder("main") as b:
        x = b.input("x", (m, d))
        w1, b1 = b.input("w1", (d, h)), b.input("b1", (h,))
        w2, b2 = b.input("w2", (h, d)), b.input("b2", (d,))
        u = b.emit(ops.add(b.emit(ops.matmul(x, w1), "u"), b1), "ub")
        g = b.emit(ops.gelu(u), "g")
        y = b.emit(ops.add(b.emit(ops.matmul(g, w2), "y"), b2), "z")
        mod = b.finish(y)
    rng = np.random.default_rng(0)
    args = [(rng.standard_normal(s) * 0.05).astype("float32")
            for s in [(m, d), (d, h), (h,), (h, d), (d,)]]

    def torch_fn(torch):
        x, w1, b1, w2, b2 = (torch.from_numpy(a) for a in args)
        gelu = torch.nn.functional.gelu
        return lambda: torch.addmm(b2, gelu(torch.addmm(b1, x, w1)), w2), ()

    return mod, args, torch_fn


def encoder(s, d, heads, f):
    import onnx  # noqa: F401  (skips the model when missing)
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(1)
    dh = d // heads

    def w(*shape):
        return (rng.standard_normal(shape) * 0.05).astype("float32")

    W = {"ln1_g": w(d) + 1, "ln1_b": w(d), "wq": w(d, d), "wk": w(d, d), "wv": w(d, d),
         "wo": w(d, d), "ln2_g": w(d) + 1, "ln2_b": w(d), "w1": w(d, f), "b1": w(f),
         "w2": w(f, d), "b2": w(d), "heads": np.array([1, s, heads, dh], dtype="int64"),
         "merged": np.array([1, s, d], dtype="int64"),
         "scale": np.array(math.sqrt(dh), dtype="float32"),
         "sqrt2": np.array(math.sqrt(2.0), dtype="float32"),
         "one": np.array(1.0, dtype="float32"), "half": np.array(0.5, dtype="float32")}
    n = helper.make_node
    nodes = [
        n("LayerNormalization", ["x", "ln1_g", "ln1_b"], ["ln1"], axis=-1, epsilon=1e-5),
        n("MatMul", ["ln1", "wq"], ["q"]), n("MatMul", ["ln1", "wk"], ["k"]),
        n("MatMul", ["ln1", "wv"], ["v"]),
        n("Reshape", ["q", "heads"], ["q4"]), n("Transpose", ["q4"], ["qh"], perm=[0, 2, 1, 3]),
        n("Reshape", ["k", "heads"], ["k4"]), n("Transpose", ["k4"], ["kt"], perm=[0, 2, 3, 1]),
        n("Reshape", ["v", "heads"], ["v4"]), n("Transpose", ["v4"], ["vh"], perm=[0, 2, 1, 3]),
        n("MatMul", ["qh", "kt"], ["sc"]), n("Div", ["sc", "scale"], ["ss"]),
        n("Softmax", ["ss"], ["p"], axis=-1), n("MatMul", ["p", "vh"], ["a"]),
        n("Transpose", ["a"], ["at"], perm=[0, 2, 1, 3]), n("Reshape", ["at", "merged"], ["am"]),
        n("MatMul", ["am", "wo"], ["o"]), n("Add", ["x", "o"], ["r1"]),
        n("LayerNormalization", ["r1", "ln2_g", "ln2_b"], ["ln2"], axis=-1, epsilon=1e-5),
        n("MatMul", ["ln2", "w1"], ["f1"]), n("Add", ["f1", "b1"], ["f1b"]),
        n("Div", ["f1b", "sqrt2"], ["g1"]), n("Erf", ["g1"], ["g2"]), n("Add", ["g2", "one"], ["g3"]),
        n("Mul", ["f1b", "g3"], ["g4"]), n("Mul", ["g4", "half"], ["gelu"]),
        n("MatMul", ["gelu", "w2"], ["f2"]), n("Add", ["f2", "b2"], ["f2b"]),
        n("Add", ["r1", "f2b"], ["y"]),
    ]
    g = helper.make_graph(
        nodes, "encoder", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, s, d])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, s, d])],
        [numpy_helper.from_array(v, k) for k, v in W.items()])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    mod, params = tessel.frontend.from_onnx(model)
    args = [w(1, s, d) * 20] + list(params.values())

    def torch_fn(torch):
        t = {k: torch.from_numpy(v) for k, v in W.items() if v.dtype == np.float32}
        x = torch.from_numpy(args[0])
        F = torch.nn.functional

        def run():
            ln1 = F.layer_norm(x, (d,), t["ln1_g"], t["ln1_b"], 1e-5)
            split = lambda u: u.reshape(1, s, heads, dh).transpose(1, 2)  # noqa: E731
            q, k, v = split(ln1 @ t["wq"]), split(ln1 @ t["wk"]), split(ln1 @ t["wv"])
            p = torch.softmax(q @ k.transpose(2, 3) / math.sqrt(dh), -1)
            r1 = x + (p @ v).transpose(1, 2).reshape(1, s, d) @ t["wo"]
            u = F.layer_norm(r1, (d,), t["ln2_g"], t["ln2_b"], 1e-5) @ t["w1"] + t["b1"]
            return r1 + F.gelu(u) @ t["w2"] + t["b2"]
        return run, ()

    return mod, args, torch_fn


def bench(name, make, threads, repeat, torch, describe=False):
    mod, args, torch_fn = make()
    target = f"llvm -num-cores={threads} -num-threads={threads}"
    want = graph.run(mod, "main", args)[0] if args[0].size <= 4096 else None
    row = {"name": f"graph/{name}_{threads}t", "threads": threads}
    nd_args = [tessel.nd.array(a) for a in args]
    results = {}
    for key, pipeline in (("tessel", FUSED), ("unfused", UNFUSED)):
        planned = tessel.transform.parse_pipeline(pipeline.format(t=target))(mod)
        f = tessel.build(planned, target=target)["main"]
        results[key] = f(*args)
        row[f"{key}_ms"] = round(median_ms(f, nd_args, repeat), 3)
        n_kernels = len(planned["main"].bindings)
        row["kernels" if key == "tessel" else "kernels_unfused"] = n_kernels
        if key == "tessel":
            if describe:
                print(f.describe(), end="", flush=True)
            row["planned_bytes"] = f.planned_bytes
            row["unplanned_bytes"] = f.unplanned_bytes
    # The weights as constants of the module (bound before the pipeline): the
    # call takes x alone, and fold-constants computes what depends on them once.
    names = [p.name for p in mod["main"].params]
    bound = graph.bind_params(mod, dict(zip(names[1:], args[1:])), "main")
    planned = tessel.transform.parse_pipeline(CONSTANTS.format(t=target))(bound)
    f = tessel.build(planned, target=target)["main"]
    results["constants"] = f(args[0])
    row["constants_ms"] = round(median_ms(f, nd_args[:1], repeat), 3)
    np.testing.assert_allclose(results["constants"], results["tessel"], rtol=2e-3, atol=2e-4)
    np.testing.assert_allclose(results["tessel"], results["unfused"], rtol=2e-3, atol=2e-4)
    if want is not None:
        np.testing.assert_allclose(results["tessel"], want, rtol=2e-3, atol=2e-4)
    row["torch_ms"] = None
    if torch is not None:
        torch.set_num_threads(threads)
        run, _ = torch_fn(torch)
        with torch.no_grad():
            np.testing.assert_allclose(run().numpy(), results["tessel"], rtol=2e-3, atol=2e-3)
            row["torch_ms"] = round(median_ms(run, (), repeat), 3)
        row["ratio_vs_torch"] = round(row["torch_ms"] / row["tessel_ms"], 3)
    row["fused_speedup"] = round(row["unfused_ms"] / row["tessel_ms"], 3)
    print(json.dumps(row), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--small", action="store_true", help="tiny shapes (a quick check)")
    ap.add_argument("--describe", action="store_true",
                    help="print each model's launch sequence (first thread count)")
    a = ap.parse_args()
    try:
        import torch
    except ImportError:
        torch = None
        print("# python3-torch is not installed: torch_ms is null", file=sys.stderr)
    if a.small:
        models = [("bert_ffn_8x16x32", lambda: ffn(8, 16, 32)),
                  ("encoder_block_s8_d16_h2_f32", lambda: encoder(8, 16, 2, 32))]
    else:
        models = [("bert_ffn_128x768x3072", lambda: ffn(128, 768, 3072)),
                  ("encoder_block_s128_d768_h12_f3072", lambda: encoder(128, 768, 12, 3072))]
    for i, threads in enumerate(int(t) for t in a.threads.split(",")):
        for name, make in models:
            try:
                bench(name, make, threads, a.repeat, torch, a.describe and i == 0)
            except ImportError as e:
                print(f"# {name}: skipped ({e})", file=sys.stderr)


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "2")
    main()
