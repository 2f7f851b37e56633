"""Running compiled tessel functions: modules, calls, timing, libraries.

A :class:`Module` holds compiled functions, from :func:`build` (compiled in
this process) or :func:`load_library` (an exported ``.so``). Index it by
function name and call the result::

    ex = tessel.build(mod, target="llvm")         # lower, compile, load
    ex["matmul"](a, b, c)                         # numpy arrays; c is written in place
    ex.export_library("kernels.so")               # + kernels.h
    lib = tessel.load_library("kernels.so")
    lib["vector_add"](a, b, c, len(a))            # c is written in place
    t = lib.time_evaluator("vector_add", number=100, repeat=5)(a, b, c, len(a))
    t.median, t.results                           # seconds per call

**Arguments**, one per parameter, in order:

* a :class:`tessel.nd.NDArray` (or any DLPack tensor): passed as it is, never
  copied. It must be dense row-major and 64-byte aligned (tessel's own arrays
  are); otherwise the call raises.
* a numpy array with the parameter's exact dtype and shape. When it is
  C-contiguous, 64-byte aligned and writeable, the kernel works on its memory
  directly. Any other array (a slice, a transpose, numpy's ordinary 16-byte
  alignment, a read-only array) is copied into an aligned array for the call
  and, when writeable, copied back afterwards: results always land in the
  caller's array, at the price of two copies. Use NDArrays where that matters.
* a Python or numpy number for a scalar parameter, converted to its dtype
  (an int that does not fit, a float for an integer parameter or a non-bool
  for a bool raises).

Buffers given to one call must not overlap (compiled code assumes they do not,
like C's ``restrict``); nothing checks it.

Arguments are all checked before anything runs: a wrong count, type, dtype,
rank, shape, or extents that disagree raise :class:`tessel.ArgumentError` whose
message names the function, the argument and what was expected; a kernel that
fails raises :class:`tessel.RuntimeError`. Compiled code runs without the GIL,
so other Python threads go on meanwhile.
"""

from __future__ import annotations

import os
import statistics
from typing import Any, Callable, List, Optional, Sequence

from . import _core
from .errors import ArgumentError, BuildError

__all__ = [
    "build", "Module", "Function", "GraphFunction", "GraphProfile", "BenchmarkResult",
    "load_library", "export_object",
    "set_num_threads", "get_num_threads", "clear_jit_cache", "set_jit_cache_limit",
    "jit_cache_info",
]


class BenchmarkResult:
    """What a time evaluator measured: ``results`` holds one figure per repeat,
    each the mean time of ``number`` back-to-back calls, in seconds."""

    def __init__(self, results: Sequence[float], number: int, total_calls: int):
        self.results: List[float] = list(results)
        self.number = number
        self.total_calls = total_calls

    @property
    def mean(self) -> float:
        """The mean of the per-repeat figures, in seconds per call."""
        return statistics.fmean(self.results)

    @property
    def median(self) -> float:
        """The median of the per-repeat figures, in seconds per call."""
        return statistics.median(self.results)

    @property
    def min(self) -> float:
        """The fastest repeat, in seconds per call."""
        return min(self.results)

    @property
    def max(self) -> float:
        """The slowest repeat, in seconds per call."""
        return max(self.results)

    @property
    def std(self) -> float:
        """The standard deviation of the per-repeat figures (0 for one repeat)."""
        return statistics.pstdev(self.results)

    def __repr__(self) -> str:
        return (f"BenchmarkResult(median={self.median:.3e} s, mean={self.mean:.3e} s, "
                f"repeat={len(self.results)}, number={self.number})")


class Function:
    """One compiled function of a :class:`Module`; call it with the arguments
    described in :mod:`tessel.runtime`. Returns None: results are written into
    the output arrays."""

    def __init__(self, module: "Module", name: str):
        self._module = module
        self.name = name

    @property
    def signature(self) -> str:
        """The parameters as text, e.g. ``vector_add(A: f32[n], B: f32[n], n: i32)``."""
        return self._module._core.signature(self.name)

    def __call__(self, *args: Any) -> None:
        # A target's -num-threads is the compiled module's own, per call: the
        # process-wide set_num_threads is never touched.
        self._module._core.call(self.name, args)

    def __repr__(self) -> str:
        return f"<tessel.runtime.Function {self.signature}>"


