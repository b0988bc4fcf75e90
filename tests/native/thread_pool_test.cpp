// The thread pool: every task runs exactly once at every thread count, a loop
// inside a task runs on its thread, the per-thread shares add up, and the
// thread count is validated.
#include <gtest/gtest.h>

#include <atomic>
#include <numeric>
#include <vector>

#include "qwasm/thread_pool.h"
#include "test_util.h"

using namespace qwasm;

TEST(ThreadPool, EveryTaskRunsExactlyOnceAtEveryThreadCount) {
  for (size_t threads : qwasm_test::thread_counts()) {
    ASSERT_TRUE(set_num_threads(threads).ok());
    EXPECT_EQ(num_threads(), threads);
    for (int64_t tasks : {0, 1, 2, 3, 7, 64, 1000}) {
      std::vector<std::atomic<int>> runs(static_cast<size_t>(tasks));
      parallel_for(tasks, [&](int64_t t) { runs[static_cast<size_t>(t)].fetch_add(1); });
      for (int64_t t = 0; t < tasks; ++t) ASSERT_EQ(runs[static_cast<size_t>(t)].load(), 1) << "task " << t;
      if (threads > 1 && tasks > 1) {
        const std::vector<int64_t> shares = last_loop_shares();
        EXPECT_EQ(shares.size(), std::min<size_t>(threads, static_cast<size_t>(tasks)));
        EXPECT_EQ(std::accumulate(shares.begin(), shares.end(), int64_t{0}), tasks);
      }
    }
  }
}

TEST(ThreadPool, ALoopInsideATaskRunsOnItsThread) {
  const size_t threads = qwasm_test::thread_counts().back();
  ASSERT_TRUE(set_num_threads(threads).ok());
  std::vector<std::atomic<int>> runs(16 * 16);
  parallel_for(16, [&](int64_t outer) {
    parallel_for(16, [&](int64_t inner) { runs[static_cast<size_t>(outer * 16 + inner)].fetch_add(1); });
  });
  for (auto& r : runs) ASSERT_EQ(r.load(), 1);
}

TEST(ThreadPool, ThreadCountsAreValidated) {
  const size_t max = qwasm_test::thread_counts().back();
  EXPECT_EQ(max_threads(), max);
  EXPECT_EQ(set_num_threads(0).code, StatusCode::kRangeError);
  EXPECT_EQ(set_num_threads(max + 1).code, StatusCode::kRangeError);
  EXPECT_TRUE(start_threads(max).ok());  // the same count again is fine
  if (max > 1) {
    EXPECT_NE(start_threads(max + 1).message.find("starts once per process"), std::string::npos);
  }
  EXPECT_EQ(start_threads(0).code, StatusCode::kRangeError);
  EXPECT_EQ(start_threads(kMaxThreads + 1).code, StatusCode::kRangeError);
}

TEST(ThreadPool, SplitWorkCoversTheItemsInAtMost256Tasks) {
  qwasm::testing::set_fine_grained_tasks(false);
  for (int64_t items : {0, 1, 5, 255, 256, 257, 100000}) {
    for (int64_t min_per : {1, 3, 1000}) {
      const Split s = split_work(items, min_per);
      EXPECT_LE(s.tasks, kMaxSplitTasks);
      EXPECT_GE(s.tasks * s.per_task, items);
      if (items > 0) {
        EXPECT_LT((s.tasks - 1) * s.per_task, items) << items << " " << min_per;
        EXPECT_GE(s.per_task, min_per);
      }
    }
  }
  EXPECT_EQ(split_work(100, 1000).tasks, 1);
  qwasm::testing::set_fine_grained_tasks(true);
  EXPECT_EQ(split_work(100, 1000).tasks, 100);
  qwasm::testing::set_fine_grained_tasks(qwasm_test::thread_counts().size() > 1);
}
