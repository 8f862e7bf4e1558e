# cython: language_level=3, wraparound=False, cdivision=True
"""Sequitur's observation, compiled: writes what
:meth:`SequiturEncoding.observe_reference <card_envs.sequitur.encoding.SequiturEncoding>` writes
(its spec, and the fallback where this extension is not built) straight into the vector, which
it zeroes first.

The observation is built at every step for the seat to act; in Python it was the largest cost of
a random game (12 us of 41 at 4 players, for about 55 entries of 3,452), mostly in listing the
flat indices one by one. Here each index is a few C additions. Writes into the vector are
bounds-checked (an IndexError, as numpy's would be, never a write past it), and so are the
ball and goal-card lookups.
"""

from cython.view cimport array as cvarray
from libc.stdlib cimport free, malloc
from libc.string cimport memset


cdef extern from *:
    """
    #include <string.h>
    #if defined(__SSE2__)
    #include <emmintrin.h>
    /* Copy n floats with non-temporal stores: the destination's lines are not read first. */
    static void stream_copy(float *dst, const float *src, Py_ssize_t n) {
        Py_ssize_t i = 0;
        for (; i < n && ((size_t)(dst + i) & 15); i++) dst[i] = src[i];
        for (; i + 4 <= n; i += 4) _mm_stream_ps(dst + i, _mm_loadu_ps(src + i));
        for (; i < n; i++) dst[i] = src[i];
        _mm_sfence();
    }
    #else
    static void stream_copy(float *dst, const float *src, Py_ssize_t n) {
        memcpy(dst, src, (size_t)n * sizeof(float));
    }
    #endif
    """
    void stream_copy(float *dst, const float *src, Py_ssize_t n)


