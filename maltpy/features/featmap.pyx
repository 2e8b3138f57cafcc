# cython: language_level=3
"""A minimal uint64 -> int32 hash map that the parse loop can use without the GIL.

Training adds keys (ids are given in insertion order); parsing only looks up.
Stored in model files as the plain array of keys in id order.
"""
import numpy as np
from libc.stdlib cimport malloc, free
from libc.stdint cimport uint64_t, int32_t
from maltpy.simd cimport prefetch


#: how many keys ahead :meth:`FeatMap.from_keys` asks for a home slot
cdef enum:
    FROM_KEYS_AHEAD = 16


#: the keys a training run's map has room for at first (it doubles as it fills): EWT's templates
#: make hundreds of thousands, so smaller starts only regrow
FEATMAP_START = 1 << 16


cdef class FeatMap:
    def __cinit__(self, Py_ssize_t capacity=1024):
        cdef Py_ssize_t cap = 16
        while cap < 2 * capacity:
            cap <<= 1
        self.cap = cap
        self.size = 0
        self.keys = <uint64_t*>malloc(sizeof(uint64_t) * cap)
        self.vals = <int32_t*>malloc(sizeof(int32_t) * cap)
        if self.keys == NULL or self.vals == NULL:
            raise MemoryError()
        for i in range(cap):
            self.vals[i] = -1

    def __dealloc__(self):
        free(self.keys)
        free(self.vals)

    def __len__(self):
        return self.size

    cdef int32_t get(self, uint64_t key) noexcept nogil:
        return probe(self.keys, self.vals, self.cap - 1, key)

    cdef int32_t add(self, uint64_t key) noexcept nogil:
        """Id of key, inserting it if new; -1 only if memory runs out."""
        cdef Py_ssize_t mask, slot
        if 2 * (self.size + 1) > self.cap:
            if not self._grow():
                return -1
        mask = self.cap - 1
        slot = <Py_ssize_t>(mix64(key) & mask)
        while self.vals[slot] != -1:
            if self.keys[slot] == key:
                return self.vals[slot]
            slot = (slot + 1) & mask
        self.keys[slot] = key
        self.vals[slot] = <int32_t>self.size
        self.size += 1
        return self.vals[slot]

    cdef bint _grow(self) noexcept nogil:
        cdef Py_ssize_t old_cap = self.cap, new_cap = self.cap * 2, i, slot, mask = new_cap - 1
        cdef uint64_t* old_keys = self.keys
        cdef int32_t* old_vals = self.vals
        cdef uint64_t* keys = <uint64_t*>malloc(sizeof(uint64_t) * new_cap)
        cdef int32_t* vals = <int32_t*>malloc(sizeof(int32_t) * new_cap)
        if keys == NULL or vals == NULL:
            free(keys)
            free(vals)
            return False
        for i in range(new_cap):
            vals[i] = -1
        for i in range(old_cap):
            if old_vals[i] != -1:
                slot = <Py_ssize_t>(mix64(old_keys[i]) & mask)
                while vals[slot] != -1:
                    slot = (slot + 1) & mask
                keys[slot] = old_keys[i]
                vals[slot] = old_vals[i]
        self.keys, self.vals, self.cap = keys, vals, new_cap
        free(old_keys)
        free(old_vals)
        return True

    def keys_in_order(self):
        """uint64 array of the keys, index = id."""
        out = np.zeros(self.size, dtype=np.uint64)
        cdef uint64_t[::1] o = out
        cdef Py_ssize_t i
        for i in range(self.cap):
            if self.vals[i] != -1:
                o[self.vals[i]] = self.keys[i]
        return out

    @staticmethod
    def from_keys(keys):
        """Map keys[i] -> i. Keys must be distinct."""
        k = np.ascontiguousarray(keys, dtype=np.uint64)
        cdef FeatMap fm = FeatMap(max(len(k), 1))
        cdef uint64_t[::1] kv = k
        cdef Py_ssize_t i, n = len(k), mask = fm.cap - 1, slot
        cdef bint distinct = True
        with nogil:
            for i in range(n):
                # each key's home slot is a cache miss in a large map (a model's hundreds of
                # thousands of features, a clusters file's million words): asked for ahead
                if i + FROM_KEYS_AHEAD < n:
                    slot = <Py_ssize_t>(mix64(kv[i + FROM_KEYS_AHEAD]) & mask)
                    prefetch(&fm.vals[slot])
                    prefetch(&fm.keys[slot])
                if fm.add(kv[i]) != i:
                    distinct = False
                    break
        if not distinct:
            raise ValueError("feature keys are not distinct: the model file is corrupt")
        return fm

    def lookup(self, keys):
        """Ids of many keys (-1 for unknown); for tests and tools."""
        k = np.ascontiguousarray(keys, dtype=np.uint64)
        out = np.empty(len(k), dtype=np.int32)
        cdef uint64_t[::1] kv = k
        cdef int32_t[::1] o = out
        for i in range(len(k)):
            o[i] = self.get(kv[i])
        return out
