// The check-semantics instrument: reference runs before the pipeline, a
// differential run after each pass for the functions it changed, and one line
// when the pipeline ends, so that a run where every comparison held still says
// that it checked something:
//
//   check-semantics: 2 functions checked, 5 comparisons after passes that changed
//   them, all equal; skipped 1: big (over the work limit)
#include "passes/instruments/semantic_check.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/expr_util.h"
#include "ir/graph/interpreter.h"
#include "ir/interpreter.h"
#include "ir/status_macros.h"
#include "ir/substitute.h"
#include "passes/pass.h"
#include "passes/pass_config.h"
#include "passes/pass_context.h"

namespace tessel::passes {

TESSEL_REGISTER_CONFIG(IntOption("check-semantics.seed", 1,
                                 "Seed of the random inputs of check-semantics"));
TESSEL_REGISTER_CONFIG(IntOption("check-semantics.work-limit", int64_t{1} << 22,
                                 "check-semantics skips functions estimated to execute more "
                                 "statements than this"));
TESSEL_REGISTER_CONFIG(
    ListOption("check-semantics.shape-vars", {},
               "Values of shape variables for the random inputs of "
               "symbolic functions, \"NAME=VALUE\" each ([\"n=37\",\"m=45\"]); a "
               "function with a shape variable not given is skipped"));

absl::StatusOr<ShapeVars> ShapeVarValues(const PassContext& ctx) {
  ShapeVars values;
  for (const std::string& entry : ctx.GetConfigList("check-semantics.shape-vars")) {
    std::pair<std::string, std::string> kv = absl::StrSplit(entry, absl::MaxSplits('=', 1));
    int64_t v = 0;
    if (kv.first.empty() || !absl::SimpleAtoi(kv.second, &v) || v < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("check-semantics.shape-vars: '", entry,
                       "' is not NAME=VALUE with a non-negative integer value"));
    }
    values.emplace_back(kv.first, v);
  }
  return values;
}

namespace {

// What a skipped symbolic function's note suggests.
constexpr char kShapeVarsHint[] =
    "; give its shape variables with --config='check-semantics.shape-vars=[\"n=37\"]'";

bool HasSymbolicShape(const ir::PrimFunc& func) {
  for (const ir::Param& p : func->params) {
    if (!p.is_buffer()) continue;
    for (const ir::Expr& d : p.buffer->shape) {
      if (ir::dyn_cast<ir::IntImmNode>(d) == nullptr) return true;
    }
  }
  return false;
}

constexpr int64_t kCap = std::numeric_limits<int64_t>::max() / 4;

int64_t SatAdd(int64_t a, int64_t b) { return a > kCap - b ? kCap : a + b; }
int64_t SatMul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  return a > kCap / b ? kCap : a * b;
}

int64_t Plus1(int64_t w) { return w < 0 ? -1 : SatAdd(1, w); }

int64_t Work(const ir::Stmt& s) {
  using ir::NodeKind;
  if (!s) return 0;
  switch (s->kind()) {
    case NodeKind::kFor: {
      const auto* op = ir::cast<ir::ForNode>(s);
      const auto* ext = ir::dyn_cast<ir::IntImmNode>(op->extent);
      if (ext == nullptr) return -1;
      int64_t body = Work(op->body);
      if (body < 0) return -1;
      return SatAdd(1, SatMul(std::max<int64_t>(ext->value, 0), body));
    }
    case NodeKind::kSeqStmt: {
      int64_t sum = 0;
      for (const ir::Stmt& c : ir::cast<ir::SeqStmtNode>(s)->seq) {
        int64_t w = Work(c);
        if (w < 0) return -1;
        sum = SatAdd(sum, w);
      }
      return sum;
    }
    case NodeKind::kIfThenElse: {
      const auto* op = ir::cast<ir::IfThenElseNode>(s);
      int64_t t = Work(op->then_case), e = Work(op->else_case);
      if (t < 0 || e < 0) return -1;
      return SatAdd(1, std::max(t, e));
    }
    case NodeKind::kLetStmt:
      return Plus1(Work(ir::cast<ir::LetStmtNode>(s)->body));
    case NodeKind::kAllocate:
      return Plus1(Work(ir::cast<ir::AllocateNode>(s)->body));
    case NodeKind::kDeclBuffer:
      return Plus1(Work(ir::cast<ir::DeclBufferNode>(s)->body));
    case NodeKind::kBlockRealize:
      return Plus1(Work(ir::cast<ir::BlockRealizeNode>(s)->block));
    case NodeKind::kBlock: {
      const auto* op = ir::cast<ir::BlockNode>(s);
      int64_t i = Work(op->init), b = Work(op->body);
      if (i < 0 || b < 0) return -1;
      return SatAdd(1, SatAdd(i, b));
    }
    default:
      return 1;
  }
}

