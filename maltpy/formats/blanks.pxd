# cython: language_level=3
"""White space as Python's ``str.isspace`` (and ``re``'s ``\\s``) knows it, in UTF-8 bytes: the
bracketed-tree writers (discbracket, Penn Treebank) write each such character of a word or label
as ``_``, since their readers split tokens at any of them."""


cdef inline int blank_length(const unsigned char* p, Py_ssize_t i, Py_ssize_t n) noexcept nogil:
    """The byte length of the white-space character that starts at ``p[i]`` (of ``n`` bytes), 0
    when it is none: tab to carriage return, the information separators, space, U+0085, U+00A0,
    U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F and U+3000 (the 29 of ``str.isspace``)."""
    cdef unsigned char b = p[i]
    if b < 0x80:
        return 1 if (9 <= b <= 13 or 28 <= b <= 32) else 0
    if b == 0xC2:
        return 2 if i + 1 < n and (p[i + 1] == 0x85 or p[i + 1] == 0xA0) else 0
    if i + 2 >= n:
        return 0
    if b == 0xE1:
        return 3 if p[i + 1] == 0x9A and p[i + 2] == 0x80 else 0
    if b == 0xE2:
        if p[i + 1] == 0x80 and (0x80 <= p[i + 2] <= 0x8A or p[i + 2] == 0xA8 or p[i + 2] == 0xA9
                                 or p[i + 2] == 0xAF):
            return 3
        return 3 if p[i + 1] == 0x81 and p[i + 2] == 0x9F else 0
    if b == 0xE3:
        return 3 if p[i + 1] == 0x80 and p[i + 2] == 0x80 else 0
    return 0