cdef class Observer:
    """Flat offsets of every piece for one configuration, and the rules' constants the
    observation needs; ``write(out, state, seat)`` fills a float32 vector, zeros included."""

    cdef readonly dict offsets
    cdef readonly dict facts
    cdef readonly tuple colours, ball_letter
    cdef int n, goals, rack_stride, ball_kinds, max_rack, word_stride, letters, cards
    cdef int max_slots, rounds, over, claim, empty, deck_width, num_colours, num_balls
    cdef int phase, decision, round, goal_step, racks, ball, drawn, secret, face_down, public
    cdef int open_discards, my_discards, deck_sizes, secret_colour, used, stacks, totals
    cdef int words, word_scores, meets, claim_order, claim_passed, spelling, blank_letter
    cdef int* colour_of
    cdef int* letter_of
    cdef float[::1] scratch  # the vector as it is built, before it is streamed out
    cdef Py_ssize_t scratch_size

    def __cinit__(self, dict offsets, dict facts, tuple colours, tuple ball_letter):
        cdef int i
        self.offsets, self.facts, self.colours, self.ball_letter = (
            offsets, facts, colours, ball_letter
        )
        self.n, self.goals = facts["num_players"], len(colours)
        if self.n < 1:  # seats are taken modulo n
            raise ValueError(f"num_players must be at least 1, got {self.n}")
        self.max_rack, self.ball_kinds = facts["max_rack"], facts["ball_kinds"]
        self.rack_stride = self.max_rack * self.ball_kinds
        self.letters, self.cards = facts["letters"], facts["cards"]
        self.word_stride = facts["max_word"] * self.letters
        self.max_slots, self.rounds = facts["max_slots"], facts["rounds"]
        self.over, self.claim, self.empty = facts["over"], facts["claim"], facts["empty"]
        self.deck_width, self.num_colours = facts["deck_width"], facts["colours"]
        self.num_balls = len(ball_letter)
        self.phase, self.decision = offsets["phase"], offsets["decision"]
        self.round, self.goal_step = offsets["round"], offsets["goal_step"]
        self.racks, self.ball, self.drawn = offsets["racks"], offsets["ball"], offsets["drawn"]
        self.secret, self.face_down = offsets["secret"], offsets["face_down"]
        self.public, self.open_discards = offsets["public"], offsets["open_discards"]
        self.my_discards, self.deck_sizes = offsets["my_discards"], offsets["deck_sizes"]
        self.secret_colour, self.used = offsets["secret_colour"], offsets["used"]
        self.stacks, self.totals = offsets["stacks"], offsets["totals"]
        self.words, self.word_scores = offsets["words"], offsets["word_scores"]
        self.meets, self.claim_order = offsets["meets"], offsets["claim_order"]
        self.claim_passed, self.spelling = offsets["claim_passed"], offsets["spelling"]
        self.blank_letter = offsets["blank_letter"]
        self.colour_of = <int*>malloc(len(colours) * sizeof(int) + 1)
        self.letter_of = <int*>malloc(len(ball_letter) * sizeof(int) + 1)
        if not (self.colour_of and self.letter_of):
            raise MemoryError("no memory for the observation tables")
        for i in range(len(colours)):
            self.colour_of[i] = colours[i]
        for i in range(len(ball_letter)):
            self.letter_of[i] = ball_letter[i]

    def __dealloc__(self):
        free(self.colour_of)
        free(self.letter_of)

    def __reduce__(self):
        return Observer, (self.offsets, self.facts, self.colours, self.ball_letter)

    cdef inline int letter(self, int ball) except -1:
        """The letter code of a ball id (checked)."""
        if not 0 <= ball < self.num_balls:
            raise IndexError(f"no ball {ball}")
        return self.letter_of[ball]

    cdef inline int colour(self, int goal) except -1:
        """The colour of a goal card id (checked)."""
        if not 0 <= goal < self.goals:
            raise IndexError(f"no goal card {goal}")
        return self.colour_of[goal]

    def write(self, float[::1] out, state, int seat):
        """Set every entry of ``out`` to what ``seat`` may know of ``state``, zeros included.
        The vector is built in a scratch vector that stays in cache, then streamed into ``out``
        past the cache: a vector env writes a row per table, more rows than the cache holds, and
        a row written in place is first read from memory. On an error ``out`` is untouched."""
        cdef Py_ssize_t size = out.shape[0]
        if size == 0:
            self._write(out, state, seat)  # raises the IndexError of the first write
            return
        if self.scratch_size != size:
            self.scratch = cvarray(shape=(size,), itemsize=sizeof(float), format="f")
            self.scratch_size = size
        memset(&self.scratch[0], 0, size * sizeof(float))
        self._write(self.scratch, state, seat)
        stream_copy(&out[0], &self.scratch[0], size)

    def write_zeroed(self, float[::1] out, state, int seat):
        """Set what ``seat`` may know of ``state`` in the zeroed ``out``, in place: for a fresh
        vector that is read next, so it is best left in cache."""
        self._write(out, state, seat)

    cdef int _write(self, float[::1] out, state, int seat) except -1:
        cdef int phase = state.phase, round = state.round
        cdef list secret = state.secret, public = state.public
        cdef int g, c, n = self.n
        out[self.phase + phase] = 1.0
        out[self.round + (round if round < self.rounds else self.rounds - 1)] = 1.0
        out[self.goal_step + <int>state.goal_step] = 1.0
        if <int>state.actor == seat and phase != self.over:
            out[self.decision + <int>state.decision] = 1.0
            self._private(out, state)
        if <int>secret[seat] != self.empty:
            out[self.secret + <int>secret[seat]] = 1.0
        g = state.kept[seat]
        if g != self.empty:
            out[self.face_down + g] = 1.0
        for g in public:
            out[self.public + g] = 1.0
        for g in state.open_discards:
            out[self.open_discards + g] = 1.0
        for g in state.own_discards[seat]:
            out[self.my_discards + g] = 1.0
        c = 0
        for g in state.shown_deck_sizes:
            out[self.deck_sizes + c * self.deck_width + g] = 1.0
            c += 1
        self._sides(out, state, seat, phase == self.claim, secret, public)
        if phase == self.claim:
            for c, g in enumerate(state.claim_order):
                out[self.claim_order + ((g - seat + n) % n) * n + c] = 1.0
            for g, passed in enumerate(state.claim_passed):
                if passed:
                    out[self.claim_passed + (g - seat + n) % n] = 1.0
        return 0

    cdef int _private(self, float[::1] out, state) except -1:
        """The actor's pending draws and half-made spelling."""
        cdef int g, slot
        cdef long key = state.spell_key
        g = state.ball
        if g != self.empty:
            out[self.ball + self.letter(g)] = 1.0
        for g in state.drawn:
            out[self.drawn + g] = 1.0
        if key != self.empty:
            for slot in range(self.max_slots):
                if key >> slot & 1:
                    out[self.spelling + slot] = 1.0
            out[self.spelling + self.max_slots + (key >> self.max_slots)] = 1.0
            g = state.blank
            if g >= 0:
                out[self.blank_letter + g] = 1.0
        return 0

    cdef int _sides(
        self, float[::1] out, state, int seat, bint claim, list secret, list public
    ) except -1:
        """Each seat's public side: the observer's own in full, the others' as of the last
        step's end. Every list is read from the state once (an attribute read from here is a
        dict lookup)."""
        cdef list shown_secret = state.shown_secret
        cdef list stacks = state.stacks, totals = state.totals, words = state.words
        cdef list scores = state.scores, meets = state.meets if claim else None
        cdef list own_racks = state.racks, own_used = state.used
        cdef list shown_racks = state.shown_racks, shown_used = state.shown_used
        cdef list racks, used, rack, cards
        cdef bint shown_words = state.words_shown
        cdef int p, rel, slot, i, g, n = self.n, size
        cdef str word
        cdef Py_UCS4 ch
        if <int>secret[seat] != self.empty and not shown_secret[seat]:
            out[self.secret_colour + self.colour(secret[seat])] = 1.0
        for p in range(n):
            rel = (p - seat + n) % n
            if p == seat:  # my own side as it is now, my word as soon as I spell it
                racks, used, word = own_racks, own_used, words[p]
            else:
                racks, used = shown_racks, shown_used
                word = words[p] if shown_words else ""
            rack, slot = racks[p], self.racks + rel * self.rack_stride
            size = min(len(rack), self.max_rack)  # as the reference's map() over the slots
            for i in range(size):
                out[slot + self.letter(rack[i])] = 1.0
                slot += self.ball_kinds
            cards = used[p]
            for i in range(len(cards)):
                if cards[i]:
                    out[self.used + rel * self.cards + i] = 1.0
            if shown_secret[p]:
                out[self.secret_colour + rel * self.num_colours + self.colour(secret[p])] = 1.0
            cards = stacks[p]
            for i in range(len(cards)):
                out[self.stacks + rel * self.goals + <int>cards[i]] = 1.0
            if totals[p]:
                out[self.totals + rel] = totals[p]
            if word:
                i = self.words + rel * self.word_stride
                for ch in word:
                    out[i + <int>ch - 97] = 1.0  # ord("a")
                    i += self.letters
                out[self.word_scores + rel] = scores[p]
            if claim:
                for g in meets[p]:
                    if g in public:
                        out[self.meets + rel * self.goals + g] = 1.0
        return 0
