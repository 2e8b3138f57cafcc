/* Compiler hints shared by the hot C loops (the parse loop, the LIBLINEAR-style solver).

   MALTPY_CLONES: compile a function twice where the compiler can pick the version at load
   time (GCC's ifunc on x86-64 Linux): AVX2 and the baseline. A loop of independent
   element-wise adds gives the same sums in either version.
   MALTPY_NOINLINE: keep a function out of its caller, where GCC may fail to vectorise it.
   MALTPY_PREFETCH(p): ask for the cache line of p ahead of its use. */
#ifndef MALTPY_SIMD_H
#define MALTPY_SIMD_H

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define MALTPY_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define MALTPY_CLONES
#endif

#if defined(__GNUC__) || defined(__clang__)
#define MALTPY_NOINLINE __attribute__((noinline))
#define MALTPY_PREFETCH(p) __builtin_prefetch((const void*)(p))
#else
#define MALTPY_NOINLINE
#define MALTPY_PREFETCH(p) ((void)0)
#endif

#endif
