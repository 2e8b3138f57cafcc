/* The parse-time weight table's records and its row sums (declared for Cython in
   maltpy/search/weights.pxd).

   A slot of the open-addressing table holds a feature key and where its weights are: a sparse
   row's (class, weight) entries, or a dense row of `stride` floats (the classes rounded up to a
   multiple of 8, the rest zero).

   maltpy_add_rows adds the rows of a decision's features to its scores in the features' order,
   class by class, as a loop over the rows would: the same float sums bit for bit. It keeps up
   to MP_TILE x 8 classes of the scores (MP_TILE_WIDE x 8 where the processor has AVX-512VL) in
   vector registers while it adds the dense rows (most
   of a rich model's look-ups: the rows of frequent feature values), so that a dense row costs
   one vector add per 8 classes and no store; a sparse row's entries are added through memory,
   the registers written out before it and read back after it (once for consecutive ones). It
   adds the 8-class blocks that hold the permissible classes (from the first to the last; arc-
   eager's left arcs are half of them, and impermissible when the stack's top has its head):
   the scores of the other classes are left unspecified, and `scores` has room for `stride`
   floats. */
#ifndef MALTPY_TABLE_H
#define MALTPY_TABLE_H

#include <stdint.h>
#include <string.h>
#include "maltpy/simd.h"

#define MP_SLOT_EMPTY (-2)
#define MP_SLOT_DENSE (-1)

typedef struct {
    uint64_t key;
    int32_t start;   /* sparse row: its first entry; dense row: its index among the dense rows */
    int32_t count;   /* sparse row: its entries; MP_SLOT_DENSE; MP_SLOT_EMPTY */
} mp_slot;

typedef struct {
    int32_t cls;
    float w;
} mp_entry;

#if defined(__GNUC__) || defined(__clang__)

/* 8 floats; loaded and stored through memcpy, which compiles to one unaligned vector move */
typedef float mp_v8 __attribute__((vector_size(32)));
#define MP_TILE 14        /* registers of accumulated scores: 112 classes (16 on x86-64 with AVX2) */
#define MP_TILE_WIDE 16   /* with AVX-512VL's 32 vector registers: 128 classes */

/* macros, not functions: a vector passed by value outside AVX2 code draws an ABI warning */
#define MP_LOAD8(v, p) memcpy(&(v), (p), sizeof(mp_v8))
#define MP_STORE8(p, v) memcpy((p), &(v), sizeof(mp_v8))

/* classes [base, base + 8 * nv) of the scores, nv <= MP_TILE (MP_TILE_WIDE in the AVX-512
   version): the unrolled loops over j keep acc[j] in registers (each j a constant); inlined with nv a constant, so that the j < nv tests
   vanish */
static inline __attribute__((always_inline)) void
mp_add_tile(float* scores, int base, const int nv, const mp_slot* const* found, int nk, const float* dense,
            int stride, const mp_entry* entries, int tiles) {
    mp_v8 acc[MP_TILE_WIDE];
    int i, j, k, in_memory = 0;
    unsigned hi = (unsigned)(8 * nv);
#pragma GCC unroll 16
    for (j = 0; j < MP_TILE_WIDE; j++)
        if (j < nv) MP_LOAD8(acc[j], scores + base + 8 * j);
    for (i = 0; i < nk; i++) {
        const mp_slot* s = found[i];
        if (s == NULL)
            continue;
        if (s->count == MP_SLOT_DENSE) {
            const float* w = dense + (int64_t)s->start * stride + base;
            if (in_memory) {
#pragma GCC unroll 16
                for (j = 0; j < MP_TILE_WIDE; j++)
                    if (j < nv) MP_LOAD8(acc[j], scores + base + 8 * j);
                in_memory = 0;
            }
#pragma GCC unroll 16
            for (j = 0; j < MP_TILE_WIDE; j++)
                if (j < nv) {
                    mp_v8 row;
                    MP_LOAD8(row, w + 8 * j);
                    acc[j] += row;
                }
        } else {
            const mp_entry* e = entries + s->start;
            if (!in_memory) {
#pragma GCC unroll 16
                for (j = 0; j < MP_TILE_WIDE; j++)
                    if (j < nv) MP_STORE8(scores + base + 8 * j, acc[j]);
                in_memory = 1;
            }
            if (tiles == 1) {
                for (k = 0; k < s->count; k++)
                    scores[e[k].cls] += e[k].w;
            } else {
                for (k = 0; k < s->count; k++)
                    if ((unsigned)(e[k].cls - base) < hi)
                        scores[e[k].cls] += e[k].w;
            }
        }
    }
    if (!in_memory) {
#pragma GCC unroll 16
        for (j = 0; j < MP_TILE_WIDE; j++)
            if (j < nv) MP_STORE8(scores + base + 8 * j, acc[j]);
    }
}

