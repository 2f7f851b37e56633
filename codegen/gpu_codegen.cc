// Thread-bound functions -> gpu.module -> NVVM -> PTX (see gpu_codegen.h).
#include "codegen/gpu_codegen.h"

#include <cstdlib>
#include <filesystem>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/mlir_translator.h"
#include "ir/arith/expr_util.h"
#include "ir/printer.h"
#include "ir/status_macros.h"
#include "ir/verifier.h"
#include "ir/visitor.h"
#include "ir/written_buffers.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "nlohmann/json.hpp"

namespace tessel::codegen {

absl::Status detail::FuncTranslator::ThreadFor(const ir::ForNode* op) {
  auto id = thread_ids_.find(op->thread_tag);
  if (id == thread_ids_.end()) {
    return Error(op, absl::StrCat("loop '", op->loop_var->name, "' is bound to '", op->thread_tag,
                                  "' outside a GPU kernel"));
  }
  TESSEL_ASSIGN_OR_RETURN(mlir::Value min, Expr(op->min));
  mlir::Value iv = b_.create<mlir::arith::IndexCastOp>(loc_, min.getType(), id->second);
  vars_[op->loop_var.get()] = b_.create<mlir::arith::AddIOp>(loc_, min, iv);
  absl::Status s = Stmt(op->body);
  vars_.erase(op->loop_var.get());
  return s;
}

absl::Status detail::FuncTranslator::SyncThreads(const ir::EvaluateNode* op) {
  if (!in_gpu_kernel_) return Error(op, "sync_threads() outside a GPU kernel");
  b_.create<mlir::gpu::BarrierOp>(loc_);
  return absl::OkStatus();
}

namespace {

constexpr const char* kGpuModuleName = "tessel_kernels";
// PTX ISA 8.0 (CUDA 12.0 drivers and later) covers sm_80 .. sm_90; LLVM would pick
// the lowest ISA of the chip, which some drivers refuse for newer chips.
constexpr const char* kPtxFeatures = "+ptx80";

class SharedAllocations : public ir::IRVisitor {
 public:
  std::vector<const ir::BufferNode*> buffers;
  void VisitAllocate(const ir::AllocateNode* op) override {
    if (op->buffer->scope == "shared") buffers.push_back(op->buffer.get());
    ir::IRVisitor::VisitAllocate(op);
  }
};

std::unique_ptr<mlir::MLIRContext> NewGpuContext() {
  mlir::DialectRegistry registry;
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  mlir::registerGPUDialectTranslation(registry);
  mlir::registerNVVMDialectTranslation(registry);
  mlir::NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  auto ctx = std::make_unique<mlir::MLIRContext>(registry);
  ctx->disableMultithreading();
  LoadCodegenDialects(ctx.get());
  ctx->loadDialect<mlir::gpu::GPUDialect, mlir::NVVM::NVVMDialect>();
  return ctx;
}

// One kernel: a gpu.func over the launch's buffers (pointers) and scalars.
absl::Status TranslateKernel(mlir::gpu::GPUModuleOp gpu_module, const Target& target,
                             const std::string& func_name, const ir::PrimFunc& func,
                             const passes::KernelLaunch& launch) {
  mlir::MLIRContext* ctx = gpu_module.getContext();
  // Declarations the translator would add (runtime calls, externals) land in a
  // scratch module: a kernel may not call the host's functions.
  mlir::OwningOpRef<mlir::ModuleOp> scratch = mlir::ModuleOp::create(mlir::UnknownLoc::get(ctx));
  detail::FuncTranslator t(*scratch, target, func_name, launch.name);
  mlir::Type ptr = mlir::LLVM::LLVMPointerType::get(ctx);
  std::vector<mlir::Type> args;
  for (size_t i = 0; i < launch.buffer_args.size(); ++i) args.push_back(ptr);
  for (const ir::Var& v : launch.scalars) args.push_back(t.ValueType(v->dtype));
  SharedAllocations shared;
  shared.VisitStmt(launch.body);

  mlir::OpBuilder mb = mlir::OpBuilder::atBlockTerminator(gpu_module.getBody());
  auto kernel = mb.create<mlir::gpu::GPUFuncOp>(t.loc_, launch.name, mb.getFunctionType(args, {}));
  kernel->setAttr(mlir::gpu::GPUDialect::getKernelFuncAttrName(), mb.getUnitAttr());
  // Every buffer argument is at least 16-byte aligned (the runtime passes cuMemAlloc's
  // allocations and refuses arguments off 64 bytes) and none that a kernel writes
  // overlaps another (refused too): LLVM may then merge a thread's neighbouring
  // loads into ld.global.v4 and read what the kernel never writes through the
  // read-only cache.
  for (size_t i = 0; i < launch.buffer_args.size(); ++i) {
    kernel.setArgAttr(static_cast<unsigned>(i), mlir::LLVM::LLVMDialect::getAlignAttrName(),
                      mb.getI64IntegerAttr(16));
    kernel.setArgAttr(static_cast<unsigned>(i), mlir::LLVM::LLVMDialect::getNoAliasAttrName(),
                      mb.getUnitAttr());
  }
  kernel.setKnownBlockSizeAttr(mb.getDenseI32ArrayAttr({static_cast<int32_t>(launch.block[0]),
                                                        static_cast<int32_t>(launch.block[1]),
                                                        static_cast<int32_t>(launch.block[2])}));
  auto workgroup = mlir::gpu::AddressSpaceAttr::get(ctx, mlir::gpu::AddressSpace::Workgroup);
  // Shared buffers are 16-byte aligned: LLVM merges neighbouring loads of one
  // into ld.shared.v4, which faults on an address aligned to the element only.
  auto add_shared = [&kernel, &t, workgroup](mlir::MemRefType flat) {
    auto type = mlir::MemRefType::get(flat.getShape(), flat.getElementType(),
                                      mlir::MemRefLayoutAttrInterface(), workgroup);
    mlir::Value v = kernel.addWorkgroupAttribution(type, t.loc_);
    kernel.setWorkgroupAttributionAttr(kernel.getNumWorkgroupAttributions() - 1,
                                       mlir::LLVM::LLVMDialect::getAlignAttrName(),
                                       t.b_.getI64IntegerAttr(16));
    return v;
  };
  for (const ir::BufferNode* b : shared.buffers) {
    t.shared_storage_[b] = add_shared(t.MemRefTypeOf(ir::GetRef<ir::BufferNode>(b)));
  }

  mlir::Block* entry = &kernel.getBody().front();
  t.entry_ = entry;
  t.in_gpu_kernel_ = true;
  t.block_dims_ = {launch.block[0], launch.block[1], launch.block[2]};
  t.add_workgroup_buffer_ = add_shared;
  t.b_.setInsertionPointToStart(entry);
  t.InitStatus();
  const mlir::gpu::Dimension dims[3] = {mlir::gpu::Dimension::x, mlir::gpu::Dimension::y,
                                        mlir::gpu::Dimension::z};
  const char* names[3] = {"x", "y", "z"};
  for (int a = 0; a < 3; ++a) {
    t.thread_ids_[absl::StrCat("blockIdx.", names[a])] =
        t.b_.create<mlir::gpu::BlockIdOp>(t.loc_, dims[a]);
    t.thread_ids_[absl::StrCat("threadIdx.", names[a])] =
        t.b_.create<mlir::gpu::ThreadIdOp>(t.loc_, dims[a]);
  }
  for (size_t i = 0; i < launch.buffer_args.size(); ++i) {
    if (launch.buffer_args[i] >= static_cast<int>(func->params.size())) continue;  // A workspace.
    const ir::Buffer& buf = func->params[launch.buffer_args[i]].buffer;
    t.buffers_[buf.get()] = t.MemRefFromPointer(entry->getArgument(i), t.MemRefTypeOf(buf));
  }
  for (const auto& [view, id] : launch.views) {
    size_t position = std::find(launch.buffer_args.begin(), launch.buffer_args.end(), id) -
                      launch.buffer_args.begin();
    t.buffers_[view.get()] =
        t.MemRefFromPointer(entry->getArgument(position), t.MemRefTypeOf(view));
  }
  for (size_t i = 0; i < launch.scalars.size(); ++i) {
    t.vars_[launch.scalars[i].get()] = entry->getArgument(launch.buffer_args.size() + i);
  }
  TESSEL_RETURN_IF_ERROR(t.Stmt(launch.body));
  t.b_.create<mlir::gpu::ReturnOp>(t.loc_);
  for (mlir::Operation& op : scratch->getBody()->getOperations()) {
    std::string what = "an operation";
    if (auto f = mlir::dyn_cast<mlir::func::FuncOp>(op)) what = f.getName().str();
    return absl::InvalidArgumentError(absl::StrCat(
        "codegen: function '", func_name, "': kernel ", launch.name, " calls '", what,
        "', which has no GPU version (external calls and checked heap allocations run on "
        "the host only)"));
  }
  return absl::OkStatus();
}

struct Translated {
  std::unique_ptr<mlir::MLIRContext> ctx;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::vector<GpuFunction> functions;
};

absl::StatusOr<Translated> TranslateGpu(const ir::IRModule& mod, const Target& target) {
  if (!target.is_cuda()) {
    return absl::InvalidArgumentError(
        absl::StrCat("codegen: PTX needs a cuda target (e.g. 'cuda -arch=sm_90'), got '",
                     target.ToString(), "'"));
  }
  if (absl::Status s = ir::VerifyModule(mod); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat("codegen: ", s.message()));
  }
  Translated out;
  out.ctx = NewGpuContext();
  mlir::MLIRContext* ctx = out.ctx.get();
  out.module = mlir::ModuleOp::create(mlir::UnknownLoc::get(ctx));
  (*out.module)
      ->setAttr(mlir::gpu::GPUDialect::getContainerModuleAttrName(), mlir::UnitAttr::get(ctx));
  mlir::OpBuilder b = mlir::OpBuilder::atBlockEnd(out.module->getBody());
  std::vector<mlir::Attribute> link;
  const std::string libdevice = CudaToolkitPath() + "/nvvm/libdevice/libdevice.10.bc";
  if (std::filesystem::exists(libdevice)) link.push_back(b.getStringAttr(libdevice));
  auto nvvm = mlir::NVVM::NVVMTargetAttr::get(ctx, /*optLevel=*/3, target.Triple(), target.arch,
                                              kPtxFeatures, nullptr,
                                              link.empty() ? nullptr : b.getArrayAttr(link));
  auto gpu_module =
      b.create<mlir::gpu::GPUModuleOp>(b.getUnknownLoc(), kGpuModuleName, b.getArrayAttr({nvvm}));
  passes::GpuLimits limits;
  limits.max_threads_per_block = target.max_threads_per_block;
  limits.max_shared_memory_per_block = target.max_shared_memory_per_block;
  for (const auto& [name, func] : mod->functions) {
    if (!passes::HasThreadBinding(func) && !passes::CallsLibrary(func)) {
      return absl::InvalidArgumentError(
          absl::StrCat("codegen: function '", name,
                       "' has no loop bound to blockIdx or threadIdx, so it "
                       "cannot run on a cuda target; bind its loops (the `bind` primitive) or run "
                       "default-schedule for the target"));
    }
    TESSEL_ASSIGN_OR_RETURN(passes::KernelSplit split, passes::SplitKernels(name, func, limits));
    GpuFunction g{name, func, std::move(split.launches), std::move(split.workspaces)};
    for (const passes::KernelLaunch& k : g.launches) {
      if (!k.library.empty()) continue;  // The runtime calls the library between kernels.
      TESSEL_RETURN_IF_ERROR(TranslateKernel(gpu_module, target, name, func, k));
    }
    out.functions.push_back(std::move(g));
  }
  detail::DiagnosticCollector diags(ctx);
  if (mlir::failed(mlir::verify(*out.module))) {
    return absl::InternalError(absl::StrCat(
        "codegen: the generated GPU MLIR does not verify (a codegen bug): ", diags.text()));
  }
  return out;
}

absl::Status LowerToPtx(mlir::ModuleOp module) {
  mlir::MLIRContext* ctx = module.getContext();
  detail::DiagnosticCollector diags(ctx);
  TESSEL_RETURN_IF_ERROR(detail::ApproximateMath(module));
  mlir::PassManager pm(ctx, mlir::ModuleOp::getOperationName());
  detail::AddCleanupPasses(pm);
  mlir::OpPassManager& kernels = pm.nest<mlir::gpu::GPUModuleOp>();
  kernels.addPass(mlir::createConvertSCFToCFPass());
  kernels.addPass(mlir::createConvertGpuOpsToNVVMOps());
  kernels.addPass(mlir::createConvertMathToLLVMPass());  // What libdevice does not cover: fma.
  kernels.addPass(mlir::createUBToLLVMConversionPass());
  kernels.addPass(mlir::createReconcileUnrealizedCastsPass());
  mlir::GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "isa";
  binary.toolkitPath = CudaToolkitPath();
  pm.addPass(mlir::createGpuModuleToBinaryPass(binary));
  if (mlir::failed(pm.run(module))) {
    return absl::InternalError(
        absl::StrCat("codegen: lowering kernels to PTX failed: ", diags.text()));
  }
  return absl::OkStatus();
}

}  // namespace

