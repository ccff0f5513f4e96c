// The kernels compiled for the avx512 level (src/CMakeLists.txt gives this file its -march).
#define GEOATTN_KERNEL_LEVEL avx512
#include "core_kernels_impl.h"
