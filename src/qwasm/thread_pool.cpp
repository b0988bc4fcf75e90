// The pool: each worker sleeps on its own condition variable until it is
// assigned a loop (only the workers a loop uses are), then takes task indices
// from one atomic counter until none are left, as the caller does; the caller
// withdraws the assignments of workers that have not woken by the time the
// tasks are all taken, and returns once the running ones have left the loop. Dynamic hand-out keeps threads busy when a
// task's cost varies (edge tiles, a core shared with another process).
#include "qwasm/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <string>

#ifdef QWASM_THREADS
#include <pthread.h>

#include <condition_variable>
#include <mutex>
#endif

namespace qwasm {

namespace {
std::atomic<bool> g_fine_grained_tasks{false};  // tests only
}  // namespace

void testing::set_fine_grained_tasks(bool on) { g_fine_grained_tasks.store(on); }

Split split_work(int64_t items, int64_t min_per_task, int64_t align) {
  assert(items >= 0 && min_per_task >= 1 && align >= 1);
  if (g_fine_grained_tasks.load(std::memory_order_relaxed)) min_per_task = 1;
  // Up to 256 tasks: several per thread for 16 threads, independent of how
  // many threads run them.
  int64_t per_task = std::max(min_per_task, (items + kMaxSplitTasks - 1) / kMaxSplitTasks);
  per_task = (per_task + align - 1) / align * align;
  return {items == 0 ? 0 : (items + per_task - 1) / per_task, per_task};
}

#ifdef QWASM_THREADS

namespace {

class Pool {
 public:
  ~Pool() { stop(); }

  Status start(size_t threads) {
    std::lock_guard<std::mutex> lock(start_mutex_);
    if (threads < 1 || threads > kMaxThreads) {
      return Status::RangeError("numThreads must be 1.." + std::to_string(kMaxThreads) + ", got " +
                                std::to_string(threads));
    }
    if (started_) {
      if (threads == workers_.size() + 1) return Status::Ok();
      return Status::Error("the thread pool already has " + std::to_string(workers_.size() + 1) +
                           " threads; it starts once per process");
    }
    workers_.reserve(threads - 1);
    for (size_t i = 0; i + 1 < threads; ++i) {
      pthread_t t;
      Worker* w = new Worker{this, i + 1};
      if (pthread_create(&t, nullptr, &Pool::worker_main, w) != 0) {
        delete w;
        stop();
        return Status::Error("could not start thread " + std::to_string(i + 1) + " of " + std::to_string(threads));
      }
      workers_.push_back(t);
    }
    started_ = true;
    in_use_ = threads;
    // One loop now, waited for by every worker (none withdrawn), so that
    // whatever a thread allocates the first time it waits and runs a loop
    // (its runtime's lazy per-thread state) is allocated here, not inside the
    // user's first call, where it would look like a leak.
    run(
        static_cast<int64_t>(threads), [](void*, int64_t) {}, nullptr, /*wait_for_all=*/true);
    return Status::Ok();
  }

  size_t max_threads() const { return workers_.size() + 1; }
  size_t in_use() const { return in_use_.load(); }
  Status set_in_use(size_t n) {
    if (n < 1 || n > max_threads()) {
      return Status::RangeError("numThreads must be 1.." + std::to_string(max_threads()) +
                                " (the threads started by init), got " + std::to_string(n));
    }
    in_use_ = n;
    return Status::Ok();
  }

  std::vector<int64_t> shares() {
    std::lock_guard<std::mutex> lock(mutex_);
    return last_shares_;
  }

  void run(int64_t tasks, pool_internal::TaskFn fn, void* ctx, bool wait_for_all = false) {
    const size_t helpers = std::min<int64_t>(static_cast<int64_t>(in_use_.load()) - 1, tasks - 1);
    // One loop at a time: a loop started inside a task, or while another
    // thread's loop runs, runs on its own thread.
    if (helpers == 0 || busy_.exchange(true)) {
      for (int64_t t = 0; t < tasks; ++t) fn(ctx, t);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      fn_ = fn;
      ctx_ = ctx;
      tasks_ = tasks;
      next_.store(0, std::memory_order_relaxed);
      std::fill(shares_, shares_ + kMaxThreads, 0);
      unfinished_.store(helpers, std::memory_order_relaxed);
      // Only the workers this loop uses are assigned (and woken): with
      // setNumThreads(k) below the pool's size the others stay asleep.
      for (size_t slot = 1; slot <= helpers; ++slot) state_[slot].store(kAssigned, std::memory_order_release);
    }
    for (size_t slot = 1; slot <= helpers; ++slot) wake_[slot].notify_one();
    work(0);
    // The tasks are all taken: a worker that has not woken up yet is not
    // waited for (a wake-up can take longer than a short loop); its
    // assignment is withdrawn. Only workers already running are waited for.
    for (size_t slot = 1; slot <= helpers && !wait_for_all; ++slot) {
      int expected = kAssigned;
      if (state_[slot].compare_exchange_strong(expected, kIdle, std::memory_order_acq_rel)) {
        unfinished_.fetch_sub(1, std::memory_order_acq_rel);
      }
    }
    spin_until([this] { return unfinished_.load(std::memory_order_acquire) == 0; });
    {
      std::unique_lock<std::mutex> lock(mutex_);
      done_.wait(lock, [this] { return unfinished_.load(std::memory_order_acquire) == 0; });
      last_shares_.assign(shares_, shares_ + helpers + 1);
    }
    busy_.store(false);
  }