class GraphFunction:
    """A graph function of a built :class:`Module`: a whole model on its compiled
    kernels. Call it with one array per input (as function arguments are passed,
    read-only); it returns the result as a new numpy array, or a tuple of them when
    the function has several.

    The storage its intermediates share (``plan-memory``) is allocated on the
    first call and kept from call to call. Every binding must be a ``call_tir``
    (run ``legalize`` before building).

    Parameters bound as constants (``tessel.build(mod, params={"w1": ...})``,
    e.g. the weights :func:`tessel.frontend.from_onnx` returns) are part of the
    module and left out of the call: ``ex["main"](x)``."""

    def __init__(self, module: "Module", name: str, core: Any):
        self._module = module
        self.name = name
        self._core = core
        self.input_names = list(core.param_names)

    @property
    def signature(self) -> str:
        """The inputs as text, e.g. ``main(x: f32[n, 768], w: f32[768, 3072])``."""
        return self._core.signature

    @property
    def result_names(self) -> List[str]:
        """The names of the values the function returns, in order."""
        return self._core.result_names

    def __call__(self, *args: Any) -> Any:
        results = self._core.run(args)
        return results[0] if len(results) == 1 else tuple(results)

    def describe(self) -> str:
        """The launch sequence: each kernel in order with the values it reads and
        writes and the storage each got (sizes from the last call)."""
        return self._core.describe()

    def profile(self, *args: Any, repeat: int = 10) -> "GraphProfile":
        """Calls the function ``repeat`` times on ``args`` (after one warm-up call)
        and times every kernel: a :class:`GraphProfile` of each kernel's median
        wall time, in launch order. ``print(f.profile(x))`` shows where a model's
        time goes."""
        if not isinstance(repeat, int) or repeat < 1:
            raise ArgumentError(f"profile: repeat must be a positive int, got {repeat!r}")
        self._core.run(args)
        runs = [self._core.run_profiled(args)[1] for _ in range(repeat)]
        return GraphProfile(self.name, self._core.kernel_names,
                            [statistics.median(r[k] for r in runs) for k in range(len(runs[0]))])

    @property
    def planned_bytes(self) -> int:
        """Bytes of intermediate storage the last call used (0 before a call)."""
        return self._core.planned_bytes

    @property
    def unplanned_bytes(self) -> int:
        """What one allocation per intermediate would take for the last call's shapes."""
        return self._core.unplanned_bytes

    def __repr__(self) -> str:
        return f"<tessel.runtime.GraphFunction {self.signature}>"


class GraphProfile:
    """Each kernel's median wall time over the calls of :meth:`GraphFunction.profile`:
    ``rows`` holds (index, kernel, milliseconds) in launch order, ``total_ms`` their
    sum. str() is a table with each kernel's share of the total::

        graph ffn: 2 kernels, 9.81 ms
           #  kernel                       ms  share
           0  fused_matmul_add_gelu      5.02  51.2%
           1  fused_matmul_add           4.79  48.8%
    """

    def __init__(self, name: str, kernels: Sequence[str], seconds: Sequence[float]):
        self.name = name
        self.rows = [(i, k, s * 1e3) for i, (k, s) in enumerate(zip(kernels, seconds))]
        self.total_ms = sum(ms for _, _, ms in self.rows)

    def __str__(self) -> str:
        width = max([len("kernel")] + [len(k) for _, k, _ in self.rows])
        lines = [f"graph {self.name}: {len(self.rows)} kernels, {self.total_ms:.3f} ms",
                 f"{'#':>4}  {'kernel':<{width}}  {'ms':>8}  share"]
        for i, k, ms in self.rows:
            share = ms / self.total_ms * 100 if self.total_ms > 0 else 0.0
            lines.append(f"{i:>4}  {k:<{width}}  {ms:>8.3f}  {share:5.1f}%")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<tessel.runtime.GraphProfile {self.name}: {len(self.rows)} kernels, {self.total_ms:.3f} ms>"


