// The thread pool behind tessel_parallel_for: [0, extent) split into one contiguous
// chunk per thread, the calling thread running the first.
//
//   tessel_set_num_threads(4);
//   tessel_parallel_for(10, body, closure);
//   // body(0, 3), body(3, 6), body(6, 8), body(8, 10), each on one of four threads
//   // (the caller among them); returns once all four returned.
//
// Chunks are claimed from an atomic counter by the caller and the workers it woke,
// so a worker that is slow to wake (another process on its core) costs nothing: the
// threads already running take its chunk. Workers are started on first use (never
// per call) and wait for work spinning briefly, then sleeping on a futex
// (std::atomic::wait), so back-to-back parallel loops do not pay a wake-up each. A parallel_for
// reached inside a chunk (nested parallelism) or while another thread is using the pool runs
// serially on its caller: the result is the same, nothing waits on itself.
#ifndef TESSEL_CODEGEN_RUNTIME_THREAD_POOL_H_
#define TESSEL_CODEGEN_RUNTIME_THREAD_POOL_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "codegen/runtime/tessel_runtime.h"

namespace tessel::runtime {

class ThreadPool {
 public:
  // Sets the thread count of the parallel loops run on this thread while the scope
  // lives (0: the process-wide setting), restoring the previous one at its end. A
  // module built for `-num-threads=N` opens one around each call, so that calls from
  // several threads never see each other's count and the process-wide setting is
  // never touched.
  class CallThreads {
   public:
    explicit CallThreads(int32_t num_threads);
    ~CallThreads();
    CallThreads(const CallThreads&) = delete;
    CallThreads& operator=(const CallThreads&) = delete;

   private:
    int32_t saved_;
  };

  // The process-wide pool tessel_parallel_for uses.
  static ThreadPool& Global();

  ThreadPool();
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Runs body over [0, extent); returns the first non-zero body result (its message,
  // recorded by the failing chunk's thread, becomes the caller's last error).
  int32_t ParallelFor(int64_t extent, TesselParallelBody body, void* closure);

  // Threads the next parallel loops use, the caller included; <= 0 restores the
  // default. Clamped to [1, kMaxThreads]. Process-wide: a call that needs its own
  // count uses a CallThreads scope instead.
  void SetNumThreads(int32_t num_threads);
  // The count this thread's parallel loops use: its CallThreads scope's when one is
  // open, else the process-wide setting.
  int32_t num_threads() const;
  int32_t process_num_threads() const { return num_threads_.load(std::memory_order_relaxed); }
  // Worker threads started so far (they are reused, never stopped before exit).
  int32_t num_workers_started();

  // TESSEL_NUM_THREADS when it holds a positive integer, else the online cores.
  static int32_t DefaultNumThreads();
  static constexpr int32_t kMaxThreads = 1024;

  // True on a worker thread and on a caller while it runs its own chunk.
  static bool InParallelRegion();

 private:
  struct Worker;

  void EnsureWorkers(int32_t count);  // Holding dispatch_mu_.
  void WorkerLoop(Worker* self);
  // Claims and runs chunks of the current job until every chunk is claimed.
  void RunClaimedChunks();
  void RunChunk(int32_t chunk, int32_t chunks);
  void AfterFork();

  std::mutex dispatch_mu_;  // Held by the one caller the pool serves at a time.
  std::vector<std::unique_ptr<Worker>> workers_;
  std::atomic<int32_t> num_threads_;

  // The current job; written by the dispatcher before it signals the workers.
  TesselParallelBody body_ = nullptr;
  void* closure_ = nullptr;
  int64_t extent_ = 0;
  uint32_t job_ = 0;
  // (job << 32) | (chunks << 16) | next unclaimed chunk: one word, so that a claim
  // never mixes two jobs.
  std::atomic<uint64_t> claim_{0};
  std::atomic<int32_t> pending_{0};  // Chunks not yet finished.
  std::atomic<int32_t> error_{0};    // First non-zero body result.
  std::mutex error_mu_;
  std::string error_message_;
};

}  // namespace tessel::runtime

#endif  // TESSEL_CODEGEN_RUNTIME_THREAD_POOL_H_
