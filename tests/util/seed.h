// Seeds for randomized tests: random by default, fixed with DYNAROCK_SEED=<n>
// to replay a failure. The seed is always printed.
#ifndef DYNAROCK_TESTS_UTIL_SEED_H_
#define DYNAROCK_TESTS_UTIL_SEED_H_

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>

namespace dynarock::testing {

inline uint64_t TestSeed(const std::string& test_name) {
  uint64_t seed;
  if (const char* fixed = std::getenv("DYNAROCK_SEED")) {
    seed = std::strtoull(fixed, nullptr, 10);
  } else {
    seed = (static_cast<uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
  }
  std::cout << test_name << ": seed " << seed << " (replay with DYNAROCK_SEED=" << seed << ")\n";
  return seed;
}

}  // namespace dynarock::testing

#endif  // DYNAROCK_TESTS_UTIL_SEED_H_
