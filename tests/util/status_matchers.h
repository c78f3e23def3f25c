// ASSERT_OK / EXPECT_OK: the expression (a Status, a Result<T>, or a
// rocksdb::Status) is OK; on failure the message shows the error.
#ifndef DYNAROCK_TESTS_UTIL_STATUS_MATCHERS_H_
#define DYNAROCK_TESTS_UTIL_STATUS_MATCHERS_H_

#include <gtest/gtest.h>

#include <string>

#include "dynarock/status.h"

namespace dynarock::testing {

inline std::string Describe(const Status& s) { return s.ToString(); }
template <typename T>
std::string Describe(const Result<T>& r) {
  return r.status().ToString();
}
// Anything else with ToString(), e.g. rocksdb::Status.
template <typename S>
std::string Describe(const S& s) {
  return s.ToString();
}

}  // namespace dynarock::testing

#define DYNAROCK_TEST_OK_(expr, check)                                   \
  do {                                                                   \
    const auto& dynarock_ok_value_ = (expr);                             \
    check(dynarock_ok_value_.ok()) << ::dynarock::testing::Describe(dynarock_ok_value_); \
  } while (0)
#define ASSERT_OK(expr) DYNAROCK_TEST_OK_(expr, ASSERT_TRUE)
#define EXPECT_OK(expr) DYNAROCK_TEST_OK_(expr, EXPECT_TRUE)

#endif  // DYNAROCK_TESTS_UTIL_STATUS_MATCHERS_H_
