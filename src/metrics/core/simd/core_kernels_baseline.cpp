// The kernels compiled for the baseline level (src/CMakeLists.txt gives this file its -march).
#define GEOATTN_KERNEL_LEVEL baseline
#include "core_kernels_impl.h"
