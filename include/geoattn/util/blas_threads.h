#pragma once
// OpenBLAS (Debian's libblas.so.3 behind LibTorch 1.13) keeps a thread pool of its own. Code
// that runs BLAS inside at::parallel_for workers must call it single-threaded, or the two pools
// fight over the cores. With another BLAS (MKL in PyTorch's wheels, which detects nested
// parallel regions itself) this does nothing. Pure C++.
namespace geoattn {

class SingleThreadedBlas {
 public:
  SingleThreadedBlas();   // OpenBLAS to 1 thread, if OpenBLAS is in the process
  ~SingleThreadedBlas();  // back to what it was
  SingleThreadedBlas(const SingleThreadedBlas&) = delete;
  SingleThreadedBlas& operator=(const SingleThreadedBlas&) = delete;

 private:
  int saved_ = 0;
};

}  // namespace geoattn
