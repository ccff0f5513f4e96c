// Linked into every test program (tests/CMakeLists.txt: geoattn_test): a test program that
// crashes on a machine nobody can log into (a segmentation fault inside LibTorch on the GPU
// machine) says where. On SIGSEGV, SIGBUS, SIGFPE, SIGILL or SIGABRT it writes the signal's name
// and the stack (glibc's backtrace; the test program's own function names, as it exports them:
// ENABLE_EXPORTS) to stderr, then dies of the same signal. Standard output goes line by line, so
// the last "[ RUN ]" line names the test. A handler already there (a sanitizer's) is kept.
#include <execinfo.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

namespace {

// The signals that end a test program by a fault, each with its name.
struct Fatal {
  int sig;
  const char* name;
};
constexpr Fatal kFatal[] = {{SIGSEGV, "SIGSEGV"}, {SIGBUS, "SIGBUS"}, {SIGFPE, "SIGFPE"}, {SIGILL, "SIGILL"}, {SIGABRT, "SIGABRT"}};

void put(const char* text) {
  if (::write(STDERR_FILENO, text, std::strlen(text)) < 0) return;  // nothing else to do in a handler
}

extern "C" void write_stack_and_die(int sig) {
  put("\n*** crash: ");
  for (const Fatal& f : kFatal)
    if (f.sig == sig) put(f.name);
  put(", the stack:\n");
  void* frames[64];
  ::backtrace_symbols_fd(frames, ::backtrace(frames, 64), STDERR_FILENO);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

struct Install {
  Install() {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    void* warm[1];
    ::backtrace(warm, 1);  // loads libgcc's unwinder now, not inside the handler
    for (const Fatal& f : kFatal) {
      struct sigaction now {};
      if (::sigaction(f.sig, nullptr, &now) == 0 && now.sa_handler == SIG_DFL && !(now.sa_flags & SA_SIGINFO))
        ::signal(f.sig, write_stack_and_die);
    }
  }
} install;

}  // namespace
