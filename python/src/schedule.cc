// The Schedule for Python: every primitive under its trace name with the
// trace's keyword names, so that a printed trace is a Python program that runs
// against tessel.Schedule.
//
//   >>> sch = tessel.Schedule(mod)
//   >>> b0 = sch.get_block(name="C")
//   >>> l1, l2, l3 = sch.get_loops(block=b0)
//   >>> l4, l5 = sch.split(loop=l1, factors=[None, 32])
//   >>> sch.parallel(loop=l4)
//   >>> print(sch.trace)             # the same lines, replayable with exec or apply_to_schedule
//   >>> sch.mod                      # the scheduled module
//
// A primitive that fails raises ScheduleError with the C++ message (the call,
// the rule, the function with the offending loop or block marked) and leaves
// the schedule exactly as it was.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/schedule/schedule.h"
#include "ir/schedule/schedule_registry.h"
#include "ir/schedule/tensor_intrin.h"
#include "ir/schedule/trace.h"
#include "python/src/common.h"

namespace tessel::python {

namespace {

namespace sch = ir::schedule;

template <typename Handle>
std::string HandleName(const Handle& h, char kind) {
  return sch::RV{kind, h.id}.Name();
}

using BlockOrLoop = std::variant<sch::BlockRV, sch::LoopRV>;

sch::Schedule CreateSchedule(py::object target, py::object func_name, uint64_t seed) {
  ir::IRModule mod;
  if (py::isinstance<ir::PrimFuncNode>(target)) {
    mod = ir::MakeIRModule({{"main", target.cast<ir::PrimFunc>()}});
  } else if (py::isinstance<ir::IRModuleNode>(target)) {
    mod = target.cast<ir::IRModule>();
  } else {
    Throw(ErrorKind::kArgument, absl::StrCat("a Schedule works on an IRModule or a PrimFunc, got ",
                                             py::repr(target).cast<std::string>()));
  }
  std::string name = func_name.is_none() ? "" : CastArg<std::string>(func_name, "func_name is a str");
  return Unwrap(sch::Schedule::Create(mod, name, seed), ErrorKind::kSchedule);
}

std::vector<sch::Factor> FactorsFromPy(py::handle factors) {
  std::vector<sch::Factor> out;
  if (!py::isinstance<py::list>(factors) && !py::isinstance<py::tuple>(factors)) {
    Throw(ErrorKind::kArgument, absl::StrCat("factors are a list of ints, None and sampled values, got ",
                                             py::repr(factors).cast<std::string>()));
  }
  for (py::handle f : factors) {
    if (f.is_none()) {
      out.emplace_back(std::nullopt);
    } else if (py::isinstance<sch::ExprRV>(f)) {
      out.emplace_back(f.cast<sch::ExprRV>());
    } else if (py::isinstance<py::int_>(f) && !py::isinstance<py::bool_>(f)) {
      out.emplace_back(CastArg<int64_t>(f, "a factor fits in 64 bits"));
    } else {
      Throw(ErrorKind::kArgument, absl::StrCat("a factor is an int, None or a sampled value, got ",
                                               py::repr(f).cast<std::string>()));
    }
  }
  return out;
}

// Loops given one by one (as traces print them) or as one list.
std::vector<sch::LoopRV> LoopsFromPy(py::handle loops) {
  py::sequence seq = py::reinterpret_borrow<py::sequence>(loops);
  if (py::len(seq) == 1 && (py::isinstance<py::list>(seq[0]) || py::isinstance<py::tuple>(seq[0]))) {
    return LoopsFromPy(seq[0]);
  }
  std::vector<sch::LoopRV> out;
  for (py::handle l : seq) out.push_back(CastArg<sch::LoopRV>(l, "expected a loop handle"));
  return out;
}

py::tuple Tuple(const std::vector<sch::LoopRV>& v) { return py::cast(v); }

sch::Trace TraceFromJson(const std::string& text) {
  return Unwrap(sch::Trace::FromJson(text), ErrorKind::kSchedule);
}

sch::TraceValue DecisionFromPy(py::handle h) {
  if (h.is_none()) return sch::TraceValue();
  if (py::isinstance<py::int_>(h) && !py::isinstance<py::bool_>(h)) return h.cast<int64_t>();
  if (py::isinstance<py::list>(h) || py::isinstance<py::tuple>(h)) {
    sch::TraceValue::List items;
    for (py::handle i : h) items.push_back(DecisionFromPy(i));
    return items;
  }
  Throw(ErrorKind::kArgument, absl::StrCat("a decision is an int or a list of ints, got ",
                                           py::repr(h).cast<std::string>()));
}

}  // namespace

void BindSchedule(py::module_& m) {
  py::class_<sch::BlockRV>(m, "BlockRV", "A handle on a block of a schedule (printed b<id>).")
      .def_readonly("id", &sch::BlockRV::id, "The handle's number in its schedule.")
      .def("__repr__", [](const sch::BlockRV& h) { return HandleName(h, 'b'); })
      .def("__eq__", [](const sch::BlockRV& a, const sch::BlockRV& b) { return a.id == b.id; },
           py::is_operator())
      .def("__hash__", [](const sch::BlockRV& h) { return std::hash<int64_t>()(h.id); });
  py::class_<sch::LoopRV>(m, "LoopRV", "A handle on a loop of a schedule (printed l<id>).")
      .def_readonly("id", &sch::LoopRV::id, "The handle's number in its schedule.")
      .def("__repr__", [](const sch::LoopRV& h) { return HandleName(h, 'l'); })
      .def("__eq__", [](const sch::LoopRV& a, const sch::LoopRV& b) { return a.id == b.id; },
           py::is_operator())
      .def("__hash__", [](const sch::LoopRV& h) { return std::hash<int64_t>()(h.id); });
  py::class_<sch::ExprRV>(m, "ExprRV", "A sampled value of a schedule (printed v<id>).")
      .def_readonly("id", &sch::ExprRV::id, "The handle's number in its schedule.")
      .def("__repr__", [](const sch::ExprRV& h) { return HandleName(h, 'v'); })
      .def("__eq__", [](const sch::ExprRV& a, const sch::ExprRV& b) { return a.id == b.id; },
           py::is_operator())
      .def("__hash__", [](const sch::ExprRV& h) { return std::hash<int64_t>()(h.id); });

  py::class_<sch::Trace>(m, "Trace",
                         "The instructions that produced a schedule: prints as Python, "
                         "serialises to versioned JSON, replays onto equal functions.")
      .def("as_python", &sch::Trace::AsPython, "One Python line per instruction.")
      .def("__str__", &sch::Trace::AsPython)
      .def("__repr__", [](const sch::Trace& t) {
        return absl::StrCat("<tessel.Trace with ", t.instructions().size(), " instructions>");
      })
      .def("__len__", [](const sch::Trace& t) { return t.instructions().size(); })
      .def_property_readonly(
          "instructions",
          [](const sch::Trace& t) {
            std::vector<std::string> lines;
            for (const sch::Instruction& i : t.instructions()) lines.push_back(i.ToPython());
            return lines;
          },
          "Each instruction as its Python line.")
      .def("as_json", [](const sch::Trace& t) { return Unwrap(t.ToJson(), ErrorKind::kSchedule); },
           "The trace as versioned JSON text (tessel-trace format).")
      .def_static("from_json", &TraceFromJson, py::arg("text"),
                  "Reads JSON written by as_json (checking format, version and handles).")
      .def(
          "with_decision",
          [](const sch::Trace& t, size_t index, py::object decision) {
            return Unwrap(t.WithDecision(index, DecisionFromPy(decision)), ErrorKind::kSchedule);
          },
          py::arg("index"), py::arg("decision"),
          "A copy with the sampling instruction `index` given another decision.")
      .def("simplified", &sch::Trace::Simplified,
           "Without the queries and samples whose outputs nothing uses.")
      .def(
          "apply_to_schedule",
          [](const sch::Trace& t, sch::Schedule& s) {
            Check(t.ApplyToSchedule(&s), ErrorKind::kSchedule);
          },
          py::arg("sch"),
          "Replays every instruction onto `sch` (its current function); on failure `sch` is "
          "unchanged.");

  py::class_<sch::Schedule>(m, "Schedule",
                            "Transforms the loops of a module's functions by primitives, "
                            "recording a replayable trace. Primitives take and return handles.")
      .def(py::init(&CreateSchedule), py::arg("mod"), py::arg("func_name") = py::none(),
           py::arg("seed") = 1,
           "Verifies `mod` (an IRModule, or a PrimFunc taken as 'main') and works on "
           "`func_name` (default: the first function); `seed` drives sampling.")
      .def_property_readonly("mod", &sch::Schedule::mod, "The scheduled module.")
      .def_property_readonly("func", &sch::Schedule::func, "The function being scheduled.")
      .def_property_readonly("func_name", &sch::Schedule::func_name,
                             "The name of the function being scheduled.")
      .def_property_readonly("trace", &sch::Schedule::trace,
                             "A copy of the current function's trace.")
      .def("copy", [](const sch::Schedule& s) { return s; },
           "An independent copy (module, handles, traces, random state).")
      .def(
          "work_on",
          [](sch::Schedule& s, const std::string& name) {
            Check(s.WorkOn(name), ErrorKind::kSchedule);
          },
          py::arg("func_name"), "Switches to another function; handles are per function.")
      .def(
          "get_block",
          [](sch::Schedule& s, const std::string& name) {
            return Unwrap(s.GetBlock(name), ErrorKind::kSchedule);
          },
          py::arg("name"), "The block named `name`.")
      .def(
          "get_loops",
          [](sch::Schedule& s, sch::BlockRV block) {
            return Tuple(Unwrap(s.GetLoops(block), ErrorKind::kSchedule));
          },
          py::arg("block"), "The loops above `block`, outermost first.")
      .def(
          "get_child_blocks",
          [](sch::Schedule& s, BlockOrLoop x) {
            return std::visit([&](auto h) { return Unwrap(s.GetChildBlocks(h), ErrorKind::kSchedule); }, x);
          },
          py::arg("block_or_loop"), "The blocks directly below a block or loop.")
      .def(
          "get_producers",
          [](sch::Schedule& s, sch::BlockRV b) { return Unwrap(s.GetProducers(b), ErrorKind::kSchedule); },
          py::arg("block"), "Earlier blocks of the same scope writing what `block` reads.")
      .def(
          "get_consumers",
          [](sch::Schedule& s, sch::BlockRV b) { return Unwrap(s.GetConsumers(b), ErrorKind::kSchedule); },
          py::arg("block"), "Later blocks of the same scope reading what `block` writes.")
      .def(
          "get",
          [](const sch::Schedule& s, py::object h) -> py::object {
            if (py::isinstance<sch::BlockRV>(h)) {
              return py::cast(ir::Stmt(Unwrap(s.Get(h.cast<sch::BlockRV>()), ErrorKind::kSchedule)));
            }
            if (py::isinstance<sch::LoopRV>(h)) {
              return py::cast(ir::Stmt(Unwrap(s.Get(h.cast<sch::LoopRV>()), ErrorKind::kSchedule)));
            }
            return py::int_(Unwrap(s.Get(CastArg<sch::ExprRV>(h, "get takes a handle")),
                                   ErrorKind::kSchedule));
          },
          py::arg("rv"), "What a handle names now: the block or loop (a Stmt), or the sampled int.")
      .def(
          "split",
          [](sch::Schedule& s, sch::LoopRV loop, py::object factors) {
            return Tuple(Unwrap(s.Split(loop, FactorsFromPy(factors)), ErrorKind::kSchedule));
          },
          py::arg("loop"), py::arg("factors"),
          "Splits `loop` by `factors` (ints, at most one None, sampled values); returns the new "
          "loops, outermost first.")
      .def(
          "fuse",
          [](sch::Schedule& s, py::args loops) {
            return Unwrap(s.Fuse(LoopsFromPy(loops)), ErrorKind::kSchedule);
          },
          "Fuses a perfect nest of loops (outermost first) into one loop.")
      .def(
          "reorder",
          [](sch::Schedule& s, py::args loops) {
            Check(s.Reorder(LoopsFromPy(loops)), ErrorKind::kSchedule);
          },
          "Puts the given loops in the given order, in the positions they occupy.")
      .def(
          "tile",
          [](sch::Schedule& s, py::object loops, py::list factors) {
            std::vector<std::vector<sch::Factor>> fs;
            for (py::handle f : factors) fs.push_back(FactorsFromPy(f));
            return Tuple(Unwrap(s.Tile(LoopsFromPy(loops), fs), ErrorKind::kSchedule));
          },
          py::arg("loops"), py::arg("factors"),
          "Splits each loop of a perfect nest by its factor list and orders the pieces level by "
          "level (traced as splits and a reorder).")
      .def(
          "parallel",
          [](sch::Schedule& s, sch::LoopRV l) { Check(s.Parallel(l), ErrorKind::kSchedule); },
          py::arg("loop"), "Marks `loop` parallel (its iterations must be independent).")
      .def(
          "vectorize",
          [](sch::Schedule& s, sch::LoopRV l) { Check(s.Vectorize(l), ErrorKind::kSchedule); },
          py::arg("loop"), "Marks `loop` vectorized.")
      .def(
          "unroll", [](sch::Schedule& s, sch::LoopRV l) { Check(s.Unroll(l), ErrorKind::kSchedule); },
          py::arg("loop"), "Marks `loop` unrolled.")
      .def(
          "bind",
          [](sch::Schedule& s, sch::LoopRV l, const std::string& axis) {
            Check(s.Bind(l, axis), ErrorKind::kSchedule);
          },
          py::arg("loop"), py::arg("thread_axis"),
          "Binds `loop` to a GPU axis: blockIdx.x/y/z, threadIdx.x/y/z, vthread(.x/y/z).")
      .def(
          "annotate",
          [](sch::Schedule& s, BlockOrLoop x, const std::string& key, py::object value) {
            Check(std::visit(
                      [&](auto h) {
                        if (py::isinstance<sch::ExprRV>(value)) {
                          return s.Annotate(h, key, value.cast<sch::ExprRV>());
                        }
                        return s.Annotate(h, key, AttrFromPy(value));
                      },
                      x),
                  ErrorKind::kSchedule);
          },
          py::arg("block_or_loop"), py::arg("ann_key"), py::arg("ann_val"),
          "Sets annotation `ann_key` (an int, float, bool, str, list of them, or a sampled value).")
      .def(
          "unannotate",
          [](sch::Schedule& s, BlockOrLoop x, const std::string& key) {
            Check(std::visit([&](auto h) { return s.Unannotate(h, key); }, x), ErrorKind::kSchedule);
          },
          py::arg("block_or_loop"), py::arg("ann_key"), "Removes annotation `ann_key`.")
      .def(
          "add_unit_loop",
          [](sch::Schedule& s, BlockOrLoop x) {
            return std::visit([&](auto h) { return Unwrap(s.AddUnitLoop(h), ErrorKind::kSchedule); }, x);
          },
          py::arg("block_or_loop"), "Wraps a block or loop in a new loop of extent 1.")
      // Caching and reductions (ir/schedule/cache_read_write.h, decompose_reduction.h, ...).
      .def(
          "cache_read",
          [](sch::Schedule& s, sch::BlockRV b, int64_t read_buffer_index,
             const std::string& storage_scope) {
            return Unwrap(s.CacheRead(b, read_buffer_index, storage_scope), ErrorKind::kSchedule);
          },
          py::arg("block"), py::arg("read_buffer_index"), py::arg("storage_scope"),
          "Copies the region the readers need of the block's read buffer `read_buffer_index` into "
          "a new buffer of `storage_scope` before them; returns the copy block.")
      .def(
          "cache_write",
          [](sch::Schedule& s, sch::BlockRV b, int64_t write_buffer_index,
             const std::string& storage_scope) {
            return Unwrap(s.CacheWrite(b, write_buffer_index, storage_scope), ErrorKind::kSchedule);
          },
          py::arg("block"), py::arg("write_buffer_index"), py::arg("storage_scope"),
          "Makes the block write a new buffer of `storage_scope` and copies it back after; "
          "returns the copy block.")
      .def(
          "decompose_reduction",
          [](sch::Schedule& s, sch::BlockRV b, sch::LoopRV l) {
            return Unwrap(s.DecomposeReduction(b, l), ErrorKind::kSchedule);
          },
          py::arg("block"), py::arg("loop"),
          "Moves the reduction block's init into its own block before `loop`; returns it.")
      .def(
          "reindex",
          [](sch::Schedule& s, sch::BlockRV b, int64_t buffer_index, bool is_write) {
            return Unwrap(s.Reindex(b, buffer_index, is_write), ErrorKind::kSchedule);
          },
          py::arg("block"), py::arg("buffer_index"), py::arg("is_write"),
          "Stages the block's read (or write) buffer `buffer_index` through a new buffer "
          "indexed by the block's iter vars; returns the copy block.")
      .def(
          "rfactor",
          [](sch::Schedule& s, sch::LoopRV l, int64_t factor_axis) {
            return Unwrap(s.RFactor(l, factor_axis), ErrorKind::kSchedule);
          },
          py::arg("loop"), py::arg("factor_axis"),
          "Splits the reduction over `loop` into partial results kept apart in a new buffer "
          "(its dimension `factor_axis`) and a write-back block; returns the rfactor block.")
      .def(
          "set_scope",
          [](sch::Schedule& s, sch::BlockRV b, int64_t buffer_index,
             const std::string& storage_scope) {
            Check(s.SetScope(b, buffer_index, storage_scope), ErrorKind::kSchedule);
          },
          py::arg("block"), py::arg("buffer_index"), py::arg("storage_scope"),
          "Moves the block's write buffer `buffer_index` (allocated in the function) into "
          "`storage_scope`.")
      .def(
          "storage_align",
          [](sch::Schedule& s, sch::BlockRV b, int64_t buffer_index, int64_t axis,
             int64_t factor, int64_t offset) {
            Check(s.StorageAlign(b, buffer_index, axis, factor, offset), ErrorKind::kSchedule);
          },
          py::arg("block"), py::arg("buffer_index"), py::arg("axis"), py::arg("factor"),
          py::arg("offset"),
          "Records that the stride of dimension `axis` of the block's write buffer "
          "`buffer_index` be padded to factor * k + offset elements when flattened.")
      .def(
          "blockize",
          [](sch::Schedule& s, sch::LoopRV l) { return Unwrap(s.Blockize(l), ErrorKind::kSchedule); },
          py::arg("loop"),
          "Turns the subtree under `loop` into a new block whose iter vars are the outer parts "
          "of the bindings of the block below; returns the new block.")
      .def(
          "tensorize",
          [](sch::Schedule& s, BlockOrLoop x, const std::string& intrin_name) {
            Check(std::visit([&](auto h) { return s.Tensorize(h, intrin_name); }, x),
                  ErrorKind::kSchedule);
          },
          py::arg("block_or_loop"), py::arg("intrin_name"),
          "Replaces a blockized block (a loop is blockized first) by the implementation of the "
          "registered tensor intrinsic whose description it matches.")
      .def(
          "transform_layout",
          [](sch::Schedule& s, sch::BlockRV b, std::variant<int64_t, std::string> buffer,
             py::object index_map) {
            std::string text;
            if (py::isinstance<py::str>(index_map)) {
              text = index_map.cast<std::string>();
            } else if (PyCallable_Check(index_map.ptr())) {
              text = py::module_::import("tessel.schedule")
                         .attr("index_map_text")(index_map)
                         .cast<std::string>();
            } else {
              Throw(ErrorKind::kArgument,
                    "index_map must be a Python lambda or its text, e.g. "
                    "\"lambda i, j: (i // 16, j, i % 16)\"");
            }
            sch::BufferRef ref = std::holds_alternative<int64_t>(buffer)
                                     ? sch::BufferRef(std::get<int64_t>(buffer))
                                     : sch::BufferRef(std::get<std::string>(buffer));
            Check(s.TransformLayout(b, ref, text), ErrorKind::kSchedule);
          },
          py::arg("block"), py::arg("buffer"), py::arg("index_map"),
          "Changes the layout of a buffer the block accesses (by name, or by index in its reads "
          "then writes) by a bijective index map: a lambda or its text.")
      .def(
          "pad_einsum",
          [](sch::Schedule& s, sch::BlockRV b, const std::vector<int64_t>& padding) {
            Check(s.PadEinsum(b, padding), ErrorKind::kSchedule);
          },
          py::arg("block"), py::arg("padding"),
          "Pads an einsum-like block's iteration domain to multiples of `padding` (one factor per "
          "iter var) through zero-padded input copies and an output crop.")
      .def(
          "sample_perfect_tile",
          [](sch::Schedule& s, sch::LoopRV l, int n, int64_t max_innermost_factor,
             std::optional<std::vector<int64_t>> decision) {
            return py::tuple(py::cast(Unwrap(s.SamplePerfectTile(l, n, max_innermost_factor, decision),
                                             ErrorKind::kSchedule)));
          },
          py::arg("loop"), py::arg("n"), py::arg("max_innermost_factor") = 16,
          py::arg("decision") = py::none(),
          "`n` factors of the loop's constant extent (innermost at most max_innermost_factor; "
          "<= 0: no limit), sampled, or `decision` when given.")
      .def(
          "sample_categorical",
          [](sch::Schedule& s, std::vector<int64_t> candidates, std::vector<double> probs,
             std::optional<int64_t> decision) {
            return Unwrap(s.SampleCategorical(candidates, probs, decision), ErrorKind::kSchedule);
          },
          py::arg("candidates"), py::arg("probs"), py::arg("decision") = py::none(),
          "One of `candidates` drawn with weights `probs`; `decision` is an index.")
      .def(
          "compute_inline",
          [](sch::Schedule& s, sch::BlockRV b) { Check(s.ComputeInline(b), ErrorKind::kSchedule); },
          py::arg("block"),
          "Inlines an elementwise block into the blocks that read its buffer; the buffer goes.")
      .def(
          "reverse_compute_inline",
          [](sch::Schedule& s, sch::BlockRV b) {
            Check(s.ReverseComputeInline(b), ErrorKind::kSchedule);
          },
          py::arg("block"),
          "Inlines an elementwise block into the one block that produces what it reads.")
      .def(
          "compute_at",
          [](sch::Schedule& s, sch::BlockRV b, sch::LoopRV l, bool preserve_unit_loops) {
            Check(s.ComputeAt(b, l, preserve_unit_loops), ErrorKind::kSchedule);
          },
          py::arg("block"), py::arg("loop"), py::arg("preserve_unit_loops") = false,
          "Moves a producer block under `loop` of its consumers, computing per iteration "
          "exactly the region they read there.")
      .def(
          "reverse_compute_at",
          [](sch::Schedule& s, sch::BlockRV b, sch::LoopRV l, bool preserve_unit_loops) {
            Check(s.ReverseComputeAt(b, l, preserve_unit_loops), ErrorKind::kSchedule);
          },
          py::arg("block"), py::arg("loop"), py::arg("preserve_unit_loops") = false,
          "Moves a consumer block under `loop` of its producers, computing per iteration "
          "exactly the region they wrote there.")
      .def(
          "sample_compute_location",
          [](sch::Schedule& s, sch::BlockRV b, std::optional<int64_t> decision) {
            return Unwrap(s.SampleComputeLocation(b, decision), ErrorKind::kSchedule);
          },
          py::arg("block"), py::arg("decision") = py::none(),
          "A loop where compute_at of `block` is legal, or root (-1) / inline (-2), drawn "
          "uniformly or given by `decision`; pass it to compute_at.");

  m.def("list_schedules", [] {
    std::vector<std::pair<std::string, std::string>> out;
    for (const std::string& name : sch::ScheduleRegistry::Global().Names()) {
      out.emplace_back(name, sch::ScheduleRegistry::Global().Lookup(name)->description);
    }
    return out;
  }, "(name, description) of every registered C++ schedule function.");
  m.def(
      "apply_schedule",
      [](sch::Schedule& s, const std::string& name) {
        const sch::RegisteredSchedule* r = sch::ScheduleRegistry::Global().Lookup(name);
        if (r == nullptr) Throw(ErrorKind::kArgument, absl::StrCat("no registered schedule '", name, "'"));
        return Unwrap(r->fn(s), ErrorKind::kSchedule);
      },
      py::arg("sch"), py::arg("name"),
      "Runs a registered C++ schedule function on `sch`; False when it does not apply.");
  m.def(
      "register_tensor_intrin",
      [](const std::string& name, const ir::PrimFunc& desc, const ir::PrimFunc& impl,
         bool replace) {
        Check(sch::RegisterTensorIntrin(name, desc, impl, replace), ErrorKind::kArgument);
      },
      py::arg("name"), py::arg("desc"), py::arg("impl"), py::arg("replace") = false,
      "Registers a tensor intrinsic: a description (loops around one block) and an "
      "implementation with the same buffer parameters.");
  m.def("list_tensor_intrins", &sch::TensorIntrinNames,
        "The names of the registered tensor intrinsics, sorted.");
}

}  // namespace tessel::python
