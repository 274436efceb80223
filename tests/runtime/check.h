/* check.h: the assertions of the C runtime's tests: plain C99 and no test framework, so
 * that the tests build with any C compiler the runtime must support. A test program
 * defines the two counters once (CHECK_DEFINE_COUNTERS at file scope) and returns
 * check_report() from main: it prints "N passed, N failed" and fails if anything did. */
#ifndef AOTC_TESTS_RUNTIME_CHECK_H_
#define AOTC_TESTS_RUNTIME_CHECK_H_

#include <stdio.h>

extern int check_passed;
extern int check_failed;

#define CHECK_DEFINE_COUNTERS \
  int check_passed = 0;       \
  int check_failed = 0

#define CHECK(cond)                                                   \
  do {                                                                \
    if (cond) {                                                       \
      ++check_passed;                                                 \
    } else {                                                          \
      ++check_failed;                                                 \
      printf("%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                 \
  } while (0)

#define CHECK_EQ_INT(expected, actual)                                              \
  do {                                                                              \
    long long e_ = (long long)(expected);                                           \
    long long a_ = (long long)(actual);                                             \
    if (e_ == a_) {                                                                 \
      ++check_passed;                                                               \
    } else {                                                                        \
      ++check_failed;                                                               \
      printf("%s:%d: CHECK failed: %s == %s (%lld vs %lld)\n", __FILE__, __LINE__, \
             #expected, #actual, e_, a_);                                           \
    }                                                                               \
  } while (0)

static inline int check_report(void) {
  printf("%d passed, %d failed\n", check_passed, check_failed);
  return check_failed == 0 ? 0 : 1;
}

#endif /* AOTC_TESTS_RUNTIME_CHECK_H_ */