 private:
  struct Worker {
    Pool* pool;
    size_t slot;
  };

  static void* worker_main(void* arg) {
    Worker* w = static_cast<Worker*>(arg);
    w->pool->worker_loop(w->slot);
    delete w;
    return nullptr;
  }

  // Spins briefly before a thread sleeps: a model's layers (and a layer's
  // input conversion and its tiles) follow each other within microseconds,
  // and a futex wake-up costs far more than that. The spin is bounded, so an
  // idle pool sleeps.
  template <typename Ready>
  static void spin_until(Ready ready) {
    for (int i = 0; i < kSpins && !ready(); ++i) {
    }
  }

  // A worker runs the loops it is assigned: it claims the assignment
  // (assigned -> running) unless the caller withdrew it first (the loop
  // finished before this worker woke), runs tasks, and goes back to idle.
  void worker_loop(size_t slot) {
    for (;;) {
      spin_until([&] { return state_[slot].load(std::memory_order_acquire) == kAssigned; });
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_[slot].wait(lock, [&] { return stopping_ || state_[slot].load(std::memory_order_acquire) == kAssigned; });
        if (stopping_) return;
      }
      int expected = kAssigned;
      if (!state_[slot].compare_exchange_strong(expected, kRunning, std::memory_order_acq_rel)) continue;
      work(slot);
      state_[slot].store(kIdle, std::memory_order_release);
      if (unfinished_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lock(mutex_);  // the caller may be waiting on done_
        done_.notify_one();
      }
    }
  }

  void work(size_t slot) {
    int64_t done = 0;
    for (int64_t t; (t = next_.fetch_add(1, std::memory_order_relaxed)) < tasks_; ++done) fn_(ctx_, t);
    shares_[slot] = done;  // each slot written by its thread only; read after the loop
  }

  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    for (auto& w : wake_) w.notify_all();
    for (pthread_t t : workers_) pthread_join(t, nullptr);
    workers_.clear();
    stopping_ = false;
  }

  std::mutex start_mutex_;
  bool started_ = false;
  std::vector<pthread_t> workers_;
  std::atomic<size_t> in_use_{1};
  std::atomic<bool> busy_{false};

  std::mutex mutex_;
  std::condition_variable wake_[kMaxThreads], done_;
  static constexpr int kSpins = 1 << 12;
  enum : int { kIdle = 0, kAssigned = 1, kRunning = 2 };
  std::atomic<int> state_[kMaxThreads] = {};  // per worker slot
  std::atomic<size_t> unfinished_{0};         // assigned workers not yet done or withdrawn
  bool stopping_ = false;
  pool_internal::TaskFn fn_ = nullptr;
  void* ctx_ = nullptr;
  int64_t tasks_ = 0;
  std::atomic<int64_t> next_{0};
  int64_t shares_[kMaxThreads] = {};
  std::vector<int64_t> last_shares_;
};

Pool& pool() {
  static Pool p;
  return p;
}

}  // namespace

Status start_threads(size_t threads) { return pool().start(threads); }
size_t max_threads() { return pool().max_threads(); }
Status set_num_threads(size_t threads) { return pool().set_in_use(threads); }
size_t num_threads() { return pool().in_use(); }
std::vector<int64_t> last_loop_shares() { return pool().shares(); }

void pool_internal::run(int64_t tasks, TaskFn fn, void* ctx) { pool().run(tasks, fn, ctx); }

#else  // no threads in this build: every loop runs on the caller

Status start_threads(size_t threads) {
  if (threads < 1 || threads > kMaxThreads) {
    return Status::RangeError("numThreads must be 1.." + std::to_string(kMaxThreads) + ", got " +
                              std::to_string(threads));
  }
  if (threads == 1) return Status::Ok();
  return Status::Error("this build of qwasm has no threads; numThreads must be 1, got " + std::to_string(threads));
}
size_t max_threads() { return 1; }
Status set_num_threads(size_t threads) {
  if (threads == 1) return Status::Ok();
  return Status::RangeError("numThreads must be 1 (this build has no threads), got " + std::to_string(threads));
}
size_t num_threads() { return 1; }
std::vector<int64_t> last_loop_shares() { return {}; }

void pool_internal::run(int64_t tasks, TaskFn fn, void* ctx) {
  for (int64_t t = 0; t < tasks; ++t) fn(ctx, t);
}

#endif

}  // namespace qwasm