int64_t NumElements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// A buffer extent with the shape variables of check-semantics.shape-vars put in
// (i64(n) * 33i64 with n = 7: 231), or nothing when one is left.
std::optional<int64_t> Extent(const ir::Expr& e, const ShapeVars& shape_vars) {
  if (const auto* imm = ir::dyn_cast<ir::IntImmNode>(e)) return imm->value;
  ir::VarMap values;
  ir::arith::AnyVar(e, [&](const ir::VarNode* v) {
    for (const auto& [name, value] : shape_vars) {
      if (v->name == name) values[v] = ir::IntImm(v->dtype, value);
    }
    return false;
  });
  ir::arith::Analyzer ana;
  return ir::arith::AsConstInt(ana.Simplify(ir::Substitute(e, values)));
}

// The arguments `args` (made for `from`) reshaped for `to`, whose buffers may
// have been reshaped by a pass (e.g. flattened) but hold the same elements.
absl::StatusOr<std::vector<ir::Arg>> AdaptArgs(const std::vector<ir::Arg>& args,
                                               const ir::PrimFunc& to,
                                               const ShapeVars& shape_vars) {
  if (to->params.size() != args.size()) {
    return absl::FailedPreconditionError(
        absl::StrCat("its parameter count changed from ", args.size(), " to ", to->params.size()));
  }
  std::vector<ir::Arg> out;
  for (size_t i = 0; i < args.size(); ++i) {
    const ir::Param& p = to->params[i];
    const ir::HostBuffer* hb = std::get_if<ir::HostBuffer>(&args[i]);
    if (!p.is_buffer() || hb == nullptr) {
      if (p.is_buffer() != (hb != nullptr)) {
        return absl::FailedPreconditionError(
            absl::StrCat("parameter ", i, " ('", p.name(), "') changed kind"));
      }
      out.push_back(args[i]);
      continue;
    }
    std::vector<int64_t> shape;
    for (const ir::Expr& e : p.buffer->shape) {
      std::optional<int64_t> extent = Extent(e, shape_vars);
      if (!extent) {
        return absl::FailedPreconditionError(absl::StrCat(
            "buffer '", p.buffer->name,
            "' has a symbolic shape (give its shape variables in check-semantics.shape-vars)"));
      }
      shape.push_back(*extent);
    }
    if (p.buffer->dtype != hb->dtype() || NumElements(shape) != hb->size()) {
      return absl::FailedPreconditionError(
          absl::StrCat("buffer '", p.buffer->name, "' changed its type or number of elements"));
    }
    if (shape == hb->shape()) {
      out.push_back(hb->Clone());
      continue;
    }
    ir::HostBuffer nb = ir::HostBuffer::Zeros(hb->dtype(), shape);
    for (int64_t k = 0; k < hb->size(); ++k) {
      if (hb->dtype().is_float()) {
        nb.SetFloat(k, hb->GetFloat(k));
      } else {
        nb.SetInt(k, hb->GetInt(k));
      }
    }
    out.push_back(nb);
  }
  return out;
}

class SemanticCheck : public PassInstrument {
 public:
  explicit SemanticCheck(std::ostream* diag) : diag_(diag) {}
  std::string name() const override { return "check-semantics"; }

  absl::Status BeforePipeline(const ir::IRModule& mod, PassContext& ctx) override {
    refs_.clear();
    graph_refs_.clear();
    skipped_.clear();
    comparisons_ = 0;
    uint64_t seed = static_cast<uint64_t>(ctx.GetConfigInt("check-semantics.seed"));
    int64_t limit = ctx.GetConfigInt("check-semantics.work-limit");
    TESSEL_ASSIGN_OR_RETURN(shape_vars_, ShapeVarValues(ctx));
    for (const auto& [gname, g] : mod->graph_functions) StartGraph(ctx, mod, gname, g, seed, limit);
    for (const auto& [fname, func] : mod->functions) {
      int64_t work = EstimateWork(func);
      if (work > limit) {
        Skip(ctx, fname,
             absl::StrCat("estimated ", work, " statements > work limit ", limit,
                          " (raise it with --config=check-semantics.work-limit=N)"),
             "over the work limit");
        continue;
      }
      absl::StatusOr<std::vector<ir::Arg>> args = ir::RandomArgs(func, seed, shape_vars_);
      if (!args.ok()) {
        Skip(ctx, fname,
             absl::StrCat("no random inputs: ", args.status().message(),
                          HasSymbolicShape(func) ? kShapeVarsHint : ""),
             "no random inputs");
        continue;
      }
      Reference r;
      r.func = func;
      r.last = func;
      r.inputs = ir::CloneArgs(*args);
      ir::RunOptions run;
      run.max_steps = limit;  // Bounds functions whose work could not be estimated.
      absl::Status s = ir::Run(func, *args, run, fname);
      if (!s.ok()) {
        Skip(ctx, fname, absl::StrCat("the reference run fails: ", s.message()),
             "its reference run fails");
        continue;
      }
      r.outputs = *std::move(args);
      r.max_steps = limit;
      refs_.emplace_back(fname, std::move(r));
    }
    return absl::OkStatus();
  }

