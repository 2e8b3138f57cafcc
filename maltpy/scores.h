/* The score arithmetic every search and the perceptron share, over "runs": the permissible
   classes as ranges lo[r] .. hi[r]-1 (one run [0, C) for all classes). Declared for Cython in
   maltpy/search/decision.pxd. */
#ifndef MALTPY_SCORES_H
#define MALTPY_SCORES_H

#include <math.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include "maltpy/simd.h"

/* a dense weight row added over the runs of permissible classes; compiled twice where
   the compiler can choose at load time (AVX2 adds 8 floats at once, SSE2 4): the sums
   are the same, element by element */
MALTPY_CLONES
static void maltpy_add_runs(float* scores, const float* w, const int* lo, const int* hi, int n) {
    for (int r = 0; r < n; r++)
        for (int c = lo[r]; c < hi[r]; c++)
            scores[c] += w[c];
}

/* the highest score over the runs (-INFINITY when they are empty), four classes at a time
   where SSE2 is there, in four running maxima of sixteen classes a round: one running maximum
   waits on each comparison in turn (a beam step's maxima over hundreds of classes) */
static float maltpy_max_runs(const float* s, const int* lo, const int* hi, int n) {
    float m = -INFINITY;
    int r, c;
#if defined(__SSE2__)
    __m128 vm = _mm_set1_ps(-INFINITY), v1 = vm, v2 = vm, v3 = vm;
    float part[4];
    for (r = 0; r < n; r++) {
        for (c = lo[r]; c + 16 <= hi[r]; c += 16) {
            vm = _mm_max_ps(vm, _mm_loadu_ps(s + c));
            v1 = _mm_max_ps(v1, _mm_loadu_ps(s + c + 4));
            v2 = _mm_max_ps(v2, _mm_loadu_ps(s + c + 8));
            v3 = _mm_max_ps(v3, _mm_loadu_ps(s + c + 12));
        }
        for (; c + 4 <= hi[r]; c += 4)
            vm = _mm_max_ps(vm, _mm_loadu_ps(s + c));
        for (; c < hi[r]; c++)
            if (s[c] > m) m = s[c];
    }
    vm = _mm_max_ps(_mm_max_ps(vm, v1), _mm_max_ps(v2, v3));
    _mm_storeu_ps(part, vm);
    for (c = 0; c < 4; c++)
        if (part[c] > m) m = part[c];
#else
    for (r = 0; r < n; r++)
        for (c = lo[r]; c < hi[r]; c++)
            if (s[c] > m) m = s[c];
#endif
    return m;
}

/* THE arg-max of every search: the first class of the highest score over the runs of
   permissible classes (what a scan that keeps the first of equal scores finds): the
   maximum (maltpy_max_runs), then the first class that has it, four classes at a time where
   SSE2 is there (every x86-64); without a branch per class that a new maximum mispredicts. A NaN score
   (never from finite weights) cannot make it return a class outside the runs. -1 when the
   runs are empty. */
static int maltpy_argmax_runs(const float* s, const int* lo, const int* hi, int n) {
    float m = maltpy_max_runs(s, lo, hi, n);
    int r, c;
#if defined(__SSE2__)
    __m128 vm = _mm_set1_ps(m);
    for (r = 0; r < n; r++) {
        for (c = lo[r]; c + 4 <= hi[r]; c += 4) {
            int hit = _mm_movemask_ps(_mm_cmpeq_ps(_mm_loadu_ps(s + c), vm));
            if (hit) return c + __builtin_ctz(hit);
        }
        for (; c < hi[r]; c++)
            if (s[c] == m) return c;
    }
#else
    for (r = 0; r < n; r++)
        for (c = lo[r]; c < hi[r]; c++)
            if (s[c] == m) return c;
#endif
    for (r = 0; r < n; r++)
        if (lo[r] < hi[r]) return lo[r];
    return -1;
}

/* the classes over the runs that score at least t, in ascending order, into out (room for
   every class of the runs); how many. Where SSE2 is there, sixteen classes are compared at
   once and passed over on one branch when none reaches t (most of a beam's classes fall below
   its floor), the others four at a time */
static int maltpy_classes_at_least(const float* s, const int* lo, const int* hi, int n, float t, int* out) {
    int r, c, k = 0;
#if defined(__SSE2__)
    __m128 vt = _mm_set1_ps(t);
    for (r = 0; r < n; r++) {
        for (c = lo[r]; c + 16 <= hi[r]; c += 16) {
            __m128 m0 = _mm_cmpge_ps(_mm_loadu_ps(s + c), vt), m1 = _mm_cmpge_ps(_mm_loadu_ps(s + c + 4), vt);
            __m128 m2 = _mm_cmpge_ps(_mm_loadu_ps(s + c + 8), vt), m3 = _mm_cmpge_ps(_mm_loadu_ps(s + c + 12), vt);
            if (!_mm_movemask_ps(_mm_or_ps(_mm_or_ps(m0, m1), _mm_or_ps(m2, m3))))
                continue;
            int hit = _mm_movemask_ps(m0) | (_mm_movemask_ps(m1) << 4) | (_mm_movemask_ps(m2) << 8)
                      | (_mm_movemask_ps(m3) << 12);
            while (hit) {
                out[k++] = c + __builtin_ctz(hit);
                hit &= hit - 1;
            }
        }
        for (; c + 4 <= hi[r]; c += 4) {
            int hit = _mm_movemask_ps(_mm_cmpge_ps(_mm_loadu_ps(s + c), vt));
            while (hit) {
                out[k++] = c + __builtin_ctz(hit);
                hit &= hit - 1;
            }
        }
        for (; c < hi[r]; c++)
            if (s[c] >= t) out[k++] = c;
    }
#else
    for (r = 0; r < n; r++)
        for (c = lo[r]; c < hi[r]; c++)
            if (s[c] >= t) out[k++] = c;
#endif
    return k;
}

/* how many classes over the runs score at least t: a loop the compiler vectorises, compiled
   for AVX2 and the baseline where it can choose at load time (MALTPY_CLONES) */
MALTPY_CLONES
static int maltpy_count_at_least(const float* s, const int* lo, const int* hi, int n, float t) {
    int r, c, count = 0;
    for (r = 0; r < n; r++)
        for (c = lo[r]; c < hi[r]; c++)
            count += s[c] >= t;
    return count;
}

#endif
