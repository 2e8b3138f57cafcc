/* The Crammer-Singer solver's C parts (maltpy/learners/mcsvm.pyx): the gradient sum, and a
   helper thread that sums gradients ahead of the solver in the passes over every instance.

   Exactness: the solver visits instances one after the other and every update of the weights
   changes what the next instances see, so the helper's sums are guesses that the solver checks.
   Each weight row carries the number of the last update that wrote it (last_mod); the helper
   records the number of the updates it had seen published when it started a sum (stamp). A sum
   is used only if none of the instance's rows was written after its stamp, in which case it
   read exactly the rows the solver would read, added in the same order by the same function:
   the same bits. Anything else (a slot being rewritten, another instance in it, a stale sum)
   makes the solver sum the rows itself. */
#ifndef MALTPY_MCSVM_HELPER_H
#define MALTPY_MCSVM_HELPER_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "maltpy/simd.h"

/* g[c] += w[idx[p]][c] for every feature p of an instance, in order. Each class's sum is
   taken in the same order as one class at a time, so the values are the same; whole rows
   are contiguous, so the compiler vectorises the inner loop (the per-class gather did not).
   Not inlined: inlined into the solver's loop, GCC 12 at -O3 kept it scalar, reloading g
   at every add. Compiled twice where the compiler can choose at load time (AVX2: 4 doubles
   per add, SSE2: 2); the sums are the same, element by element. */
MALTPY_NOINLINE MALTPY_CLONES
static void mcsvm_sum_rows(double* __restrict g, const double* __restrict w,
                           const int32_t* __restrict idx, int64_t start, int64_t end,
                           int64_t stride, int n) {
    for (int64_t p = start; p < end; ++p) {
        const double* __restrict row = w + (int64_t)idx[p] * stride;
        for (int c = 0; c < n; ++c) g[c] += row[c];
    }
}

/* e_i + w . x_i for every class, in class order: 1 for every class but y, 0 for y. */
static inline void mcsvm_gradient(double* g, const double* w, const int32_t* indices,
                                  int64_t start, int64_t end, int64_t stride, int nc, int y) {
    for (int c = 0; c < nc; ++c) g[c] = 1.0;
    g[y] = 0.0;
    mcsvm_sum_rows(g, w, indices, start, end, stride, nc);
}

#if (defined(__GNUC__) || defined(__clang__)) && (defined(__unix__) || defined(__APPLE__))
#define MCSVM_HELPER 1
#include <pthread.h>
#include <sched.h>

#if defined(__x86_64__) || defined(__i386__)
#define MCSVM_PAUSE() __builtin_ia32_pause()
#else
#define MCSVM_PAUSE() ((void)0)
#endif
#define MCSVM_MAX_SPIN 4096     /* pauses the solver waits for a sum in progress (a sum takes ~1 us; a descheduled helper, ms) */
#define MCSVM_SLOTS 64          /* sums kept, by instance id modulo this */
#define MCSVM_FIRST 1           /* the first instance summed ahead: index[active - 2] */
#define MCSVM_LEAD 3            /* instances summed ahead on the queue the solver takes next */
enum { MCSVM_IDLE = 0, MCSVM_FULL = 1, MCSVM_EXIT = 2 };

typedef struct {
    int64_t seq;                /* odd while the helper writes the slot */
    int64_t id;                 /* the instance summed */
    int64_t stamp;              /* updates published when the sum started */
    double* g;
} mcsvm_slot;

typedef struct {
    /* the problem, read only */
    const int64_t* row_lo;      /* instance i's features are indices[row_lo[i] .. row_hi[i]) */
    const int64_t* row_hi;
    const int32_t* indices;
    const int32_t* y;
    const double* w;            /* written by the solver, read by the helper */
    int64_t stride;
    int nc;
    int64_t l;
    const int64_t* index;       /* the solver's visiting order, swapped as it goes */
    /* the solver's state as the helper sees it */
    int64_t pos_s, pos_active;
    int64_t published;          /* updates of the weights so far; the solver alone writes it */
    int64_t working;            /* the instance the helper is summing, or -1 */
    int mode;
    int64_t* last_mod;          /* per feature row: the update that last wrote it */
    mcsvm_slot slots[MCSVM_SLOTS];
    double* g_local;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int64_t used, summed;       /* counters: sums the solver used, sums the helper made */
} mcsvm_helper;

/* No row of instance i written since the stamp. Either thread asks; the solver alone writes
   last_mod, so it sees its own complete values. */
