#pragma once
// GEOATTN_CLONES: a loop function compiled once per x86-64 level (baseline, AVX2, AVX-512), the
// best the CPU has picked at load time (GCC's target_clones); elsewhere the one baseline build.
// Without contractions into FMA (the file's own -ffp-contract=off, or loops of products alone)
// every level gives the baseline's bits.
#if defined(__x86_64__) && defined(__GNUC__)
#define GEOATTN_CLONES __attribute__((target_clones("default", "arch=x86-64-v3", "arch=x86-64-v4")))
#else
#define GEOATTN_CLONES
#endif
