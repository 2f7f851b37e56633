// The thread pool and the C entry points over it (see thread_pool.h).
#include "codegen/runtime/thread_pool.h"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <new>
#include <system_error>

namespace tessel::runtime {
namespace {

thread_local bool in_parallel_region = false;
// The open CallThreads scope's count on this thread; 0 when none.
thread_local int32_t call_num_threads = 0;

// How long a waiting thread polls before it sleeps: long enough to catch the next
// loop of a kernel with several parallel loops, short enough not to steal a shared
// core for long.
constexpr int kSpinIterations = 4000;

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// The chunk of [0, extent) chunk `k` of `n` runs: the first extent % n chunks take
// one iteration more, so sizes differ by at most one.
void ChunkBounds(int64_t extent, int32_t n, int32_t k, int64_t* begin, int64_t* end) {
  int64_t base = extent / n, rem = extent % n;
  *begin = k * base + std::min<int64_t>(k, rem);
  *end = *begin + base + (k < rem ? 1 : 0);
}

}  // namespace

struct ThreadPool::Worker {
  alignas(64) std::atomic<uint64_t> generation{0};  // Bumped to hand this worker a chunk.
  std::atomic<bool> stop{false};
  std::thread thread;
};

ThreadPool& ThreadPool::Global() {
  static ThreadPool pool;
  return pool;
}

ThreadPool::ThreadPool() : num_threads_(DefaultNumThreads()) {
  // A forked child has none of the parent's workers; forget them (their objects leak,
  // the threads do not exist) and start afresh.
  static std::once_flag registered;
  std::call_once(registered,
                 [] { pthread_atfork(nullptr, nullptr, [] { Global().AfterFork(); }); });
}

ThreadPool::~ThreadPool() {
  std::lock_guard<std::mutex> lock(dispatch_mu_);
  for (auto& w : workers_) {
    w->stop.store(true, std::memory_order_release);
    w->generation.fetch_add(1, std::memory_order_release);
    w->generation.notify_one();
  }
  for (auto& w : workers_) w->thread.join();
}

void ThreadPool::AfterFork() {
  for (auto& w : workers_) (void)w.release();
  workers_.clear();
  new (&dispatch_mu_) std::mutex();
  new (&error_mu_) std::mutex();
  pending_.store(0);
}

int32_t ThreadPool::DefaultNumThreads() {
  if (const char* env = std::getenv("TESSEL_NUM_THREADS")) {
    char* end = nullptr;
    long n = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && n > 0)
      return static_cast<int32_t>(std::min<long>(n, kMaxThreads));
  }
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  return cores > 0 ? static_cast<int32_t>(std::min<long>(cores, kMaxThreads)) : 1;
}

bool ThreadPool::InParallelRegion() { return in_parallel_region; }

ThreadPool::CallThreads::CallThreads(int32_t num_threads) : saved_(call_num_threads) {
  if (num_threads > 0) call_num_threads = std::min(num_threads, kMaxThreads);
}

ThreadPool::CallThreads::~CallThreads() { call_num_threads = saved_; }

int32_t ThreadPool::num_threads() const {
  return call_num_threads > 0 ? call_num_threads : process_num_threads();
}

void ThreadPool::SetNumThreads(int32_t n) {
  if (n <= 0) n = DefaultNumThreads();
  num_threads_.store(std::min(n, kMaxThreads), std::memory_order_relaxed);
}

int32_t ThreadPool::num_workers_started() {
  std::lock_guard<std::mutex> lock(dispatch_mu_);
  return static_cast<int32_t>(workers_.size());
}

void ThreadPool::EnsureWorkers(int32_t count) {
  while (static_cast<int32_t>(workers_.size()) < count) {
    auto w = std::make_unique<Worker>();
    try {
      w->thread = std::thread(&ThreadPool::WorkerLoop, this, w.get());
    } catch (const std::system_error&) {
      return;  // Out of threads: run with the workers there are.
    }
    workers_.push_back(std::move(w));
  }
}

