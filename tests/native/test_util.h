// Helpers shared by the native tests: a seeded generator whose seed is printed
// and can be replayed with QWASM_SEED=<n>.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>

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

}  // namespace qwasm_test
