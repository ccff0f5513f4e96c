#pragma once
// Hot loops compiled for AVX-512 and AVX2 beside the x86-64 baseline, the best picked at load
// time (GCC target_clones, an ifunc): portable binaries that still use the machine's vectors.
// Off under the sanitizers and on other compilers or architectures.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define GEOATTN_SIMD_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define GEOATTN_SIMD_CLONES
#endif
