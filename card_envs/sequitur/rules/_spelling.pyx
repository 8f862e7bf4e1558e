# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Sequitur's word search, compiled: the walk of :func:`words.spellings_reference` (its spec,
and the fallback where this extension is not built) over the letter tree held in flat C arrays.

A rack's spellings are searched whenever a new rack must spell (a third of a random game's
rules time in Python, 60 us a rack and 490 us with the blank); here the same walk, in the same
order, costs a few microseconds. The tree is built once per dictionary from its ``steps``.
``LetterTree.best`` also weighs a rack's words for ``sequitur_v1``'s action values without
building their list, and ``LetterTree.write_keys`` marks the keys in a legal mask without
building the dict (:func:`words.spelling_keys_reference` is its spec).
"""

from cpython.mem cimport PyMem_Free, PyMem_Malloc
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t


cdef extern from *:
    int popcount "__builtin_popcount"(unsigned int) nogil
    int lowest_bit "__builtin_ctz"(unsigned int) nogil


cdef enum:
    WIDTH = 32  # words.TREE_WIDTH
    Q = 16
    U = 20
    Z = 25
    BLANK = 26
    Q_BALL = 27  # the Q ball inside the walk: like the blank, not a plain letter
    MAX_SLOTS = 10
    Q_PLAIN = 0
    Q_QU = 1

cdef uint32_t ALL_LETTERS = (1 << 26) - 1

# Every (blank letter, Q mode) choice made once, CHOICES[blank + 1][q_mode + 1] (-1: no choice).
cdef tuple CHOICES = tuple(tuple((b, q) for q in (-1, 0, 1)) for b in range(-1, 26))


cdef struct Walk:
    const uint32_t* kids  # per node: the bit set of its children's letters
    const uint8_t* end  # per node: a word ends there
    const int32_t* short  # per node: fewest letters to a word end below it
    const int32_t* first  # per node: where its children start in ``child``
    const int32_t* child  # children's node ids, each node's in letter order
    signed char* keys  # where write_keys marks each key found (NULL: into the dict)
    int* count  # how many keys it has marked
    int n
    int codes[MAX_SLOTS]  # ball codes in reading order (Q_BALL for the Q ball)
    int64_t bits[MAX_SLOTS]  # the key bit of each reading position's slot
    uint32_t ahead[MAX_SLOTS + 1]  # letters at reading positions k.. (all for the blank)
    int room[MAX_SLOTS + 1]  # how many letters positions k.. can give (the Q ball two: qu)


cdef inline int32_t enter(const Walk* w, int32_t node, int letter) noexcept nogil:
    """The child of ``node`` by ``letter`` (which must be one of its children's letters)."""
    return w.child[w.first[node] + popcount(w.kids[node] & ((1u << letter) - 1))]


cdef int emit(const Walk* w, dict found, int64_t key, int blank, int q_mode) except -1:
    """Add one choice to a spelling key's list, as ``found.setdefault(key, []).append``; or,
    for ``write_keys``, mark the key."""
    if w.keys != NULL:
        if not w.keys[key]:
            w.keys[key] = 1
            w.count[0] += 1
        return 0
    choice = (<tuple>CHOICES[blank + 1])[q_mode + 1]
    options = found.get(key)
    if options is None:
        found[key] = [choice]
    else:
        (<list>options).append(choice)
    return 0


cdef int walk(
    const Walk* w, dict found, int start, int32_t node, int64_t mask, int blank, int q_mode
) except -1:
    """Every word through ``node`` that goes on with the balls at reading positions start.."""
    cdef uint32_t letters = w.kids[node]
    cdef int k, code
    cdef int32_t child
    cdef int64_t kept
    for k in range(start, w.n):
        code, kept = w.codes[k], mask | w.bits[k]
        if code <= Z:
            if letters >> code & 1:
                child = enter(w, node, code)
                if w.end[child]:
                    emit(w, found, kept, blank, q_mode)
                if w.kids[child] & w.ahead[k + 1] and w.short[child] <= w.room[k + 1]:
                    walk(w, found, k + 1, child, kept, blank, q_mode)
        else:
            special(w, found, k, code, node, kept, blank, q_mode)
    return 0


cdef int special(
    const Walk* w, dict found, int k, int code, int32_t node, int64_t mask, int blank, int q_mode
) except -1:
    """The blank at position ``k`` (each child letter in order) or the Q ball (q, then qu)."""
    cdef uint32_t letters = w.kids[node], after = w.ahead[k + 1]
    cdef int room = w.room[k + 1], letter  # letters the balls after ``k`` can give
    cdef int32_t child, q_child
    if code == BLANK:
        while letters:
            letter = lowest_bit(letters)
            letters &= letters - 1
            child = enter(w, node, letter)
            if w.end[child]:
                emit(w, found, mask, letter, q_mode)
            if w.kids[child] & after and w.short[child] <= room:
                walk(w, found, k + 1, child, mask, letter, q_mode)
    elif letters >> Q & 1:
        q_child = enter(w, node, Q)
        if w.end[q_child]:
            emit(w, found, mask, blank, Q_PLAIN)
        if w.kids[q_child] & after and w.short[q_child] <= room:
            walk(w, found, k + 1, q_child, mask, blank, Q_PLAIN)
        if w.kids[q_child] >> U & 1:
            child = enter(w, q_child, U)
            if w.end[child]:
                emit(w, found, mask, blank, Q_QU)
            if w.kids[child] & after and w.short[child] <= room:
                walk(w, found, k + 1, child, mask, blank, Q_QU)
    return 0


cdef struct Reading:
    int sel[MAX_SLOTS]  # the kept balls' codes in reading order
    int worth[BLANK + 1]  # skill points by ball code
    char text[2 * MAX_SLOTS]
    int score  # the last word read's score


cdef int start_reading(Reading* r, tuple points) except -1:
    cdef int code
    for code in range(BLANK + 1):
        r.worth[code] = points[code]
    return 0


cdef int select(Reading* r, rack, int64_t key) except -1:
    """Keep the balls of spelling ``key`` in reading order; returns how many."""
    cdef int n = len(rack), m = 0, i, slot
    for i in range(n):
        slot = n - 1 - i if key >> MAX_SLOTS else i
        if key >> slot & 1:
            r.sel[m] = rack[slot]
            m += 1
    return m


cdef str read(Reading* r, int m, int blank, int q_mode):
    """The word the ``m`` kept balls spell with these choices; its score in ``r.score``."""
    cdef int length = 0, score = 0, i, code
    for i in range(m):
        code = r.sel[i]
        if code == Q and q_mode == Q_QU:  # two letters, no points
            r.text[length] = 97 + Q  # ord("a") + the letter code
            length += 1
            r.text[length] = 97 + U
        else:
            r.text[length] = 97 + (blank if code == BLANK else code)
            score += r.worth[code]
        length += 1
    r.score = score + length
    return r.text[:length].decode("ascii")


cdef class LetterTree:
    """A dictionary's letter tree (``Dictionary.steps``, ``root_kids``) as flat C arrays."""

    cdef uint32_t* kids
    cdef uint8_t* end
    cdef int32_t* short
    cdef int32_t* first
    cdef int32_t* child
    cdef readonly dict steps
    cdef readonly object root_kids

    def __cinit__(self, dict steps, root_kids):
        cdef Py_ssize_t nodes = len(steps) + 1, i
        self.steps, self.root_kids = steps, root_kids
        self.kids = <uint32_t*>PyMem_Malloc(nodes * sizeof(uint32_t))
        self.end = <uint8_t*>PyMem_Malloc(nodes * sizeof(uint8_t))
        self.short = <int32_t*>PyMem_Malloc(nodes * sizeof(int32_t))
        self.first = <int32_t*>PyMem_Malloc((nodes + 1) * sizeof(int32_t))
        self.child = <int32_t*>PyMem_Malloc(nodes * sizeof(int32_t))
        if not (self.kids and self.end and self.short and self.first and self.child):
            raise MemoryError("no memory for the letter tree")
        self.kids[0], self.end[0], self.short[0] = root_kids, 0, 0
        for node, is_end, kids, short in steps.values():
            self.kids[node], self.end[node], self.short[node] = kids, is_end, short
        self.first[0] = 0
        for i in range(nodes):
            self.first[i + 1] = self.first[i] + popcount(self.kids[i])
        for key, entry in steps.items():
            parent, letter = divmod(key, WIDTH)
            self.child[self.first[parent] + popcount(self.kids[parent] & ((1u << letter) - 1))] = (
                entry[0]
            )

    def __dealloc__(self):
        PyMem_Free(self.kids)
        PyMem_Free(self.end)
        PyMem_Free(self.short)
        PyMem_Free(self.first)
        PyMem_Free(self.child)

    def __reduce__(self):
        return LetterTree, (self.steps, self.root_kids)

    def spellings(self, rack) -> dict:
        """Spelling key -> its ``(blank letter, Q mode)`` choices, as the reference finds them
        (same keys, same order); a ``ValueError`` for a ball code outside 0..26 or a rack of
        more than 10 balls."""
        cdef Walk w
        cdef dict found = {}
        w.keys = NULL
        self.search(&w, rack, found)
        return found

    def write_keys(self, rack, signed char[::1] out, Py_ssize_t offset) -> int:
        """Set ``out[offset + key]`` to 1 for each spelling key of ``rack`` (the keys of
        :meth:`spellings`, without building its dict) and return how many there are. The
        ``2 << MAX_SLOTS`` entries from ``offset`` must be 0; the rest of ``out`` is left as
        it is. The same ``ValueError`` as :meth:`spellings` for a bad rack."""
        cdef Walk w
        cdef int count = 0
        if offset < 0 or offset + (2 << MAX_SLOTS) > out.shape[0]:
            raise ValueError(f"no room for {2 << MAX_SLOTS} keys at {offset} of {out.shape[0]}")
        w.keys, w.count = &out[offset], &count
        self.search(&w, rack, None)
        return count

    cdef int search(self, Walk* w, rack, dict found) except -1:
        """The walk of both reading directions, its choices into ``found`` or its keys marked
        (``w.keys``)."""
        cdef int n = len(rack), k, direction, slot, code
        if n > MAX_SLOTS:
            raise ValueError(f"a rack holds at most {MAX_SLOTS} balls, got {n}")
        for code in rack:
            if not 0 <= code <= BLANK:
                raise ValueError(f"ball codes are 0..{BLANK} (a..z, the blank), got {code}")
        w.kids, w.end, w.short, w.first, w.child, w.n = (
            self.kids, self.end, self.short, self.first, self.child, n
        )
        for direction in range(2):
            w.ahead[n], w.room[n] = 0, 0
            for k in range(n - 1, -1, -1):
                slot = n - 1 - k if direction else k
                code = rack[slot]
                w.codes[k] = Q_BALL if code == Q else code
                w.bits[k] = (<int64_t>1) << slot
                w.ahead[k] = w.ahead[k + 1] | (ALL_LETTERS if code == BLANK else 1u << code)
                w.room[k] = w.room[k + 1] + (2 if code == Q else 1)
            walk(w, found, 0, 0, (<int64_t>direction) << MAX_SLOTS, -1, -1)
        return 0

    def words(self, rack, tuple points) -> list:
        """``(key, blank letter, Q mode, word, word score)`` of every spelling, in the order of
        :meth:`spellings` (each key's choices in turn): as ``spelling.words_reference`` reads
        them, ``points`` the skill points of each ball code."""
        cdef Reading r
        cdef int m
        cdef list out = []
        start_reading(&r, points)
        for key_obj, options in self.spellings(rack).items():
            m = select(&r, rack, key_obj)
            for blank, q_mode in options:
                word = read(&r, m, blank, q_mode)
                out.append((key_obj, blank, q_mode, word, r.score))
        return out

    def best(self, rack, tuple points, dict earned_by, earn, double score_weight) -> tuple:
        """``(value, key, blank letter, Q mode, spellings)`` of the first most valuable spelling,
        a word's value ``score_weight * word score + earned_by[word]`` (``earn(word)`` where
        ``earned_by`` lacks it), and how many spellings there are; ``(-1.0, -1, -1, -1, 0)``
        for none: ``action_values.WordValues.plan``'s loop over :meth:`words`, without
        building the list."""
        cdef Reading r
        cdef int m, count = 0
        cdef double value, best_value = -1.0
        best_key, best_blank, best_q = -1, -1, -1
        start_reading(&r, points)
        for key_obj, options in self.spellings(rack).items():
            m = select(&r, rack, key_obj)
            for blank, q_mode in options:
                word = read(&r, m, blank, q_mode)
                earned = earned_by.get(word)
                if earned is None:
                    earned = earn(word)
                value = score_weight * r.score + <double>earned
                if value > best_value:
                    best_value, best_key, best_blank, best_q = value, key_obj, blank, q_mode
                count += 1
        return (best_value, best_key, best_blank, best_q, count)
