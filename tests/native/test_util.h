// Helpers shared by the native tests: a seeded generator whose seed is printed
// and can be replayed with QWASM_SEED=<n>.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <vector>

#include "qwasm/thread_pool.h"

namespace qwasm_test {

inline uint64_t test_seed() {
  static const uint64_t seed = [] {
    const char* env = std::getenv("QWASM_SEED");
    const uint64_t s = env ? std::strtoull(env, nullptr, 10) : std::random_device{}();
    std::cout << "[qwasm] seed " << s << " (replay with QWASM_SEED=" << s << ")\n";
    return s;
  }();
  return seed;
}

inline std::mt19937_64& rng() {
  static std::mt19937_64 g(test_seed());
  return g;
}

// The thread counts a threaded test runs with: 1, 2, 3 and 4 where the build
// has threads (native), else 1 (the wasm build of this suite). The first call
// starts the pool and makes tasks fine-grained, so that small cases are split
// among the threads as large ones are.
inline std::vector<size_t> thread_counts() {
  static const std::vector<size_t> counts = [] {
    if (!qwasm::start_threads(4).ok()) return std::vector<size_t>{1};
    qwasm::testing::set_fine_grained_tasks(true);
    return std::vector<size_t>{1, 2, 3, 4};
  }();
  return counts;
}

}  // namespace qwasm_test
