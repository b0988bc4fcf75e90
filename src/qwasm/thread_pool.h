// The thread pool behind every parallel loop: one process-wide pool of worker
// threads, started once (start_threads, from init({ numThreads }) in the
// threaded build), and parallel_for, which hands out task indices to the
// caller and the workers. Work is split into tasks by the caller (output tiles,
// rows, element ranges) independently of the thread count, and every task
// writes its own outputs, so results are bit-identical for every thread count.
// Builds without QWASM_THREADS (the single-thread wasm) have no workers:
// parallel_for runs every task on the calling thread.
// docs/architecture.md ("Threads") describes the partitioning.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "qwasm/status.h"

namespace qwasm {

// Most threads the pool will run (caller + workers).
constexpr size_t kMaxThreads = 64;

// Starts the workers so that `threads` threads (the caller included) can run
// parallel loops; at most once per process (a second call with another count
// is an Error). A build without threads refuses threads > 1.
Status start_threads(size_t threads);

// Threads started: 1 + workers.
size_t max_threads();

// Threads each parallel loop uses, 1..max_threads() (default: all started).
Status set_num_threads(size_t threads);
size_t num_threads();

// Tasks each thread ran in the last parallel loop that used more than one
// thread (index 0: the calling thread), for measuring the balance.
std::vector<int64_t> last_loop_shares();

namespace pool_internal {
using TaskFn = void (*)(void* ctx, int64_t task);
void run(int64_t tasks, TaskFn fn, void* ctx);
}  // namespace pool_internal

// Runs body(task) for every task in [0, tasks), on up to num_threads()
// threads; returns when all have finished. Tasks run in no particular order
// and on no particular thread, so each must touch only its own outputs. A
// parallel_for inside a task runs on the thread that called it.
template <typename Body>
void parallel_for(int64_t tasks, Body&& body) {
  if (tasks <= 0) return;
  auto trampoline = [](void* ctx, int64_t task) { (*static_cast<Body*>(ctx))(task); };
  pool_internal::run(tasks, trampoline, &body);
}

// Tasks for `items` units of work of which one task should hold at least
// `min_per_task`: how many tasks, and how many items each, so that small
// calls stay on one thread and large ones give every thread several tasks.
struct Split {
  int64_t tasks, per_task;
};
constexpr int64_t kMaxSplitTasks = 256;  // split_work never makes more tasks
// `align`: items per task are a multiple of it (e.g. so that tasks writing
// byte planes start on a new cache line: no two threads share a line).
Split split_work(int64_t items, int64_t min_per_task, int64_t align = 1);

// Items per task so that a task does at least `min_work`, each item doing
// `work_per_item` (both in any unit: values, bytes, multiply-adds).
inline int64_t items_for_work(int64_t min_work, int64_t work_per_item) {
  return std::max<int64_t>(1, min_work / std::max<int64_t>(1, work_per_item));
}

// Runs body(begin, end) over [0, items) in the ranges split_work makes.
template <typename Body>
void parallel_for_ranges(int64_t items, int64_t min_per_task, Body&& body, int64_t align = 1) {
  const Split split = split_work(items, min_per_task, align);
  parallel_for(split.tasks, [&](int64_t task) {
    const int64_t begin = task * split.per_task;
    body(begin, std::min(items, begin + split.per_task));
  });
}

// The same for a body that can fail (returns a Status): the first failure,
// in range order, or Ok.
template <typename Body>
Status parallel_for_ranges_status(int64_t items, int64_t min_per_task, Body&& body, int64_t align = 1) {
  const Split split = split_work(items, min_per_task, align);
  Status statuses[kMaxSplitTasks];
  parallel_for(split.tasks, [&](int64_t task) {
    const int64_t begin = task * split.per_task;
    statuses[task] = body(begin, std::min(items, begin + split.per_task));
  });
  for (int64_t t = 0; t < split.tasks; ++t) QWASM_RETURN_IF_ERROR(statuses[t]);
  return Status::Ok();
}

namespace testing {
// Tests: split_work ignores min_per_task (tiny shapes then make many tasks),
// so that small test cases exercise the threaded partitioning.
void set_fine_grained_tasks(bool on);
}  // namespace testing

}  // namespace qwasm
