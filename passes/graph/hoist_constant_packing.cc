// hoist-constant-packing (see hoist_constant_packing.h).
#include "passes/graph/hoist_constant_packing.h"

#include <map>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/arith/analyzer.h"
#include "ir/arith/expr_util.h"
#include "ir/arith/region.h"
#include "ir/schedule/block_dataflow.h"
#include "ir/schedule/stmt_index.h"
#include "ir/status_macros.h"
#include "passes/graph/dropped_kernels.h"
#include "passes/graph/fold_constants.h"
#include "passes/graph/module_names.h"
#include "passes/pass.h"
#include "passes/pass_context.h"
#include "passes/pass_registry.h"

namespace tessel::passes {
namespace {

namespace sch = ir::schedule;

const ir::BlockNode* RootBlock(const ir::PrimFunc& f) {
  const auto* r = ir::dyn_cast<ir::BlockRealizeNode>(f->body.get());
  return r != nullptr ? r->block.get() : nullptr;
}

// True when what the copy nest `nest` writes of `packed`, for any values of the
// loops around it, is one dense run of `packed`: the whole buffer (a copy at the
// top level), or whole rows of it (a tile's panel of multi-level-tiling's
// panel-major [N / T * K, T] layout). Hoisted, such a packing hands the kernel
// the same contiguous panels its own copy made; a copy whose tiles are strided
// ([K, N] per column tile) would make each step of k jump a row. Dense: the
// region's volume is the nest's iteration count (a panel-major index, a floordiv
// and floormod, leaves the region inferred as covering, not exact).
bool WritesContiguousRuns(const ir::StmtNode* nest, const ir::BufferNode* packed) {
  int64_t iterations = 1;
  for (const ir::StmtNode* s = nest; const auto* f = ir::dyn_cast<ir::ForNode>(s);
       s = f->body.get()) {
    const std::optional<int64_t> e = ir::arith::AsConstInt(f->extent);
    if (!e) return false;
    iterations *= *e;
  }
  ir::arith::Analyzer ana;
  absl::StatusOr<ir::arith::AccessRegions> access =
      ir::arith::InferSubtreeAccess(ir::GetRef(nest), &ana);
  if (!access.ok()) return false;
  for (const ir::arith::AccessRegion& w : access->writes) {
    if (w.region.buffer.get() != packed) continue;
    int64_t volume = 1;
    for (size_t d = 0; d < w.region.region.size(); ++d) {
      const std::optional<int64_t> got = ir::arith::AsConstInt(w.region.region[d].extent);
      const std::optional<int64_t> full = ir::arith::AsConstInt(packed->shape[d]);
      if (!got || !full || (d > 0 && *got != *full)) return false;
      volume *= *got;
    }
    return volume == iterations;
  }
  return false;
}

// A block of `kernel` that copies its parameter `param` into a buffer of its own
// (see the header); its sref, or nullopt.
std::optional<int> FindPacking(const ir::PrimFunc& kernel, const sch::StmtIndex& index,
                               const ir::BufferNode* param) {
  const ir::BlockNode* root = RootBlock(kernel);
  if (root == nullptr) return std::nullopt;
  for (int i = 0; i < index.size(); ++i) {
    const ir::BlockNode* b = index.block(i);
    if (b == nullptr || b == root || b->init || b->reads.size() != 1 || b->writes.size() != 1 ||
        b->reads[0].buffer.get() != param) {
      continue;
    }
    const auto* store = ir::dyn_cast<ir::BufferStoreNode>(b->body.get());
    const auto* load = store ? ir::dyn_cast<ir::BufferLoadNode>(store->value.get()) : nullptr;
    if (load == nullptr || load->buffer.get() != param ||
        store->buffer.get() != b->writes[0].buffer.get()) {
      continue;
    }
    bool plain = ir::arith::IsConstTrue(index.realize(i)->predicate);
    for (const ir::IterVar& iv : b->iter_vars) {
      plain = plain && iv.kind == ir::IterKind::kSpatial &&
              ir::arith::AsConstInt(iv.dom.min).has_value() &&
              ir::arith::AsConstInt(iv.dom.extent).has_value();
    }
    const ir::BufferNode* packed = store->buffer.get();
    bool owned = false;
    for (const ir::Buffer& a : root->alloc_buffers) owned |= a.get() == packed;
    if (plain && owned && packed->scope == "global" &&
        WritesContiguousRuns(sch::BlockNestRoot(index, i), packed) &&
        sch::WritersOf(index, packed) == std::vector<std::string>{b->name}) {
      return i;
    }
  }
  return std::nullopt;
}

// The packing block run over its whole domain: f(param, packed).
ir::PrimFunc PackingKernel(const sch::StmtIndex& index, int sref, const ir::Buffer& param) {
  const ir::BlockNode* b = index.block(sref);
  std::vector<ir::Var> loops;
  std::vector<ir::Expr> values;
  for (size_t k = 0; k < b->iter_vars.size(); ++k) {
    const ir::IterVar& iv = b->iter_vars[k];
    loops.push_back(ir::MakeVar(absl::StrCat("ax", k), iv.var->dtype));
    values.push_back(ir::arith::AddE(iv.dom.min, loops.back()));
  }
  ir::Stmt nest = ir::ValueOrDie(ir::MakeBlockRealize(values, ir::Bool(true), ir::GetRef(b)));
  for (size_t k = loops.size(); k-- > 0;) {
    nest = ir::For(loops[k], ir::IntImm(loops[k]->dtype, 0), b->iter_vars[k].dom.extent, nest);
  }
  ir::Block root = ir::ValueOrDie(ir::MakeBlock("root", {}, {}, {}, nest));
  return ir::MakePrimFunc({ir::Param::OfBuffer(param), ir::Param::OfBuffer(b->writes[0].buffer)},
                          ir::ValueOrDie(ir::MakeBlockRealize({}, ir::Bool(true), root)));
}

// `kernel` without the packing block, its buffer a parameter after the
// `inputs` inputs; without `param` too when nothing else touches it.
absl::StatusOr<ir::PrimFunc> PrepackedKernel(const ir::PrimFunc& kernel,
                                             const sch::StmtIndex& index, int sref, size_t inputs,
                                             size_t param, bool* dropped) {
  const ir::Buffer packed = index.block(sref)->writes[0].buffer;
  TESSEL_ASSIGN_OR_RETURN(ir::PrimFunc f, sch::RemoveStmt(kernel, sch::BlockNestRoot(index, sref)));
  f = sch::RemoveAlloc(f, packed.get());
  std::vector<ir::Param> params = f->params;
  params.insert(params.begin() + static_cast<std::ptrdiff_t>(inputs), ir::Param::OfBuffer(packed));
  const ir::BufferNode* weight = params[param].buffer.get();
  *dropped = sch::CountLoads(f->body, weight) == 0 && sch::CountStores(f->body, weight) == 0;
  if (*dropped) params.erase(params.begin() + static_cast<std::ptrdiff_t>(param));
  return ir::MakePrimFuncChecked(std::move(params), f->body, f->attrs);
}

// A name no value of the graph has (FreshName's numbering); it joins `taken`.
std::string FreshValueName(absl::flat_hash_set<std::string>& taken, const std::string& want) {
  std::string name = FreshName(want, [&](const std::string& n) { return taken.contains(n); });
  taken.insert(name);
  return name;
}

class HoistConstantPackingPass : public Pass {
 public:
  static PassInfo Info() {
    return {.name = "hoist-constant-packing",
            .description =
                "Moves the packing of constant weights out of the kernels into kernels of "
                "their own, which fold-constants computes once at compile time",
            .opt_level = 0,
            .options = {IntOption("max-bytes", int64_t{1} << 28,
                                  "The largest packed weight (in bytes) to compute at compile "
                                  "time")}};
  }
  explicit HoistConstantPackingPass(PassOptions o) : Pass(Info(), std::move(o)) {}