  absl::Status AfterPass(const Pass& pass, const ir::IRModule&, const ir::IRModule& after,
                         PassContext& ctx) override {
    if (pass.is_pipeline()) return absl::OkStatus();
    TESSEL_RETURN_IF_ERROR(CheckGraphs(pass, after, ctx));
    for (auto it = refs_.begin(); it != refs_.end();) {
      const std::string& fname = it->first;
      Reference& r = it->second;
      ir::PrimFunc f = after->Lookup(fname);
      if (!f) {
        Note(ctx, absl::StrCat("function '", fname, "' was removed by pass '", pass.name(),
                               "'; it is no longer checked"));
        skipped_.emplace_back(fname, absl::StrCat("removed by pass '", pass.name(), "'"));
        it = refs_.erase(it);
        continue;
      }
      if (f.same_as(r.last)) {
        ++it;
        continue;
      }
      absl::StatusOr<std::vector<ir::Arg>> args =
          AdaptArgs(ir::CloneArgs(r.inputs), f, shape_vars_);
      if (!args.ok()) {
        Note(ctx, absl::StrCat("cannot check function '", fname, "' after pass '", pass.name(),
                               "': ", args.status().message(), "; it is no longer checked"));
        skipped_.emplace_back(fname, absl::StrCat("not comparable after pass '", pass.name(), "'"));
        it = refs_.erase(it);
        continue;
      }
      ir::RunOptions run;
      // A transformed function may execute more statements (e.g. after splitting
      // a loop with a guard); only a blow-up far past the reference is an error.
      run.max_steps = r.max_steps > kCap / 16 ? 0 : 16 * r.max_steps;
      absl::Status s = ir::Run(f, *args, run, fname);
      if (!s.ok()) {
        return absl::Status(s.code(), absl::StrCat("check-semantics: function '", fname,
                                                   "' no longer runs after pass '", pass.ToString(),
                                                   "': ", s.message()));
      }
      absl::StatusOr<std::vector<ir::Arg>> back = AdaptArgs(*args, r.func, shape_vars_);
      if (!back.ok()) return back.status();
      // A library call computes in its own order and with its own approximations
      // (oneDNN's erf, tanh and exp are polynomials): a dispatched function is
      // held to 1e-4 relative, not 1e-5.
      ir::CompareOptions tolerance;
      if (f->attrs.count("dispatched")) tolerance = {.rtol = 1e-4, .atol = 1e-5};
      s = ir::CompareArgs(r.outputs, *back, r.func, tolerance);
      if (!s.ok()) {
        return absl::Status(absl::StatusCode::kFailedPrecondition,
                            absl::StrCat("check-semantics: pass '", pass.ToString(),
                                         "' is the first to change the results of function '",
                                         fname, "': ", s.message()));
      }
      r.last = f;
      ++comparisons_;
      ++it;
    }
    return absl::OkStatus();
  }

  // Reached only when every comparison held (a difference stops the pipeline).
  absl::Status AfterPipeline(const ir::IRModule&, PassContext&) override {
    *diag_ << "check-semantics: " << Count(refs_.size() + graph_refs_.size(), "function")
           << " checked, " << Count(comparisons_, "comparison")
           << " after passes that changed them, all equal";
    if (!skipped_.empty()) {
      *diag_ << "; skipped " << skipped_.size() << ": "
             << absl::StrJoin(skipped_, ", ", [](std::string* out, const auto& s) {
                  absl::StrAppend(out, s.first, " (", s.second, ")");
                });
    }
    *diag_ << "\n";
    return absl::OkStatus();
  }

 private:
  struct Reference {
    ir::PrimFunc func;  // The function the reference ran.
    ir::PrimFunc last;  // The latest version found to compute the same.
    std::vector<ir::Arg> inputs;
    std::vector<ir::Arg> outputs;
    int64_t max_steps = 0;
  };

  // A graph function is checked as a whole: its results on the same inputs,
  // whichever of its bindings and kernels a pass changed.
  struct GraphReference {
    ir::GraphFunc last;
    std::vector<const ir::PrimFuncNode*> kernels;  // What its call_tirs called then.
    std::vector<ir::HostBuffer> inputs;
    std::vector<ir::HostBuffer> outputs;
    ir::RunOptions run;
  };