std::string CudaToolkitPath() {
  const char* home = std::getenv("CUDA_HOME");
  return home != nullptr && *home != '\0' ? std::string(home) : std::string("/usr/local/cuda");
}

absl::StatusOr<std::string> EmitGpuMLIR(const ir::IRModule& mod, const Target& target) {
  TESSEL_ASSIGN_OR_RETURN(Translated t, TranslateGpu(mod, target));
  std::string text;
  llvm::raw_string_ostream os(text);
  t.module->print(os);
  os.flush();
  return text;
}

absl::StatusOr<GpuProgram> BuildGpuProgram(const ir::IRModule& mod, const Target& target) {
  TESSEL_ASSIGN_OR_RETURN(Translated t, TranslateGpu(mod, target));
  TESSEL_RETURN_IF_ERROR(LowerToPtx(*t.module));
  GpuProgram program;
  t.module->walk([&](mlir::gpu::BinaryOp binary) {
    for (mlir::Attribute a : binary.getObjects()) {
      program.ptx = mlir::cast<mlir::gpu::ObjectAttr>(a).getObject().str();
    }
  });
  while (!program.ptx.empty() && program.ptx.back() == '\0') program.ptx.pop_back();
  if (program.ptx.empty()) return absl::InternalError("codegen: no PTX came out of the GPU module");
  // A math function libdevice would provide, left unresolved (no toolkit found).
  if (size_t at = program.ptx.find(".extern .func"); at != std::string::npos) {
    size_t end = program.ptx.find('\n', at);
    return absl::FailedPreconditionError(absl::StrCat(
        "codegen: the PTX calls a function nothing provides (", program.ptx.substr(at, end - at),
        "): link libdevice by installing the CUDA toolkit at ", CudaToolkitPath(),
        " or setting CUDA_HOME"));
  }
  program.functions = std::move(t.functions);
  return program;
}