class Module:
    """Compiled functions, looked up by name: ``mod["matmul"](a, b, c)``; a graph
    function of the module runs a whole model: ``y = mod["main"](x, w)``.

    Made by :func:`tessel.build` or :func:`load_library`; not constructed
    directly. The compiled code stays loaded while the Module (or a Function
    taken from it) lives."""

    def __init__(self, core: Any, ir_module: Any = None, target: Optional[str] = None):
        self._core = core
        self._ir_module = ir_module
        self._target = target
        self._graphs: dict = {}

    def _graph_names(self) -> List[str]:
        if self._ir_module is None:  # A loaded library: the graphs it was exported with.
            return self._core.graph_names()
        return [name for name, _ in self._ir_module.graph_functions]

    @property
    def function_names(self) -> List[str]:
        """The names of the functions (graph functions first), in the module's order."""
        return self._graph_names() + self._core.function_names()

    @property
    def library_path(self) -> str:
        """The file the module was loaded from ('' for code compiled in-process)."""
        return self._core.library_path

    @property
    def target(self) -> Optional[str]:
        """The target string the module was built for (None for a loaded library)."""
        return self._target

    def __getitem__(self, name: str) -> Any:
        if not isinstance(name, str):
            raise ArgumentError(f"functions are looked up by name (a str), got {name!r}")
        if name in self._graph_names():
            if name not in self._graphs:
                core = (_core.library_graph_executor(self._core, name) if self._ir_module is None
                        else _core.graph_executor(self._ir_module, name, self._core))
                self._graphs[name] = GraphFunction(self, name, core)
            return self._graphs[name]
        self._core.signature(name)  # Raises ArgumentError listing the names there are.
        return Function(self, name)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self.function_names

    def get_function(self, name: str) -> Function:
        """``self[name]``: the function called ``name``; raises
        :class:`tessel.ArgumentError` listing the names there are."""
        return self[name]

    def time_evaluator(self, name: str, number: int = 1, repeat: int = 1,
                       min_repeat_ms: float = 0, flush_cache: bool = False,
                       warmup: int = 1) -> Callable[..., BenchmarkResult]:
        """A callable that times function ``name`` on the arguments it is given
        and returns a :class:`BenchmarkResult`.

        After ``warmup`` untimed calls, each of ``repeat`` measurements times
        ``number`` back-to-back calls and records their mean. With
        ``min_repeat_ms``, ``number`` grows until a measurement lasts at least
        that long, and every repeat then uses the grown count. ``flush_cache``
        evicts the caches (writes a buffer larger than the last-level cache)
        before each measurement. Arguments are checked once, as for a call;
        numpy arrays that need staging are copied once, outside the timing.
        """
        self[name]
        options = dict(number=number, repeat=repeat, min_repeat_ms=min_repeat_ms,
                       flush_cache=flush_cache, warmup=warmup)
        for key in ("number", "repeat", "warmup"):
            if isinstance(options[key], bool) or not isinstance(options[key], int):
                raise ArgumentError(f"time_evaluator: {key} is an int, got {options[key]!r}")
        if isinstance(min_repeat_ms, bool) or not isinstance(min_repeat_ms, (int, float)):
            raise ArgumentError(f"time_evaluator: min_repeat_ms is a number, got {min_repeat_ms!r}")

        def evaluate(*args: Any) -> BenchmarkResult:
            results, calls_per_repeat, total = self._core.time(
                name, args, number, repeat, float(min_repeat_ms), bool(flush_cache), warmup)
            return BenchmarkResult(results, calls_per_repeat, total)

        evaluate.__doc__ = f"Times {name}; returns a BenchmarkResult."
        return evaluate

    @property
    def lowered(self) -> Any:
        """The lowered IRModule that was compiled (None for a loaded library)."""
        return self._ir_module

    def source(self, stage: str = "llvm") -> str:
        """The compiled code as text at ``stage``: ``"mlir"`` (as translated),
        ``"mlir-llvm"`` (the LLVM dialect), ``"llvm"`` (LLVM IR after O3) or
        ``"asm"`` (assembly for the target). Not available for a loaded library."""
        if self._ir_module is None:
            raise BuildError(f"a module loaded from {self.library_path!r} has no source")
        return _core.emit(self._ir_module, self._target, stage)

    def export_library(self, path: str, header_path: Optional[str] = None,
                       bundle_runtime: bool = False) -> None:
        """Writes the module as a shared library at ``path`` and a C header next
        to it (``kernels.so`` -> ``kernels.h``, or ``header_path``). The library
        needs only libtessel_runtime (and libtessel_dispatch_runtime when it calls
        a library through dispatch), found beside it or where this process loaded
        libtessel_runtime from; with ``bundle_runtime=True`` copies of them are
        written beside it and it looks nowhere else, so the directory can be
        shipped as it is. :func:`load_library` reads it back, and C programs call
        it through the header. Raises :class:`tessel.BuildError` when compiling
        or linking fails."""
        if self._ir_module is None:
            raise BuildError(
                f"this module was loaded from {self.library_path!r}, which is already a "
                "library: copy that file (and its header) instead of exporting it")
        path = _path(path, "export_library")
        object_code = _core.emit_object(self._ir_module, self._target)
        export_object(self._ir_module, object_code, path, header_path, self._target,
                      bundle_runtime=bundle_runtime)

    def __repr__(self) -> str:
        where = self.library_path or f"target {self._target!r}"
        return f"<tessel.runtime.Module {', '.join(self.function_names)} ({where})>"


