#include "geoattn/util/blas_threads.h"

#include <dlfcn.h>

namespace geoattn {

namespace {
// OpenBLAS's own controls, found at run time: no link-time dependency on OpenBLAS.
struct OpenBlas {
  void (*set)(int) = nullptr;
  int (*get)() = nullptr;
};
const OpenBlas& openblas() {
  static const OpenBlas api = [] {
    OpenBlas a;
    a.set = reinterpret_cast<void (*)(int)>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
    a.get = reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
    if (!a.set || !a.get) a = {};
    return a;
  }();
  return api;
}
}  // namespace

SingleThreadedBlas::SingleThreadedBlas() {
  if (const auto& api = openblas(); api.set) {
    saved_ = api.get();
    if (saved_ != 1) api.set(1);
  }
}

SingleThreadedBlas::~SingleThreadedBlas() {
  if (const auto& api = openblas(); api.set && saved_ > 1) api.set(saved_);
}

}  // namespace geoattn