std::string LaunchManifest(const GpuProgram& program) {
  nlohmann::json functions = nlohmann::json::array();
  for (const GpuFunction& f : program.functions) {
    nlohmann::json params = nlohmann::json::array();
    const std::set<const ir::BufferNode*> written = ir::WrittenBuffers(f.func);
    for (const ir::Param& p : f.func->params) {
      nlohmann::json j = {{"name", p.name()}};
      if (p.is_buffer()) {
        j["dtype"] = p.buffer->dtype.ToString();
        j["written"] = written.count(p.buffer.get()) > 0;
        nlohmann::json shape = nlohmann::json::array();
        for (const ir::Expr& e : p.buffer->shape) shape.push_back(ir::PrintExpr(e));
        j["shape"] = shape;
      } else {
        j["dtype"] = p.var->dtype.ToString();
        j["scalar"] = true;
      }
      params.push_back(j);
    }
    nlohmann::json kernels = nlohmann::json::array();
    for (const passes::KernelLaunch& k : f.launches) {
      if (!k.library.empty()) {
        nlohmann::json args = nlohmann::json::array();
        for (const passes::LibraryArg& a : k.library_args) {
          args.push_back(a.storage >= 0
                             ? nlohmann::json{{"storage", a.storage}, {"offset", a.value}}
                             : nlohmann::json{{"value", a.value}});
        }
        kernels.push_back({{"name", k.name}, {"library", k.library}, {"args", args}});
        continue;
      }
      nlohmann::json scalars = nlohmann::json::array();
      for (const ir::Var& v : k.scalars) {
        scalars.push_back({{"name", v->name}, {"dtype", v->dtype.ToString()}});
      }
      nlohmann::json grid = nlohmann::json::array();
      for (size_t a = 0; a < 3; ++a) {
        if (k.grid_exprs[a]) {
          grid.push_back(ir::PrintExpr(k.grid_exprs[a]));
        } else {
          grid.push_back(k.grid[a]);
        }
      }
      kernels.push_back({{"name", k.name},
                         {"grid", grid},
                         {"block", k.block},
                         {"shared_bytes", k.shared_bytes},
                         {"buffer_args", k.buffer_args},
                         {"scalars", scalars}});
    }
    nlohmann::json workspaces = nlohmann::json::array();
    for (const ir::Buffer& b : f.workspaces) {
      // A constant count, or the product of the extents as the runtime's ExtentExpr
      // reads it ("(n) * 33"), evaluated per call.
      int64_t constant = 1;
      std::vector<std::string> factors;
      for (const ir::Expr& e : b->shape) {
        if (std::optional<int64_t> c = ir::arith::AsConstInt(e)) {
          constant *= *c;
        } else {
          factors.push_back(absl::StrCat("(", ir::PrintExpr(e), ")"));
        }
      }
      nlohmann::json elements = constant;
      if (!factors.empty()) {
        if (constant != 1) factors.push_back(absl::StrCat(constant));
        elements = absl::StrJoin(factors, " * ");
      }
      workspaces.push_back(
          {{"name", b->name}, {"dtype", b->dtype.ToString()}, {"elements", elements}});
    }
    functions.push_back(
        {{"name", f.name}, {"params", params}, {"workspaces", workspaces}, {"kernels", kernels}});
  }
  return nlohmann::json({{"version", 1}, {"functions", functions}}).dump(1);
}

}  // namespace tessel::codegen