#define MP_TILE_CASE(n) case n: mp_add_tile(scores, base, n, found, nk, dense, stride, entries, tiles); break;
#define MP_TILE_CASES_TO_14 \
    MP_TILE_CASE(1) MP_TILE_CASE(2) MP_TILE_CASE(3) MP_TILE_CASE(4) MP_TILE_CASE(5) MP_TILE_CASE(6) \
    MP_TILE_CASE(7) MP_TILE_CASE(8) MP_TILE_CASE(9) MP_TILE_CASE(10) MP_TILE_CASE(11) MP_TILE_CASE(12) \
    MP_TILE_CASE(13) MP_TILE_CASE(14)

MALTPY_CLONES
static void maltpy_add_rows_tile(float* scores, int base, int nv, const mp_slot* const* found, int nk,
                                 const float* dense, int stride, const mp_entry* entries, int tiles) {
    switch (nv) {
        MP_TILE_CASES_TO_14
    }
}

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define MP_HAVE_WIDE 1
/* The same adds with AVX-512VL's 32 vector registers: up to 16 x 8 classes held at once, so that
   a model of up to 128 classes (Alpino's encoded labels: 126) is summed in one pass over its rows
   instead of two (whole-process figures in docs/discontinuous.md) */
__attribute__((target("avx2,avx512f,avx512vl")))
static void maltpy_add_rows_tile_wide(float* scores, int base, int nv, const mp_slot* const* found, int nk,
                                      const float* dense, int stride, const mp_entry* entries, int tiles) {
    switch (nv) {
        MP_TILE_CASES_TO_14 MP_TILE_CASE(15) MP_TILE_CASE(16)
    }
}

/* whether to run the wide version: -1 until asked, then whether the processor can; each compiled
   module has its own (every thread finds the same answer: a benign race) */
static int maltpy_wide = -1;

static inline int maltpy_wide_tiles(void) {
    if (maltpy_wide < 0)
        maltpy_wide = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
    return maltpy_wide;
}
#endif

/* tests: 0 runs the narrow version where the wide one would run; 1 the wide one where the
   processor has it; returns whether the wide one now runs */
static inline int maltpy_set_wide_tiles(int wide) {
#ifdef MP_HAVE_WIDE
    maltpy_wide = -1;
    if (wide)
        return maltpy_wide_tiles();
    maltpy_wide = 0;
#endif
    return 0;
}

/* scores[c] += the weight of class c in each of the rows found[0..nk) (NULL: no row), in that
   order, for every class c in [lo, hi) (0 <= lo < hi <= stride); other classes may change too */
static inline void maltpy_add_rows(float* scores, const mp_slot* const* found, int nk, const float* dense,
                                   int stride, const mp_entry* entries, int lo, int hi) {
    int first = lo & ~7, end = (hi + 7) & ~7, tile = MP_TILE;
#ifdef MP_HAVE_WIDE
    if (maltpy_wide_tiles())
        tile = MP_TILE_WIDE;
#endif
    int tiles = (end - first + 8 * tile - 1) / (8 * tile);
    for (int base = first; base < end; base += 8 * tile) {
        int nv = (end - base) / 8;
        nv = nv < tile ? nv : tile;
#ifdef MP_HAVE_WIDE
        if (tile == MP_TILE_WIDE) {
            maltpy_add_rows_tile_wide(scores, base, nv, found, nk, dense, stride, entries, tiles);
            continue;
        }
#endif
        maltpy_add_rows_tile(scores, base, nv, found, nk, dense, stride, entries, tiles);
    }
}

#else   /* compilers without vector extensions: the same sums, a row at a time */

static inline int maltpy_set_wide_tiles(int wide) {
    (void)wide;
    return 0;
}

static inline void maltpy_add_rows(float* scores, const mp_slot* const* found, int nk, const float* dense,
                                   int stride, const mp_entry* entries, int lo, int hi) {
    int i, c, k;
    for (i = 0; i < nk; i++) {
        const mp_slot* s = found[i];
        if (s == NULL)
            continue;
        if (s->count == MP_SLOT_DENSE) {
            const float* w = dense + (int64_t)s->start * stride;
            for (c = lo; c < hi; c++)
                scores[c] += w[c];
        } else {
            const mp_entry* e = entries + s->start;
            for (k = 0; k < s->count; k++)
                scores[e[k].cls] += e[k].w;
        }
    }
}

#endif

#endif