static inline int mcsvm_fresh(mcsvm_helper* h, int64_t i, int64_t stamp) {
    for (int64_t p = h->row_lo[i]; p < h->row_hi[i]; ++p)
        if (__atomic_load_n(&h->last_mod[h->indices[p]], __ATOMIC_RELAXED) > stamp) return 0;
    return 1;
}

/* Sum instance x's gradient and put it in its slot. The solver may be writing rows meanwhile
   (aligned 8-byte values, so each read is some whole value); any such row gets an update
   number above the stamp, so the sum is not used. */
static void mcsvm_helper_sum(mcsvm_helper* h, int64_t x) {
    mcsvm_slot* sl = &h->slots[x % MCSVM_SLOTS];
    __atomic_store_n(&h->working, x, __ATOMIC_RELAXED);
    int64_t stamp = __atomic_load_n(&h->published, __ATOMIC_ACQUIRE);
    mcsvm_gradient(h->g_local, h->w, h->indices, h->row_lo[x], h->row_hi[x], h->stride,
                   h->nc, h->y[x]);
    int64_t v = sl->seq;
    __atomic_store_n(&sl->seq, v + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    __atomic_store_n(&sl->id, x, __ATOMIC_RELAXED);
    __atomic_store_n(&sl->stamp, stamp, __ATOMIC_RELAXED);
    for (int c = 0; c < h->nc; ++c) __atomic_store(&sl->g[c], &h->g_local[c], __ATOMIC_RELAXED);
    __atomic_store_n(&sl->seq, v + 2, __ATOMIC_RELEASE);
    __atomic_store_n(&h->working, -1, __ATOMIC_RELEASE);
    h->summed++;
}

/* A slot holds a sum of instance x still usable (read by the helper, which alone writes). */
static int mcsvm_helper_has(mcsvm_helper* h, int64_t x) {
    mcsvm_slot* sl = &h->slots[x % MCSVM_SLOTS];
    return sl->id == x && mcsvm_fresh(h, x, sl->stamp);
}

static void* mcsvm_helper_main(void* arg) {
    mcsvm_helper* h = (mcsvm_helper*)arg;
    for (;;) {
        int mode = __atomic_load_n(&h->mode, __ATOMIC_ACQUIRE);
        if (mode == MCSVM_EXIT) break;
        if (mode == MCSVM_IDLE) {
            pthread_mutex_lock(&h->lock);
            while (__atomic_load_n(&h->mode, __ATOMIC_ACQUIRE) == MCSVM_IDLE)
                pthread_cond_wait(&h->wake, &h->lock);
            pthread_mutex_unlock(&h->lock);
            continue;
        }
        /* the solver takes index[active - 1] next when its instance is shrunk away (most of
           a pass over everything). Sum the few after that one, nearest first: the very next
           one the solver reaches before a sum of it could be ready. */
        int64_t s = __atomic_load_n(&h->pos_s, __ATOMIC_RELAXED);
        int64_t a = __atomic_load_n(&h->pos_active, __ATOMIC_RELAXED);
        int did = 0;
        for (int d = MCSVM_FIRST; d < MCSVM_FIRST + MCSVM_LEAD; ++d) {
            int64_t pos = a - 1 - d;
            if (pos <= s) break;
            int64_t x = __atomic_load_n(&h->index[pos], __ATOMIC_RELAXED);
            if (x < 0 || x >= h->l || mcsvm_helper_has(h, x)) continue;
            mcsvm_helper_sum(h, x);
            did = 1;
            break;
        }
        if (!did) sched_yield();   /* ahead of the solver: the core to whatever else wants it */
    }
    return NULL;
}

/* Frees what mcsvm_helper_start allocated (any of it may be NULL). */
static void mcsvm_helper_free(mcsvm_helper* h) {
    for (int k = 0; k < MCSVM_SLOTS; ++k) free(h->slots[k].g);
    free(h->last_mod); free(h->g_local); free(h);
}

/* The solver's side. NULL (and the solver sums everything itself) if anything fails. */
static mcsvm_helper* mcsvm_helper_start(const int64_t* row_lo, const int64_t* row_hi,
                                        const int32_t* indices,
                                        const int32_t* y, const double* w, int64_t stride, int nc,
                                        int64_t l, int64_t n_rows, const int64_t* index) {
    mcsvm_helper* h = (mcsvm_helper*)calloc(1, sizeof(mcsvm_helper));
    if (!h) return NULL;
    h->row_lo = row_lo; h->row_hi = row_hi; h->indices = indices; h->y = y; h->w = w; h->stride = stride;
    h->nc = nc; h->l = l; h->index = index; h->working = -1;
    h->last_mod = (int64_t*)calloc((size_t)(n_rows > 0 ? n_rows : 1), sizeof(int64_t));
    h->g_local = (double*)malloc(sizeof(double) * (size_t)nc);
    int ok = h->last_mod && h->g_local;
    for (int k = 0; k < MCSVM_SLOTS && ok; ++k) {
        h->slots[k].id = -1;
        h->slots[k].g = (double*)malloc(sizeof(double) * (size_t)nc);
        ok = h->slots[k].g != NULL;
    }
    if (ok && pthread_mutex_init(&h->lock, NULL) == 0) {
        if (pthread_cond_init(&h->wake, NULL) == 0) {
            if (pthread_create(&h->thread, NULL, mcsvm_helper_main, h) == 0) return h;
            pthread_cond_destroy(&h->wake);
        }
        pthread_mutex_destroy(&h->lock);
    }
    mcsvm_helper_free(h);
    return NULL;
}

static void mcsvm_helper_mode(mcsvm_helper* h, int mode) {
    pthread_mutex_lock(&h->lock);
    __atomic_store_n(&h->mode, mode, __ATOMIC_RELEASE);
    pthread_cond_signal(&h->wake);
    pthread_mutex_unlock(&h->lock);
}

static void mcsvm_helper_stop(mcsvm_helper* h, int64_t* used, int64_t* summed) {
    if (!h) return;
    mcsvm_helper_mode(h, MCSVM_EXIT);
    pthread_join(h->thread, NULL);
    pthread_cond_destroy(&h->wake);
    pthread_mutex_destroy(&h->lock);
    *used = h->used; *summed = h->summed;
    mcsvm_helper_free(h);
}

/* Where the solver is: its position s and the number of active instances. */
static inline void mcsvm_helper_at(mcsvm_helper* h, int64_t s, int64_t active) {
    __atomic_store_n(&h->pos_s, s, __ATOMIC_RELAXED);
    __atomic_store_n(&h->pos_active, active, __ATOMIC_RELAXED);
}

/* After the solver wrote instance i's rows: stamp them, then publish the update. */
static inline void mcsvm_helper_updated(mcsvm_helper* h, int64_t i) {
    int64_t u = h->published + 1;
    for (int64_t p = h->row_lo[i]; p < h->row_hi[i]; ++p)
        __atomic_store_n(&h->last_mod[h->indices[p]], u, __ATOMIC_RELAXED);
    __atomic_store_n(&h->published, u, __ATOMIC_RELEASE);
}

/* Instance i's gradient into g (class order) if the helper has a sum the solver may use.
   If the helper is summing i right now, waiting for it takes less time than a sum. */
static inline int mcsvm_helper_take(mcsvm_helper* h, int64_t i, double* g) {
    mcsvm_slot* sl = &h->slots[i % MCSVM_SLOTS];
    /* a bounded wait: a helper the system has descheduled must not stall the solver */
    for (int spin = 0; spin < MCSVM_MAX_SPIN && __atomic_load_n(&h->working, __ATOMIC_ACQUIRE) == i; ++spin)
        MCSVM_PAUSE();
    int64_t v = __atomic_load_n(&sl->seq, __ATOMIC_ACQUIRE);
    if ((v & 1) || __atomic_load_n(&sl->id, __ATOMIC_RELAXED) != i) return 0;
    int64_t stamp = __atomic_load_n(&sl->stamp, __ATOMIC_RELAXED);
    for (int c = 0; c < h->nc; ++c) __atomic_load(&sl->g[c], &g[c], __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (__atomic_load_n(&sl->seq, __ATOMIC_RELAXED) != v || !mcsvm_fresh(h, i, stamp)) return 0;
    h->used++;
    return 1;
}

#else   /* no threads here: the solver sums everything itself */
#define MCSVM_HELPER 0
enum { MCSVM_IDLE = 0, MCSVM_FULL = 1, MCSVM_EXIT = 2 };
typedef struct { int unused; } mcsvm_helper;
static mcsvm_helper* mcsvm_helper_start(const int64_t* row_lo, const int64_t* row_hi,
                                        const int32_t* indices,
                                        const int32_t* y, const double* w, int64_t stride, int nc,
                                        int64_t l, int64_t n_rows, const int64_t* index) {
    return NULL;
}
static void mcsvm_helper_mode(mcsvm_helper* h, int mode) {}
static void mcsvm_helper_stop(mcsvm_helper* h, int64_t* used, int64_t* summed) {}
static inline void mcsvm_helper_at(mcsvm_helper* h, int64_t s, int64_t active) {}
static inline void mcsvm_helper_updated(mcsvm_helper* h, int64_t i) {}
static inline int mcsvm_helper_take(mcsvm_helper* h, int64_t i, double* g) { return 0; }
#endif

#endif
