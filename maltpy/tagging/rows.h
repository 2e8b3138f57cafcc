/* The tagger's sum of a word's feature rows into its class scores (maltpy/tagging/perceptron.pyx),
   one row after another in the order of the ids, so that every version gives the same sums
   element by element. Compiled twice where the compiler can choose at load time (simd.h:
   AVX2 adds 8 floats at once, the baseline 4). A negative id is a feature the model does not
   have: nothing is added. */
#ifndef MALTPY_TAGGING_ROWS_H
#define MALTPY_TAGGING_ROWS_H

#include <stdint.h>
#include "maltpy/simd.h"

/* every feature has a dense row of nc classes: row ids[q] of rows */
MALTPY_CLONES
static void maltpy_add_dense_rows(float* restrict scores, const float* restrict rows, const int32_t* ids,
                                  int n, int nc) {
    for (int q = 0; q < n; q++) {
        if (ids[q] < 0)
            continue;
        const float* restrict row = rows + (int64_t)ids[q] * nc;
        for (int c = 0; c < nc; c++)
            scores[c] += row[c];
    }
}

/* the features that vote for many classes have a dense row (row_of[f] >= 0: that row of
   heavy), the others their CSR entries (indptr over classes and weights): a group of many
   classes, whose dense rows for every feature would be mostly zeros. row_of NULL: every
   feature by its CSR entries. */
MALTPY_CLONES
static void maltpy_add_mixed_rows(float* restrict scores, const int32_t* ids, int n, const int32_t* row_of,
                                  const float* restrict heavy, int nc, const int64_t* indptr,
                                  const int32_t* classes, const float* weights) {
    for (int q = 0; q < n; q++) {
        int32_t f = ids[q];
        if (f < 0)
            continue;
        int32_t d = row_of != NULL ? row_of[f] : -1;
        if (d >= 0) {
            const float* restrict row = heavy + (int64_t)d * nc;
            for (int c = 0; c < nc; c++)
                scores[c] += row[c];
        } else {
            for (int64_t k = indptr[f]; k < indptr[f + 1]; k++)
                scores[classes[k]] += weights[k];
        }
    }
}

/* training: a feature's dense row of nc float weights added into double class scores (the
   perceptron's sums while it learns), element by element as the scattered entries would */
MALTPY_CLONES
static void maltpy_add_dense_training_row(double* restrict scores, const float* restrict row, int nc) {
    for (int c = 0; c < nc; c++)
        scores[c] += row[c];
}

#endif