def _path(path: Any, what: str) -> str:
    if not isinstance(path, (str, os.PathLike)):
        raise ArgumentError(f"{what}: a path is a str or os.PathLike, got {path!r}")
    return os.fspath(path)


def build(mod: Any, target: str = "llvm", pipeline: Any = "lower",
          name: Optional[str] = None, params: Optional[dict] = None) -> Module:
    """Compiles the functions of ``mod`` (an IRModule, a :class:`tessel.Schedule`'s
    module, or a PrimFunc named ``name``, default ``"main"``) to machine code in this process and returns
    them as a :class:`Module`.

    ``target`` says for which CPU: ``"llvm"`` (this machine, all its
    features), ``"llvm -mcpu=skylake-avx512"``, ``"llvm -mcpu=x86-64
    -mattr=+avx2,+fma"``, ``"llvm -num-threads=4"`` (threads for the parallel
    loops of this module's calls; 0 means the runtime's setting). A ``cuda``
    target (``"cuda -arch=sm_90"``) compiles the thread-bound kernels to PTX and
    returns a :class:`tessel.cuda.CudaModule` instead (see :mod:`tessel.cuda`).

    ``pipeline`` first brings the module to the lowered form codegen takes:
    a pipeline string (default ``"lower"``; e.g. ``"simplify,lower"``), a pass,
    or None for a module that is lowered already. It runs inside the current
    :class:`tessel.transform.PassContext`. Compiling is cached by module and
    target, and runs without the GIL.

    Raises :class:`tessel.IRError` when the module does not verify (e.g. an
    access the verifier proves out of bounds), :class:`tessel.BuildError` for a bad target string (naming the
    word and what is accepted) or code that cannot be compiled (e.g. blocks
    left because ``pipeline=None`` was given for block IR), and
    :class:`tessel.PassError` when the pipeline fails.

    ``params`` binds parameters of the module's graph functions to arrays by
    name (the weights of a model): they become constants of the module
    (:func:`tessel.graph.bind_params`, after the pipeline), the graph functions
    then take only their other inputs, and an exported library carries them. A
    name no graph function has, an array of the wrong dtype or shape, or a
    parameter of symbolic shape raises :class:`tessel.ArgumentError`. To compute
    what depends on the weights alone once (``fold-constants``), bind them
    before the pipeline instead.
    """
    from . import _core as core, transform
    from ._core import IRModule, PrimFunc

    from .schedule import Schedule

    if isinstance(mod, Schedule):
        mod = mod.mod
    if isinstance(mod, PrimFunc):
        mod = IRModule({name or "main": mod})
    elif not isinstance(mod, IRModule):
        raise ArgumentError(
            f"build takes an IRModule, a Schedule or a PrimFunc, got {type(mod).__name__}")
    if not isinstance(target, str):
        raise ArgumentError(f"a target is a string such as 'llvm', got {target!r}")
    canonical = core.parse_target(target)[0]  # BuildError before any lowering work
    # Refused in the user's terms (block IR, N-D buffers) before lowering renames
    # things; codegen verifies the lowered module again.
    core.verify(mod, "main")
    if isinstance(pipeline, str):
        mod = transform.parse_pipeline(pipeline)(mod) if pipeline else mod
    elif pipeline is not None:
        if not callable(pipeline):
            raise ArgumentError(
                f"build: pipeline must be a str, a pass, a callable or None, got {pipeline!r}")
        mod = pipeline(mod)
        if not isinstance(mod, IRModule):
            raise ArgumentError(
                f"build: the pipeline returned {type(mod).__name__} {mod!r}, expected an IRModule")
    mod = _bind_params(mod, params)
    if canonical.startswith("cuda"):
        from . import cuda
        return cuda.build(mod, canonical)
    return Module(core.build(mod, canonical), mod, canonical)