void ThreadPool::WorkerLoop(Worker* self) {
  in_parallel_region = true;
  uint64_t seen = 0;
  for (;;) {
    uint64_t g = self->generation.load(std::memory_order_acquire);
    for (int i = 0; g == seen && i < kSpinIterations; ++i) {
      CpuRelax();
      g = self->generation.load(std::memory_order_acquire);
    }
    while (g == seen) {
      self->generation.wait(seen, std::memory_order_acquire);
      g = self->generation.load(std::memory_order_acquire);
    }
    seen = g;
    if (self->stop.load(std::memory_order_acquire)) return;
    RunClaimedChunks();
  }
}

void ThreadPool::RunClaimedChunks() {
  uint64_t word = claim_.load(std::memory_order_acquire);
  for (;;) {
    auto next = static_cast<int32_t>(word & 0xffff);
    auto chunks = static_cast<int32_t>((word >> 16) & 0xffff);
    if (next >= chunks) return;
    // A successful claim also makes the job's fields, written before the word was
    // published, visible; they stay put until this chunk is counted done.
    if (!claim_.compare_exchange_weak(word, word + 1, std::memory_order_acq_rel,
                                      std::memory_order_acquire)) {
      continue;
    }
    RunChunk(next, chunks);
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) pending_.notify_one();
    word = claim_.load(std::memory_order_acquire);
  }
}

void ThreadPool::RunChunk(int32_t chunk, int32_t chunks) {
  int64_t begin, end;
  ChunkBounds(extent_, chunks, chunk, &begin, &end);
  if (begin >= end) return;
  int32_t rc = body_(begin, end, closure_);
  if (rc == 0) return;
  int32_t expected = 0;
  if (error_.compare_exchange_strong(expected, rc, std::memory_order_acq_rel)) {
    std::lock_guard<std::mutex> lock(error_mu_);
    error_message_ = tessel_last_error();
  }
}

int32_t ThreadPool::ParallelFor(int64_t extent, TesselParallelBody body, void* closure) {
  if (body == nullptr) return tessel_set_last_error("tessel_parallel_for: the body is NULL");
  if (extent <= 0) return 0;
  int32_t threads = static_cast<int32_t>(std::min<int64_t>(num_threads(), extent));
  if (threads <= 1 || in_parallel_region) return body(0, extent, closure);
  std::unique_lock<std::mutex> lock(dispatch_mu_, std::try_to_lock);
  if (!lock.owns_lock()) return body(0, extent, closure);  // Another caller holds the pool.

  EnsureWorkers(threads - 1);
  threads = std::min<int32_t>(threads, static_cast<int32_t>(workers_.size()) + 1);
  body_ = body;
  closure_ = closure;
  extent_ = extent;
  error_.store(0, std::memory_order_relaxed);
  pending_.store(threads, std::memory_order_relaxed);
  ++job_;
  claim_.store((uint64_t{job_} << 32) | (static_cast<uint64_t>(threads) << 16),
               std::memory_order_release);
  for (int32_t k = 1; k < threads; ++k) {
    Worker* w = workers_[k - 1].get();
    w->generation.fetch_add(1, std::memory_order_release);
    w->generation.notify_one();
  }
  // The caller claims chunks too: when a worker is slow to wake (a busy machine), the
  // caller runs its chunk instead of waiting for it.
  in_parallel_region = true;
  RunClaimedChunks();
  in_parallel_region = false;

  int32_t left = pending_.load(std::memory_order_acquire);
  for (int i = 0; left != 0 && i < kSpinIterations; ++i) {
    CpuRelax();
    left = pending_.load(std::memory_order_acquire);
  }
  while (left != 0) {
    pending_.wait(left, std::memory_order_acquire);
    left = pending_.load(std::memory_order_acquire);
  }
  int32_t rc = error_.load(std::memory_order_acquire);
  if (rc != 0) {
    std::lock_guard<std::mutex> error_lock(error_mu_);
    tessel_set_last_error(error_message_.c_str());
  }
  return rc;
}

}  // namespace tessel::runtime

extern "C" {

int32_t tessel_parallel_for(int64_t extent, TesselParallelBody body, void* closure) {
  return tessel::runtime::ThreadPool::Global().ParallelFor(extent, body, closure);
}

void tessel_set_num_threads(int32_t num_threads) {
  tessel::runtime::ThreadPool::Global().SetNumThreads(num_threads);
}

int32_t tessel_get_num_threads(void) { return tessel::runtime::ThreadPool::Global().num_threads(); }

}  // extern "C"
