// The kernels compiled for the avx2 level (src/CMakeLists.txt gives this file its -march).
#define GEOATTN_KERNEL_LEVEL avx2
#include "core_kernels_impl.h"