def _bind_params(mod: Any, params: Optional[dict]) -> Any:
    """``mod`` with ``params`` bound as constants of the graph functions that take
    them (:func:`tessel.graph.bind_params`)."""
    if params is None:
        return mod
    if not isinstance(params, dict):
        raise ArgumentError(f"build: params is a dict of name -> array, got {type(params).__name__}")
    import numpy as np
    from . import nd
    arrays = {k: v.numpy() if isinstance(v, nd.NDArray) else np.asarray(v) for k, v in params.items()}
    takers: dict = {}
    for gname, g in mod.graph_functions:
        for p in g.params:
            takers.setdefault(p.name, []).append(gname)
    for key in arrays:
        if key not in takers:
            raise ArgumentError(f"build: params names '{key}', which no graph function takes "
                                f"(parameters: {', '.join(sorted(takers)) or 'none'})")
    for gname, _ in mod.graph_functions:
        mine = {k: a for k, a in arrays.items() if gname in takers[k]}
        if mine:
            mod = _core.bind_params(mod, gname, mine)
    return mod


def load_library(path: str) -> Any:
    """Opens a library written by :meth:`Module.export_library` (or by tessel's
    C++ export) and returns its functions as a :class:`Module`; a library
    exported from a cuda build (:meth:`tessel.cuda.CudaModule.export_library`)
    comes back as a :class:`tessel.cuda.CudaModule`. A bare file name means the
    file in the current directory.

    Raises :class:`tessel.RuntimeError` when the file cannot be opened, is not
    a tessel library, was made for another ABI version or lacks a function its
    metadata lists."""
    path = _path(path, "load_library")
    core = _core.load_library(path)
    gpu = _core.load_cuda_library(path)
    if gpu is not None:
        from . import cuda
        return cuda.CudaModule(gpu, None, None)
    return Module(core)


def export_object(mod: Any, object_code: bytes, path: str,
                  header_path: Optional[str] = None, target: Optional[str] = None,
                  bundle_runtime: bool = False) -> None:
    """Links compiled object code for the functions of IRModule ``mod`` into a
    library at ``path`` that :func:`load_library` opens, plus its C header.

    ``object_code`` is the bytes of a position-independent ELF object defining
    ``tessel_packed_<name>`` for every function (what tessel's codegen emits,
    or a hand-written kernel following ``tessel_runtime.h``); the signatures
    come from the PrimFuncs. ``target``, the target the code was compiled for,
    records its CPU features in the library, so that loading it on a CPU that
    lacks one refuses calls (instead of dying with SIGILL). ``bundle_runtime``
    is :meth:`Module.export_library`'s. Raises :class:`tessel.BuildError` when
    the signatures cannot be made or the link fails (the compiler's output is
    in the message)."""
    if not isinstance(mod, _core.IRModule):
        raise ArgumentError(f"export_object takes an IRModule, got {type(mod).__name__}")
    if not isinstance(object_code, (bytes, bytearray, memoryview)):
        raise ArgumentError(f"export_object: object_code is bytes, got {type(object_code).__name__}")
    _core.export_object(mod, bytes(object_code), _path(path, "export_object"),
                        "" if header_path is None else _path(header_path, "export_object"),
                        target or "", bool(bundle_runtime))


def clear_jit_cache() -> None:
    """Lets go of the compiled code :func:`build` caches. Modules still held
    (by a :class:`Module`) stay valid; building them again compiles anew."""
    _core.clear_jit_cache()


def set_jit_cache_limit(n: int) -> None:
    """How many compiled modules :func:`build`'s cache keeps alive, most
    recently used first (default 64, or ``TESSEL_JIT_CACHE_SIZE``; 0: none).
    A module held elsewhere is found again whatever the limit; code no one
    holds beyond the limit is freed."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise ArgumentError(f"set_jit_cache_limit takes an int, got {n!r}")
    _core.set_jit_cache_limit(n)


def jit_cache_info() -> dict:
    """``{"size": modules the cache keeps alive, "limit": its limit,
    "compiles": compilations so far in this process}``."""
    size, limit, compiles = _core.jit_cache_info()
    return {"size": size, "limit": limit, "compiles": compiles}


def set_num_threads(n: int) -> None:
    """Sets how many threads the parallel loops of compiled code use from now
    on; ``n <= 0`` restores the default (``TESSEL_NUM_THREADS`` or every core).
    At most 1024."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise ArgumentError(f"set_num_threads takes an int, got {n!r}")
    _core.set_num_threads(n)


def get_num_threads() -> int:
    """How many threads the parallel loops of compiled code use."""
    return _core.get_num_threads()
