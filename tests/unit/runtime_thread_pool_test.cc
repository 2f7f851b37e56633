// The thread pool behind tessel_parallel_for: every iteration of [0, n) exactly once
// in contiguous chunks, the thread count honoured, nested and concurrent calls run
// serially, errors and their messages reach the caller, workers are reused.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "codegen/runtime/tessel_runtime.h"
#include "codegen/runtime/thread_pool.h"

namespace tessel::runtime {
namespace {

// Restores the thread count a test changed.
class ThreadPoolTest : public ::testing::Test {
 protected:
  void SetUp() override { saved_ = tessel_get_num_threads(); }
  void TearDown() override { tessel_set_num_threads(saved_); }
  int32_t saved_ = 0;
};

struct Coverage {
  std::vector<std::atomic<int>> hits;
  std::mutex mu;
  std::vector<std::pair<int64_t, int64_t>> chunks;
  std::set<std::thread::id> threads;
  explicit Coverage(int64_t n) : hits(static_cast<size_t>(n)) {}
};

int32_t CountBody(int64_t begin, int64_t end, void* closure) {
  auto* c = static_cast<Coverage*>(closure);
  for (int64_t i = begin; i < end; ++i) c->hits[i].fetch_add(1);
  std::lock_guard<std::mutex> lock(c->mu);
  c->chunks.emplace_back(begin, end);
  c->threads.insert(std::this_thread::get_id());
  return 0;
}

TEST_F(ThreadPoolTest, CoversEveryIterationOnceInContiguousChunks) {
  for (int32_t threads : {1, 2, 3, 4, 7}) {
    tessel_set_num_threads(threads);
    for (int64_t n : {1, 2, 3, 5, 7, 8, 64, 1000, 1001}) {
      Coverage c(n);
      ASSERT_EQ(tessel_parallel_for(n, CountBody, &c), 0);
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(c.hits[i].load(), 1) << "n=" << n << " i=" << i;
      int64_t expected_chunks = std::min<int64_t>(threads, n);
      ASSERT_EQ(static_cast<int64_t>(c.chunks.size()), expected_chunks)
          << "threads=" << threads << " n=" << n;
      // Balanced: chunk sizes differ by at most one.
      int64_t lo = n, hi = 0;
      for (auto [b, e] : c.chunks) {
        lo = std::min(lo, e - b);
        hi = std::max(hi, e - b);
      }
      EXPECT_LE(hi - lo, 1);
      EXPECT_LE(static_cast<int64_t>(c.threads.size()), expected_chunks);
    }
  }
}

TEST_F(ThreadPoolTest, UsesTheCallingThreadAndTheRequestedCount) {
  tessel_set_num_threads(4);
  EXPECT_EQ(tessel_get_num_threads(), 4);
  // Each chunk waits until all four have started, so four distinct threads must run them.
  struct Meet {
    std::atomic<int> arrived{0};
    std::mutex mu;
    std::set<std::thread::id> ids;
  } meet;
  auto body = [](int64_t, int64_t, void* closure) -> int32_t {
    auto* m = static_cast<Meet*>(closure);
    m->arrived.fetch_add(1);
    while (m->arrived.load() < 4) std::this_thread::yield();
    std::lock_guard<std::mutex> lock(m->mu);
    m->ids.insert(std::this_thread::get_id());
    return 0;
  };
  ASSERT_EQ(tessel_parallel_for(4, body, &meet), 0);
  EXPECT_EQ(meet.ids.size(), 4u);
  EXPECT_TRUE(meet.ids.count(std::this_thread::get_id())) << "the caller runs a chunk";
  EXPECT_GE(ThreadPool::Global().num_workers_started(), 3);
}

TEST_F(ThreadPoolTest, WorkersAreReusedNotStartedPerCall) {
  tessel_set_num_threads(3);
  Coverage warm(30);
  ASSERT_EQ(tessel_parallel_for(30, CountBody, &warm), 0);
  int32_t started = ThreadPool::Global().num_workers_started();
  for (int i = 0; i < 200; ++i) {
    Coverage c(30);
    ASSERT_EQ(tessel_parallel_for(30, CountBody, &c), 0);
  }
  EXPECT_EQ(ThreadPool::Global().num_workers_started(), started);
}

TEST_F(ThreadPoolTest, NestedCallsRunSeriallyOnTheirThread) {
  tessel_set_num_threads(3);
  struct Outer {
    Coverage inner{3 * 50};
    std::atomic<int> nested_threads_ok{0};
  } outer;
  auto body = [](int64_t begin, int64_t end, void* closure) -> int32_t {
    auto* o = static_cast<Outer*>(closure);
    for (int64_t i = begin; i < end; ++i) {
      struct Inner {
        Coverage* c;
        int64_t base;
        std::thread::id caller;
        bool same_thread = true;
      } in{&o->inner, i * 50, std::this_thread::get_id()};
      auto inner_body = [](int64_t b, int64_t e, void* cl) -> int32_t {
        auto* x = static_cast<Inner*>(cl);
        if (std::this_thread::get_id() != x->caller) x->same_thread = false;
        for (int64_t j = b; j < e; ++j) x->c->hits[x->base + j].fetch_add(1);
        return 0;
      };
      int32_t rc = tessel_parallel_for(50, inner_body, &in);
      if (rc != 0) return rc;
      if (in.same_thread) o->nested_threads_ok.fetch_add(1);
    }
    return 0;
  };
  ASSERT_EQ(tessel_parallel_for(3, body, &outer), 0);
  for (int i = 0; i < 150; ++i) EXPECT_EQ(outer.inner.hits[i].load(), 1);
  EXPECT_EQ(outer.nested_threads_ok.load(), 3);
}

TEST_F(ThreadPoolTest, ConcurrentCallersAllComplete) {
  tessel_set_num_threads(2);
  std::vector<std::thread> callers;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    callers.emplace_back([&] {
      for (int k = 0; k < 50; ++k) {
        Coverage c(97);
        if (tessel_parallel_for(97, CountBody, &c) != 0) wrong.fetch_add(1);
        for (int64_t i = 0; i < 97; ++i) wrong.fetch_add(c.hits[i].load() != 1);
      }
    });
  }
  for (auto& t : callers) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST_F(ThreadPoolTest, ErrorsAndTheirMessagesReachTheCaller) {
  tessel_set_num_threads(4);
  // Only the chunk holding iteration 90 fails: a worker's chunk, not the caller's.
  auto body = [](int64_t begin, int64_t end, void*) -> int32_t {
    if (begin <= 90 && 90 < end) {
      tessel_set_last_error("iteration 90 failed");
      return 7;
    }
    return 0;
  };
  tessel_set_last_error("");
  EXPECT_EQ(tessel_parallel_for(100, body, nullptr), 7);
  EXPECT_STREQ(tessel_last_error(), "iteration 90 failed");
  // And when the caller's own chunk fails.
  auto first = [](int64_t begin, int64_t, void*) -> int32_t {
    return begin == 0 ? tessel_set_last_error("first chunk failed") : 0;
  };
  EXPECT_EQ(tessel_parallel_for(100, first, nullptr), -1);
  EXPECT_STREQ(tessel_last_error(), "first chunk failed");
  // The next call starts clean.
  Coverage c(10);
  EXPECT_EQ(tessel_parallel_for(10, CountBody, &c), 0);
}

TEST_F(ThreadPoolTest, EdgeCases) {
  Coverage c(1);
  EXPECT_EQ(tessel_parallel_for(0, CountBody, &c), 0);
  EXPECT_EQ(tessel_parallel_for(-5, CountBody, &c), 0);
  EXPECT_EQ(c.hits[0].load(), 0);
  EXPECT_EQ(tessel_parallel_for(10, nullptr, nullptr), -1);
  EXPECT_STREQ(tessel_last_error(), "tessel_parallel_for: the body is NULL");
  tessel_set_num_threads(0);
  EXPECT_EQ(tessel_get_num_threads(), ThreadPool::DefaultNumThreads());
  tessel_set_num_threads(1 << 20);
  EXPECT_EQ(tessel_get_num_threads(), ThreadPool::kMaxThreads);
}

// A CallThreads scope sets the count of this thread's loops only, nests, and leaves
// the process-wide setting alone.
TEST_F(ThreadPoolTest, CallThreadsScopeIsPerThread) {
  tessel_set_num_threads(3);
  {
    ThreadPool::CallThreads outer(1);
    EXPECT_EQ(tessel_get_num_threads(), 1);
    Coverage c(100);
    ASSERT_EQ(tessel_parallel_for(100, CountBody, &c), 0);
    EXPECT_EQ(c.chunks.size(), 1u);  // One thread: one chunk.
    {
      ThreadPool::CallThreads inner(2);
      EXPECT_EQ(tessel_get_num_threads(), 2);
      ThreadPool::CallThreads none(0);  // 0: keeps what is open.
      EXPECT_EQ(tessel_get_num_threads(), 2);
    }
    EXPECT_EQ(tessel_get_num_threads(), 1);
    int32_t seen_elsewhere = 0;
    std::thread([&] { seen_elsewhere = tessel_get_num_threads(); }).join();
    EXPECT_EQ(seen_elsewhere, 3);
    EXPECT_EQ(ThreadPool::Global().process_num_threads(), 3);
  }
  EXPECT_EQ(tessel_get_num_threads(), 3);
}

TEST_F(ThreadPoolTest, DefaultComesFromTheEnvironment) {
  const char* old = getenv("TESSEL_NUM_THREADS");
  std::string saved = old ? old : "";
  setenv("TESSEL_NUM_THREADS", "3", 1);
  EXPECT_EQ(ThreadPool::DefaultNumThreads(), 3);
  setenv("TESSEL_NUM_THREADS", "zero", 1);
  EXPECT_EQ(ThreadPool::DefaultNumThreads(), static_cast<int32_t>(sysconf(_SC_NPROCESSORS_ONLN)));
  setenv("TESSEL_NUM_THREADS", "-2", 1);
  EXPECT_EQ(ThreadPool::DefaultNumThreads(), static_cast<int32_t>(sysconf(_SC_NPROCESSORS_ONLN)));
  if (old) {
    setenv("TESSEL_NUM_THREADS", saved.c_str(), 1);
  } else {
    unsetenv("TESSEL_NUM_THREADS");
  }
}

TEST_F(ThreadPoolTest, WorksInAForkedChild) {
  tessel_set_num_threads(3);
  Coverage warm(9);
  ASSERT_EQ(tessel_parallel_for(9, CountBody, &warm), 0);  // Workers exist before the fork.
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    Coverage c(300);
    int rc = tessel_parallel_for(300, CountBody, &c);
    for (int64_t i = 0; i < 300; ++i) rc |= c.hits[i].load() != 1;
    _exit(rc == 0 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

}  // namespace
}  // namespace tessel::runtime
