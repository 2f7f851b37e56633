"""GPU modules: what :func:`tessel.build` returns for a ``cuda`` target.

The kernels of the lowered module are compiled to PTX (through MLIR's gpu and
nvvm dialects); a call runs them through the CUDA driver, which tessel loads at
run time::

    mod = tessel.transform.parse_pipeline('default-schedule{target="cuda -arch=sm_90"}')(mod)
    ex = tessel.build(mod, target="cuda -arch=sm_90")
    ex["matmul"](a, b, c)          # numpy arrays; c is written in place
    ex.ptx                         # the PTX text, for ptxas or a look
    ex.kernels("matmul")           # ['matmul_kernel0']
    ex.export_library("kernels.so")   # + kernels.h; tessel.load_library reads it back
    t = ex.time_evaluator("matmul", repeat=20)(a, b, c)    # t.median: seconds per run

A call takes the same arguments as a CPU call (numpy arrays, tessel.nd arrays,
numbers), checked the same way before anything reaches the device. Each buffer
is copied to the device, the function's kernels run in order (with device
workspaces for what passes between them), and every buffer the function may
write is copied back. Building needs no GPU; without a CUDA driver or device a
call raises :class:`tessel.RuntimeError` with one message saying so.

Device arrays (``tessel.nd.array(x, device="cuda")``, ``tessel.nd.empty(...,
device="cuda")``, or a CUDA tensor of another library through
``tessel.nd.from_dlpack``) skip the copies: the kernels read and write them in
place, so data stays on the GPU from one call to the next::

    a = tessel.nd.array(a_host, device="cuda")
    c = tessel.nd.empty((1024, 1024), device="cuda")
    ex["matmul"](a, a, c)          # nothing copied
    ex.time_evaluator("matmul")(a, a, c)   # times the kernels on those arrays

A call's buffers are all host arrays or all device arrays; a mix is refused
naming the argument (scalars are plain numbers either way).

Calls wait for their kernels. To overlap work, enqueue it on a stream instead
(device arrays only, kept alive until the stream is synchronized)::

    s = tessel.cuda.Stream()
    ex.enqueue("matmul", a, a, c, stream=s)    # returns at once
    s.synchronize()                            # a kernel's failure is raised here

A graph function (a whole model, legalized and scheduled for the GPU) runs on its
kernels with its intermediates in device storage that is kept from call to call;
bound parameters (``params=``) are uploaded on the first call. It takes host or
device arrays and returns numpy arrays, as on a CPU::

    mod = tessel.transform.parse_pipeline(
        'legalize,fuse-ops,fuse-tir,default-schedule{target="cuda -arch=sm_90"},plan-memory')(model)
    y = tessel.build(mod, target="cuda -arch=sm_90")["main"](x)
"""

from __future__ import annotations

from typing import Any, Callable, List, Optional

from . import _core
from .errors import ArgumentError, BuildError
from .runtime import BenchmarkResult, Function, GraphFunction


