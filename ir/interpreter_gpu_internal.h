// GPU kernels in the reference interpreter, shared by its files: the state of one
// kernel's run (GpuRun), its threads, and the phase-level statements
// (interpreter_gpu.cc runs kernels, interpreter_gpu_phases.cc compiles and runs
// what sits between barriers, interpreter_gpu_race.cc is the race detector).
//
//   GpuRun run;                       // extents from the kernel's bound loops
//   run.extent = {2, 1, 1, 4, 1, 1};  // 2 blocks of 4 threads
//   run.SetBlock(1); run.SetThread(3);
//   run.index[3] == 3; run.Who({1, 3, 0}) == "thread (threadIdx.x=3) of block (blockIdx.x=1)"
#ifndef TESSEL_IR_INTERPRETER_GPU_INTERNAL_H_
#define TESSEL_IR_INTERPRETER_GPU_INTERNAL_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "ir/interpreter_internal.h"
#include "ir/thread_axis.h"

namespace tessel::ir::interp {

struct GpuRun;

// A kernel's shared-memory requests, grouped as a warp issues them, tallied into
// RunOptions::bank_conflicts (interpreter_gpu_banks.cc has the model).
class BankTally {
 public:
  explicit BankTally(BankConflicts* out) : out_(out) {}
  // One element access of `bytes` at `addr` by the current thread, made by the
  // statement executed `step`-th (Ctx::steps).
  void Record(const GpuRun& r, int64_t step, const StmtNode* where, const BufferNode* storage,
              const uint8_t* addr, int bytes, bool is_store);
  // Adds the requests recorded so far to the output.
  void Flush();

 private:
  struct Execution {
    int64_t step = -1;
    int64_t count = 0;
  };
  struct Site {
    const StmtNode* where;
    const BufferNode* storage;
    bool store;
    int64_t requests = 0, wavefronts = 0, ideal = 0;
    int64_t out = -1;  // Its index in the output, once flushed.
  };
  BankConflicts* out_;
  int64_t block_ = -1;
  std::vector<Site> sites_;
  absl::flat_hash_map<std::tuple<const StmtNode*, const BufferNode*, bool>, size_t> site_of_;
  // (thread, site) -> its latest execution; (site, warp, execution) -> words touched.
  absl::flat_hash_map<std::pair<int64_t, size_t>, Execution> executions_;
  absl::flat_hash_map<std::tuple<size_t, int64_t, int64_t>, std::vector<int64_t>> requests_;
};

// The state of the kernel running: which block and thread, the phase, and the
// last accesses of every element touched.
struct GpuRun {
  std::array<int64_t, kNumLaunchAxes> extent = {1, 1, 1, 1, 1, 1};
  std::array<int64_t, kNumLaunchAxes> index = {0, 0, 0, 0, 0, 0};
  int64_t block = 0;   // Linear block id.
  int64_t thread = 0;  // Linear thread id within the block.
  int64_t phase = 0;   // Barriers this block has passed.

  struct Access {
    int64_t block = -1;  // -1: none yet.
    int64_t thread = 0;
    int64_t phase = 0;
  };
  struct Shadow {
    Access store, load;
    bool loads_unordered = false;  // Another unordered thread loaded it too.
  };
  absl::flat_hash_map<const uint8_t*, Shadow> shadow;
  std::unique_ptr<BankTally> banks;  // Set when the run tallies bank conflicts.

  int64_t threads() const { return extent[3] * extent[4] * extent[5]; }
  int64_t blocks() const { return extent[0] * extent[1] * extent[2]; }
  void SetBlock(int64_t b) {
    block = b;
    index[0] = b % extent[0];
    index[1] = b / extent[0] % extent[1];
    index[2] = b / (extent[0] * extent[1]);
    phase = 0;
  }
  void SetThread(int64_t t) {
    thread = t;
    index[3] = t % extent[3];
    index[4] = t / extent[3] % extent[4];
    index[5] = t / (extent[3] * extent[4]);
  }
  // Whether `a` (an earlier access) and one by the current thread now may happen
  // in either order on a GPU: different threads, and not ordered by a barrier.
  bool Unordered(const Access& a) const {
    if (a.block < 0) return false;
    if (a.block != block) return true;  // Nothing orders two blocks of one kernel.
    return a.thread != thread && a.phase == phase;
  }
  // "thread (threadIdx.x=3) of block (blockIdx.x=0)" for an access.
  std::string Who(const Access& a) const;
};

// The per-thread state of a phased kernel and the thread the Ctx now runs as.
struct Threads {
  Ctx& c;
  GpuRun& run;
  std::vector<std::vector<Lane>> frames;
  std::vector<std::vector<BufState>> bufs;
  void Enter(int64_t t) {
    c.frame = frames[t].data();
    c.bufs = bufs[t].data();
    run.SetThread(t);
  }
  int64_t count() const { return static_cast<int64_t>(frames.size()); }
};

// A statement of a kernel run at the phase level.
class PNode {
 public:
  explicit PNode(const StmtNode* n) : node(n) {}
  virtual ~PNode() = default;
  virtual void Run(Threads& ts) = 0;
  const StmtNode* const node;
};
using PNodePtr = std::unique_ptr<PNode>;

// What decides how a kernel runs: blocks (serially), barriers, thread reductions,
// warp matrix products and shared allocations (in phases).
struct KernelTraits {
  bool has_block = false;
  bool needs_phases = false;
};
KernelTraits InspectKernel(const Stmt& s);

// The phase-level form of a kernel statement (interpreter_gpu_phases.cc); the
// barrier-free statements below it compile as usual, run thread after thread.
absl::StatusOr<PNodePtr> CompilePhases(Compiler& comp, const Stmt& s);

// `D[i] = mma_m16n8k16(a, b, c)` at the phase level (interpreter_gpu_mma.cc).
absl::StatusOr<PNodePtr> CompileWarpMma(Compiler& comp, const BufferStoreNode* store,
                                        const CallNode* call);

}  // namespace tessel::ir::interp

#endif  // TESSEL_IR_INTERPRETER_GPU_INTERNAL_H_
