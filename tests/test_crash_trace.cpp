// A test program that crashes says where (tests/crash_trace.cpp, linked into every one): the
// signal's name, then the stack on stderr, its frames named (testing::Test::Run, as the program
// exports its symbols); where a sanitizer has the signal first, its report instead.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>

TEST(CrashTrace, ACrashNamesTheSignalAndTheStack) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(std::raise(SIGSEGV), "crash: SIGSEGV, the stack:.*_ZN7testing4Test3RunEv|AddressSanitizer");
  EXPECT_DEATH(std::abort(), "crash: SIGABRT, the stack:.*_ZN7testing4Test3RunEv");
}