  absl::StatusOr<ir::IRModule> Run(const ir::IRModule& mod, PassContext& ctx) const override {
    const int64_t max_bytes = options().GetInt("max-bytes");
    if (max_bytes < 0) {
      return absl::InvalidArgumentError(
          "hoist-constant-packing: option 'max-bytes' must be at least 0");
    }
    ir::IRModule out = mod;
    for (const auto& [gname, g] : mod->graph_functions) {
      std::vector<std::string> hoisted;
      TESSEL_ASSIGN_OR_RETURN(out, HoistConstantPacking(out, gname, max_bytes, &hoisted));
      if (hoisted.empty()) continue;
      ctx.log().RecordNote(name(), absl::StrCat(gname, ": hoisted ", absl::StrJoin(hoisted, ", ")));
    }
    return out;
  }
};

const PassRegistrar kRegisterHoistConstantPacking(
    HoistConstantPackingPass::Info(), [](PassOptions o) -> absl::StatusOr<PassPtr> {
      return std::make_shared<const HoistConstantPackingPass>(std::move(o));
    });

}  // namespace

absl::StatusOr<ir::IRModule> HoistConstantPacking(const ir::IRModule& mod, const std::string& name,
                                                  int64_t max_bytes,
                                                  std::vector<std::string>* hoisted) {
  hoisted->clear();
  ir::GraphFunc g = mod->LookupGraph(name);
  if (!g) {
    return absl::NotFoundError(
        absl::StrCat("hoist-constant-packing: no graph function '", name, "'"));
  }
  auto n = ir::MakeNode<ir::IRModuleNode>(*mod);
  absl::flat_hash_set<const ir::BufferNode*> constant;
  absl::flat_hash_set<std::string> packers;
  // (kernel, argument) -> (packing kernel, prepacked kernel, weight dropped): a
  // kernel called for several weights is rewritten once.
  std::map<std::pair<std::string, size_t>, std::tuple<std::string, std::string, bool>> done;
  // The graph's value names, built once: each hoisted value adds its own.
  absl::flat_hash_set<std::string> taken;
  for (const ir::Buffer& p : g->params) taken.insert(p->name);
  for (const ir::GraphBinding& b : g->bindings) {
    for (const ir::Buffer& o : b.outputs) taken.insert(o->name);
  }
  std::vector<ir::GraphBinding> bindings;
  for (ir::GraphBinding b : g->bindings) {
    if (b.call.kind == ir::GraphCall::Kind::kConstant) constant.insert(b.outputs[0].get());
    for (size_t a = 0; b.call.kind == ir::GraphCall::Kind::kCallTir && a < b.call.args.size();) {
      ir::PrimFunc kernel = n->Lookup(b.call.callee);
      if (!kernel || !constant.contains(b.call.args[a].get()) || a >= kernel->params.size() ||
          !kernel->params[a].is_buffer()) {
        ++a;
        continue;
      }
      auto key = std::make_pair(b.call.callee, a);
      if (!done.contains(key)) {
        const sch::StmtIndex index(kernel);
        const ir::BufferNode* weight = kernel->params[a].buffer.get();
        std::optional<int> sref = FindPacking(kernel, index, weight);
        if (!sref) {
          ++a;
          continue;
        }
        bool dropped = false;
        TESSEL_ASSIGN_OR_RETURN(
            ir::PrimFunc prepacked,
            PrepackedKernel(kernel, index, *sref, b.call.args.size(), a, &dropped));
        const std::string packer = FreshModuleName(
            *n, absl::StrCat(b.call.callee, "_pack_", kernel->params[a].buffer->name));
        n->functions.emplace_back(packer, PackingKernel(index, *sref, kernel->params[a].buffer));
        const std::string kname = FreshModuleName(*n, b.call.callee + "_prepacked");
        n->functions.emplace_back(kname, prepacked);
        done[key] = {packer, kname, dropped};
        packers.insert(packer);
      }
      const auto& [packer, kname, dropped] = done[key];
      const ir::Buffer packed = n->Lookup(packer)->params[1].buffer;
      ir::Buffer value = ir::MakeBuffer(FreshValueName(taken, packed->name), packed->dtype,
                                        packed->shape, "global");
      bindings.push_back(
          ir::GraphBinding{{value}, {ir::GraphCall::Kind::kCallTir, packer, {b.call.args[a]}, {}}});
      hoisted->push_back(absl::StrCat(b.call.callee, ": ", packed->name));
      std::vector<ir::Buffer> args = b.call.args;
      args.insert(args.end(), value);
      if (dropped) args.erase(args.begin() + static_cast<std::ptrdiff_t>(a));
      b.call.callee = kname;
      b.call.args = std::move(args);
      a = 0;  // The arguments moved: look again for another packing.
    }
    bindings.push_back(std::move(b));
  }
  if (hoisted->empty()) return mod;
  auto body = ir::MakeNode<ir::GraphFuncNode>(*g);
  body->bindings = std::move(bindings);
  std::vector<std::string> folded;
  TESSEL_ASSIGN_OR_RETURN(ir::IRModule with,
                          FoldConstants(ir::WithGraphFunction(ir::IRModule(std::move(n)), name,
                                                              ir::GraphFunc(std::move(body))),
                                        name, max_bytes, &folded));
  // Every packing folded, or the graph stays as it was.
  for (const ir::GraphBinding& b : with->LookupGraph(name)->bindings) {
    if (b.call.kind == ir::GraphCall::Kind::kCallTir && packers.contains(b.call.callee)) {
      hoisted->clear();
      return mod;
    }
  }
  // fold-constants dropped the packing kernels it folded; the kernels the graph
  // called before and calls no more (replaced by their prepacked versions) go too.
  return WithoutDroppedKernels(mod, with);
}

}  // namespace tessel::passes
