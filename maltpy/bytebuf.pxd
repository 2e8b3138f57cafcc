"""A growing byte buffer for compiled writers (cimport it; there is no .pyx): the tokenizer's
CoNLL-U (tokenizing/render.pyx) and discontinuous trees as export text (transform/discdecode.pyx);
and :func:`read_decimal`, what the compiled readers read numbers with (formats/exportread.pyx,
formats/discbracketio.pyx)."""
from libc.stdlib cimport realloc
from libc.string cimport memcpy
from libc.stdint cimport int64_t


cdef struct Buf:
    char* data
    Py_ssize_t n
    Py_ssize_t cap
    bint failed


cdef inline bint reserve(Buf* b, Py_ssize_t more) noexcept nogil:
    cdef Py_ssize_t cap
    cdef char* grown
    if b.n + more <= b.cap:
        return True
    cap = b.cap * 2 if b.cap else 1 << 16
    while cap < b.n + more:
        cap *= 2
    grown = <char*>realloc(b.data, cap)
    if grown == NULL:
        b.failed = True
        return False
    b.data, b.cap = grown, cap
    return True


cdef inline void put(Buf* b, const char* s, Py_ssize_t n) noexcept nogil:
    if reserve(b, n):
        memcpy(b.data + b.n, s, n)
        b.n += n


cdef inline void put_int(Buf* b, int64_t v) noexcept nogil:
    cdef char tmp[24]
    cdef int k = 0
    if v == 0:
        put(b, "0", 1)
        return
    while v > 0:
        tmp[k] = <char>(48 + v % 10)
        v //= 10
        k += 1
    if reserve(b, k):
        while k > 0:
            k -= 1
            b.data[b.n] = tmp[k]
            b.n += 1


cdef inline int64_t read_decimal(const char* p, int64_t n, int max_digits) noexcept nogil:
    """The decimal number of the ``n`` ASCII digits at ``p`` (1 to ``max_digits`` of them), or -1:
    what :func:`put_int` writes, read back."""
    cdef int64_t i, v = 0
    if n <= 0 or n > max_digits:
        return -1
    for i in range(n):
        if p[i] < b'0' or p[i] > b'9':
            return -1
        v = v * 10 + (p[i] - 48)
    return v