  void StartGraph(PassContext& ctx, const ir::IRModule& mod, const std::string& gname,
                  const ir::GraphFunc& g, uint64_t seed, int64_t limit) {
    absl::StatusOr<std::vector<ir::HostBuffer>> inputs =
        ir::graph::RandomGraphInputs(g, seed, shape_vars_);
    if (!inputs.ok()) {
      Skip(ctx, gname, absl::StrCat("no random inputs: ", inputs.status().message()),
           "no random inputs");
      return;
    }
    GraphReference r{g, Kernels(mod, g), *inputs, {}, {}};
    r.run.max_steps = limit;  // Per kernel.
    absl::StatusOr<std::vector<ir::HostBuffer>> out =
        ir::graph::RunGraph(mod, gname, r.inputs, r.run);
    if (!out.ok()) {
      Skip(ctx, gname, absl::StrCat("the reference run fails: ", out.status().message()),
           "its reference run fails");
      return;
    }
    r.outputs = *std::move(out);
    graph_refs_.emplace_back(gname, std::move(r));
  }

  absl::Status CheckGraphs(const Pass& pass, const ir::IRModule& after, PassContext& ctx) {
    for (auto it = graph_refs_.begin(); it != graph_refs_.end();) {
      const std::string& gname = it->first;
      GraphReference& r = it->second;
      ir::GraphFunc g = after->LookupGraph(gname);
      if (!g) {
        Note(ctx, absl::StrCat("graph function '", gname, "' was removed by pass '", pass.name(),
                               "'; it is no longer checked"));
        skipped_.emplace_back(gname, absl::StrCat("removed by pass '", pass.name(), "'"));
        it = graph_refs_.erase(it);
        continue;
      }
      // Kernels count too: default-schedule changes the PrimFuncs fuse-tir made,
      // which no PrimFunc reference covers (they did not exist before the pipeline).
      std::vector<const ir::PrimFuncNode*> kernels = Kernels(after, g);
      if (g.same_as(r.last) && kernels == r.kernels) {
        ++it;
        continue;
      }
      ir::RunOptions run = r.run;
      run.max_steps = r.run.max_steps > kCap / 16 ? 0 : 16 * r.run.max_steps;
      absl::StatusOr<std::vector<ir::HostBuffer>> out =
          ir::graph::RunGraph(after, gname, r.inputs, run);
      if (!out.ok()) {
        return absl::Status(out.status().code(),
                            absl::StrCat("check-semantics: graph function '", gname,
                                         "' no longer runs after pass '", pass.ToString(),
                                         "': ", out.status().message()));
      }
      absl::Status s = ir::graph::CompareGraphResults(r.outputs, *out, r.last);
      if (!s.ok()) {
        return absl::FailedPreconditionError(absl::StrCat(
            "check-semantics: pass '", pass.ToString(),
            "' is the first to change the results of graph function '", gname, "': ", s.message()));
      }
      r.last = g;
      r.kernels = std::move(kernels);
      ++comparisons_;
      ++it;
    }
    return absl::OkStatus();
  }

  static std::vector<const ir::PrimFuncNode*> Kernels(const ir::IRModule& mod,
                                                      const ir::GraphFunc& g) {
    std::vector<const ir::PrimFuncNode*> out;
    for (const ir::GraphBinding& b : g->bindings) {
      if (b.call.kind == ir::GraphCall::Kind::kCallTir)
        out.push_back(mod->Lookup(b.call.callee).get());
    }
    return out;
  }

  // `why` is the note's reason; `briefly` the summary's.
  void Skip(PassContext& ctx, const std::string& fname, const std::string& why,
            const std::string& briefly) {
    Note(ctx, absl::StrCat("skipping function '", fname, "': ", why));
    skipped_.emplace_back(fname, briefly);
  }
  static std::string Count(size_t n, const std::string& noun) {
    return absl::StrCat(n, " ", noun, n == 1 ? "" : "s");
  }
  void Note(PassContext& ctx, const std::string& text) {
    *diag_ << "check-semantics: " << text << "\n";
    ctx.log().RecordNote("check-semantics", text);
  }

  std::ostream* diag_;
  std::vector<std::pair<std::string, Reference>> refs_;
  std::vector<std::pair<std::string, GraphReference>> graph_refs_;
  ShapeVars shape_vars_;  // check-semantics.shape-vars
  // Functions not compared to the end, with the summary's reason.
  std::vector<std::pair<std::string, std::string>> skipped_;
  size_t comparisons_ = 0;
};

}  // namespace

int64_t EstimateWork(const ir::PrimFunc& func) { return Work(func->body); }

std::shared_ptr<PassInstrument> MakeSemanticCheckInstrument(std::ostream* diag) {
  return std::make_shared<SemanticCheck>(diag);
}

}  // namespace tessel::passes