class CudaModule:
    """GPU functions, looked up by name: ``ex["matmul"](a, b, c)``. Made by
    :func:`tessel.build` with a ``cuda`` target."""

    def __init__(self, core: Any, ir_module: Any, target: Optional[str]):
        self._core = core
        self._ir_module = ir_module
        self._target = target
        self._graphs: dict = {}

    def _graph_names(self) -> List[str]:
        if self._ir_module is None:  # A loaded library carries no graph functions.
            return []
        return [name for name, _ in self._ir_module.graph_functions]

    @property
    def function_names(self) -> List[str]:
        """The names of the functions (graph functions first), in the module's order."""
        return self._graph_names() + self._core.function_names()

    @property
    def target(self) -> Optional[str]:
        """The target string it was built for (None when loaded from a library)."""
        return self._target

    @property
    def lowered(self) -> Any:
        """The lowered IRModule whose kernels were compiled."""
        return self._ir_module

    @property
    def ptx(self) -> str:
        """The PTX of every kernel of the module."""
        return self._core.ptx

    @property
    def manifest(self) -> str:
        """The launch manifest (JSON): per function its parameters, workspaces and
        kernels with their grid, block, shared memory and arguments."""
        return self._core.manifest

    def _not_a_graph(self, name: str, what: str) -> None:
        if isinstance(name, str) and name in self._graph_names():
            raise ArgumentError(f"{what}: '{name}' is a graph function; it takes the "
                                "functions of its call_tir bindings, by their names")

    def kernels(self, name: str) -> List[str]:
        """The kernels function ``name`` launches, in order."""
        self._not_a_graph(name, "kernels")
        return self._core.kernel_names(name)

    def __getitem__(self, name: str) -> Any:
        if not isinstance(name, str):
            raise ArgumentError(f"functions are looked up by name (a str), got {name!r}")
        if name in self._graph_names():
            if name not in self._graphs:
                core = _core.cuda_graph_executor(self._ir_module, name, self._core)
                self._graphs[name] = GraphFunction(self, name, core)
            return self._graphs[name]
        self._core.signature(name)  # Raises ArgumentError listing the names there are.
        return Function(self, name)  # Calls self._core.call, as a CPU module's do.

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self.function_names

    def enqueue(self, name: str, *args: Any, stream: Optional["Stream"] = None) -> None:
        """Enqueues function ``name``'s kernels on ``stream`` (None: the default
        stream) and returns without waiting for them. The buffers must be device
        arrays (host arrays raise :class:`tessel.ArgumentError`: they need the
        copies a call makes), kept alive and unchanged until
        ``stream.synchronize()``, where a kernel's failure is raised."""
        self._not_a_graph(name, "enqueue")
        if stream is not None and not isinstance(stream, Stream):
            raise ArgumentError(f"enqueue: stream is a tessel.cuda.Stream or None, got {stream!r}")
        self._core.enqueue(name, args, None if stream is None else stream._core)

    def time_evaluator(self, name: str, repeat: int = 10,
                       warmup: int = 1) -> Callable[..., BenchmarkResult]:
        """A callable that times function ``name`` on the arguments it is given:
        host arrays are copied to the device once (device arrays are used in
        place), then after ``warmup`` untimed runs each
        of ``repeat`` runs of all its kernels is timed with CUDA events. Returns a
        :class:`tessel.runtime.BenchmarkResult` in seconds per run (a graph
        function's kernels are timed with its ``profile``)."""
        self._not_a_graph(name, "time_evaluator")
        self[name]
        for key, value in (("repeat", repeat), ("warmup", warmup)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise ArgumentError(f"time_evaluator: {key} is an int, got {value!r}")

        def evaluate(*args: Any) -> BenchmarkResult:
            ms = self._core.time_ms(name, args, warmup, repeat)
            return BenchmarkResult([m / 1e3 for m in ms], 1, len(ms))

        return evaluate

    def export_library(self, path: str, header_path: Optional[str] = None,
                       bundle_runtime: bool = False) -> None:
        """Writes the module as a shared library at ``path`` carrying its PTX and
        launch manifest, and a C header beside it (``kernels.so`` -> ``kernels.h``)
        whose ``<prefix>_<function>(program, ...)`` calls a function from C through
        ``tessel_cuda_program_load`` / ``tessel_cuda_program_call``
        (``tessel_cuda.h``). :func:`tessel.load_library` reads it back as a
        CudaModule. ``bundle_runtime`` is :meth:`tessel.runtime.Module.export_library`'s.
        Raises :class:`tessel.BuildError` when linking fails."""
        from .runtime import _path
        if self._graph_names():
            raise BuildError("export_library: graph functions of a cuda module are not exported "
                             f"yet ({', '.join(self._graph_names())}); export its kernels from a "
                             "module without them")
        self._core.export_library(_path(path, "export_library"),
                                  "" if header_path is None else _path(header_path, "export_library"),
                                  bool(bundle_runtime))

    def __repr__(self) -> str:
        return f"<tessel.cuda.CudaModule {self._target!r}: {', '.join(self.function_names)}>"


class Stream:
    """A CUDA stream: work enqueued on it (:meth:`CudaModule.enqueue`) runs in order
    and asynchronously to the host and to other streams. Creating one needs a CUDA
    driver and device (:class:`tessel.RuntimeError` otherwise)."""

    def __init__(self) -> None:
        self._core = _core.CudaStream()

    def synchronize(self) -> None:
        """Waits for the work enqueued so far; raises :class:`tessel.RuntimeError`
        when a kernel of it failed."""
        self._core.synchronize()


def build(mod: Any, target: str) -> CudaModule:
    """The kernels of the lowered ``mod`` for the cuda ``target`` (canonical)."""
    return CudaModule(_core.build_cuda(mod, target), mod, target)
