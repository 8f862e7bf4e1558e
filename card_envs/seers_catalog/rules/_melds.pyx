# cython: language_level=3, wraparound=False
"""The meld generator compiled: :func:`card_envs.seers_catalog.rules.melds.legal_plays_py`
loop for loop over C arrays and bitmasks.

Listing the melds of a hand never seen before was about half the legal mask's cost, and the
hands rarely repeat, so no cache helps. The reference in ``melds.py`` is the spec: this file
follows its loops in the same order, so each meld is found in the same order and the result
(a dict of sorted kinds to a set of finishes) is the same down to its iteration order.
"""

cimport cython
from cpython.buffer cimport PyBUF_C_CONTIGUOUS, PyBUF_WRITABLE, PyBuffer_Release, PyObject_GetBuffer
from libc.string cimport memset
from libc.stdint cimport uint64_t

import numpy as np

from card_envs.seers_catalog.rules.cards import (
    BONUS_LIMIT,
    CAULDRON,
    CROWN,
    ECHO,
    GIFT,
    GO_FIRST,
    HALF_MOON,
    KIND,
    LENS,
    MAX_SUITS,
    MAX_VALUE,
    MIN_VALUE,
    NUM_CODES,
    NUM_KINDS,
    NUM_VALUES,
    PRISM,
    ROD,
    STEPPING_STONE,
    WILD,
)
# melds.py imports this module at its end, when these are defined
from card_envs.seers_catalog.rules.melds import (
    ARTIFACT_SINGLE,
    CROWN_VALUE,
    GO_FIRST_VALUE,
    MATCH,
    MIN_RUN,
    RUN,
)

cdef enum:
    MAXH = 128  # kinds in a hand (a real hand holds at most the 75 cards)
    MAXC = MAXH + 32  # kinds in one meld while it is assembled
    RANKS = 16  # slots by value, 0..15
    NKINDS = 71  # card kinds, checked against the rules' below
    NCODES = 75  # card codes, checked against the rules' below
    MAXP = 8  # seers (5) and then some

if NUM_KINDS != NKINDS or NUM_CODES != NCODES:
    raise ImportError(f"the kernel is built for {NKINDS} kinds and {NCODES} codes")

cdef int C_WILD = WILD
cdef int C_MIN = MIN_VALUE
cdef int C_MAX = MAX_VALUE
cdef int C_NV = NUM_VALUES
cdef int C_SUITS = MAX_SUITS
cdef int C_KINDS = NUM_KINDS
cdef int K_GO = KIND[GO_FIRST]
cdef int K_CR = KIND[CROWN]
cdef int K_CAUL = KIND[CAULDRON]
cdef int K_PRI = KIND[PRISM]
cdef int K_HM = KIND[HALF_MOON]
cdef int K_EC = KIND[ECHO]
cdef int K_ST = KIND[STEPPING_STONE]
cdef int K_ROD = KIND[ROD]
cdef int K_GIFT = KIND[GIFT]
cdef int K_LENS = KIND[LENS]
cdef int C_CODES = NUM_CODES
cdef int C_BONUS_LIMIT = BONUS_LIMIT
cdef int C_KIND_OF[NCODES]
for _code, _kind in enumerate(KIND):
    C_KIND_OF[_code] = _kind
_zeros = np.zeros
_int8 = np.int8
cdef int C_MATCH = MATCH, C_RUN = RUN, C_MIN_RUN = MIN_RUN
cdef int C_GO_FIRST_VALUE = GO_FIRST_VALUE, C_CROWN_VALUE = CROWN_VALUE
# run artifacts as bits
cdef int A_PRISM = 1, A_CAUL = 2, A_STONE = 4

_MATCH_FINISH = tuple([(MATCH, v) for v in range(RANKS)])
_RUN_FINISH = tuple([(RUN, v) for v in range(RANKS)])
_ART_FINISH = (ARTIFACT_SINGLE, 0)


cdef struct Gen:
    bint has_top
    int top_kind, top_size, top_rank2
    int first  # -1: none
    int near_lo, near_hi, past
    int wilds
    int half  # 1 with Half Moon: the halves tried are 0 and 1
    int floor
    uint64_t arts  # artifact kinds held, bit k - WILD
    int run_arts  # A_PRISM | A_CAUL | A_STONE held
    int nsuited
    int suited[MAXH]
    uint64_t held  # suited kinds held
    int nbv[RANKS]
    int bv[RANKS][MAXH]  # suited kinds by value, in hand order
    int nspec[RANKS]
    int spec_card[RANKS][MAXH]
    int spec_needs[RANKS][MAXH]
    int buf[MAXC]  # the meld being assembled
    int tmp[MAXC + 1]  # a sorted copy
    # Mask mode (``mask`` not NULL): each meld found sets the bit of the step after ``prefix``
    # (its next kind's add id, or its finish's id when it is the whole meld) instead of going
    # into the plays dict; ``found`` counts the bits set.
    char* mask
    int depth
    int prefix[MAXC]
    const int* adds  # by kind: the add action id (-1: not a meld kind)
    const int* match_ids  # by value: the play_value id
    const int* run_ids  # by top value: the play_run id
    int art_id
    int found


cdef inline bint has_art(Gen* g, int kind) noexcept:
    return (g.arts >> (kind - C_WILD)) & 1


cdef bint holds(int* cards, int n, int kind) noexcept:
    cdef int i
    for i in range(n):
        if cards[i] == kind:
            return True
    return False


cdef void record(Gen* g, dict plays, int* cards, int n, object finish, int kind, int size,
                 int value) except *:
    """The reference's ``_record``: filter, sort, and add the finish under each half."""
    cdef int rank2 = 2 * value, i, j, x, h, m
    if g.first >= 0 and not holds(cards, n, g.first):
        return
    if g.has_top and (kind != g.top_kind or size != g.top_size):
        return
    if rank2 + g.half <= g.floor:
        return
    cdef int* t = g.tmp
    for i in range(n):  # insertion sort: a meld is a few kinds
        x = cards[i]
        j = i
        while j > 0 and t[j - 1] > x:
            t[j] = t[j - 1]
            j -= 1
        t[j] = x
    if g.mask != NULL:
        mark_steps(g, n, finish, rank2)
        return
    for h in range(g.half + 1):
        if rank2 + h <= g.floor:
            continue
        if h:
            m = n
            while m > 0 and t[m - 1] > K_HM:
                m -= 1
            key = tuple([t[i] for i in range(m)] + [K_HM] + [t[i] for i in range(m, n)])
        else:
            key = tuple([t[i] for i in range(n)])
        found = plays.get(key)
        if found is None:
            plays[key] = {finish}
        else:
            (<set>found).add(finish)


cdef void mark_steps(Gen* g, int n, object finish, int rank2) except *:
    """Mask mode: the sorted meld ``g.tmp[:n]`` (and its Half Moon copy) marks the step that
    follows ``g.prefix``, as ``Moves.after`` reads it from the plays."""
    cdef int h, i, m, length, step
    cdef int key[MAXC + 1]
    for h in range(g.half + 1):
        if rank2 + h <= g.floor:
            continue
        m = n
        if h:
            while m > 0 and g.tmp[m - 1] > K_HM:
                m -= 1
        length = 0
        for i in range(m):
            key[length] = g.tmp[i]
            length += 1
        if h:
            key[length] = K_HM
            length += 1
        for i in range(m, n):
            key[length] = g.tmp[i]
            length += 1
        if length < g.depth:
            continue
        for i in range(g.depth):
            if key[i] != g.prefix[i]:
                break
        else:
            step = g.adds[key[g.depth]] if length > g.depth else finish_id(g, finish)
            if step < 0:
                raise ValueError(f"kind {key[g.depth]} has no add action")
            g.mask[step] = 1
            g.found += 1


cdef int finish_id(Gen* g, object finish) except -1:
    """The play action id of a finish: ``(MATCH, v)``, ``(RUN, top)`` or the artifact one."""
    if finish is _ART_FINISH:
        return g.art_id
    cdef int kind = (<tuple>finish)[0], value = (<tuple>finish)[1]
    return g.match_ids[value] if kind == C_MATCH else g.run_ids[value]


cdef int lowest(Gen* g, int value) noexcept:
    cdef int least
    if not g.has_top:
        return value
    least = (g.top_rank2 - g.half) // 2 + 1
    return value if value > least else least


cdef void artifact_singles(Gen* g, dict plays) except *:
    cdef int card
    if has_art(g, K_GO) and not g.has_top:
        card = K_GO
        record(g, plays, &card, 1, _ART_FINISH, C_MATCH, 1, C_GO_FIRST_VALUE)
    if has_art(g, K_CR):
        card = K_CR
        record(g, plays, &card, 1, _ART_FINISH, C_MATCH, 1, C_CROWN_VALUE)


cdef void matching(Gen* g, dict plays) except *:
    """Singles and Matching Sets, value by value."""
    cdef int need, value, hi, nshift
    cdef int shifted[2 * MAXH + 1]
    if g.has_top and g.top_kind != C_MATCH:
        return
    need = g.top_size if g.has_top else -1
    hi = g.near_hi if g.near_hi < C_MAX else C_MAX
    value = lowest(g, C_MIN)  # at least MIN_VALUE, so every value below indexes g.bv
    if value < g.near_lo:
        value = g.near_lo
    while value <= hi:
        nshift = shifted_cards(g, value, shifted)
        if g.nbv[value] + has_art(g, K_EC) + (nshift > 1) + g.wilds >= (need if need > 0 else 1):
            sets_of(g, plays, value, need, shifted, nshift)
        value += 1


cdef int shifted_cards(Gen* g, int value, int* shifted) noexcept:
    """-1 (no card moved), then with the Cauldron the cards one value off ``value``."""
    cdef int n = 1, k, i
    shifted[0] = -1
    if has_art(g, K_CAUL):
        for k in (value - 1, value + 1):
            for i in range(g.nbv[k]):
                shifted[n] = g.bv[k][i]
                n += 1
    return n


cdef void sets_of(Gen* g, dict plays, int value, int need, int* shifted, int nshift) except *:
    """The sets of ``value`` (``need`` cards, or any number when ``need`` is -1): each subset of
    its naturals, with or without Echo, with at most one card moved by the Cauldron."""
    cdef int nnat = g.nbv[value], count, echo, e, extra, fixed, wlo, whi
    cdef int* nat = g.bv[value]
    cdef int idx[MAXH]
    for count in range(nnat + 1 if need < 0 else (need if need < nnat else nnat) + 1):
        for e in range(count):
            idx[e] = e
        while True:
            for echo in range(1 + has_art(g, K_EC)):
                for e in range(nshift):
                    extra = shifted[e]
                    if g.first >= 0 and extra != g.first and not any_is(nat, idx, count, g.first):
                        continue  # every meld wanted holds ``first``
                    fixed = count + echo + (extra >= 0)
                    if need < 0:
                        wlo, whi = 0, g.wilds
                    elif 0 <= need - fixed <= g.wilds:
                        wlo = whi = need - fixed
                    else:
                        continue
                    set_melds(g, plays, nat, idx, count, echo, extra, value, wlo, whi)
            if not next_combination(idx, count, nnat):
                break


cdef void set_melds(Gen* g, dict plays, int* nat, int* idx, int count, int echo, int extra,
                    int value, int wlo, int whi) except *:
    """Record the set of the chosen naturals, Echo and moved card with each number of wilds."""
    cdef int w, size, n, i
    for w in range(wlo, whi + 1):
        size = count + echo + (extra >= 0) + w
        if size == 0 or (echo and size < 2):
            continue
        n = 0
        for i in range(count):
            g.buf[n] = nat[idx[i]]
            n += 1
        for i in range(w):
            g.buf[n] = C_WILD
            n += 1
        if echo:
            g.buf[n] = K_EC
            n += 1
        if extra >= 0:
            g.buf[n] = extra
            g.buf[n + 1] = K_CAUL
            n += 2
        record(g, plays, g.buf, n, _MATCH_FINISH[value], C_MATCH, size, value)


cdef bint any_is(int* pool, int* idx, int count, int kind) noexcept:
    cdef int i
    for i in range(count):
        if pool[idx[i]] == kind:
            return True
    return False


cdef bint next_combination(int* idx, int r, int n) noexcept:
    """Advance ``idx`` (r of range(n), ascending) as ``itertools.combinations`` does."""
    cdef int i = r - 1, j
    while i >= 0 and idx[i] == i + n - r:
        i -= 1
    if i < 0:
        return False
    idx[i] += 1
    for j in range(i + 1, r):
        idx[j] = idx[j - 1] + 1
    return True


cdef inline int popcount(uint64_t x) noexcept:
    cdef int c = 0
    while x:
        x &= x - 1
        c += 1
    return c


cdef void runs(Gen* g, dict plays) except *:
    """Suited Runs, suit by suit, length by length, top card by top card."""
    cdef int len_lo, len_hi, length, s, suit, nsuits, total, base, helpers, top, first_top, top_hi
    cdef bint simple, ready
    cdef uint64_t mask, window
    cdef uint64_t values[8]  # per suit, the values held as a bitmask
    cdef int suits[8]
    if g.has_top and g.top_kind != C_RUN:
        return
    len_lo, len_hi = (g.top_size, g.top_size) if g.has_top else (C_MIN_RUN, C_NV)
    nsuits = run_suits(g, values, suits)
    simple = not (g.run_arts & (A_PRISM | A_CAUL))
    helpers = g.wilds + popcount(g.run_arts)
    for s in range(nsuits):
        suit = suits[s]
        mask = values[suit]
        total = popcount(mask)
        base = suit * C_NV - C_MIN
        ready = simple  # the slot table for Prism and Cauldron: built when first needed
        for length in range(len_lo, len_hi + 1):
            if length > total + helpers:
                break
            if length > C_NV:  # no top card can end a run this long
                continue
            window = ((<uint64_t>1) << length) - 1
            first_top = lowest(g, C_MIN + length - 1)
            if first_top < g.near_lo:
                first_top = g.near_lo
            top_hi = g.near_hi + length - 1
            if top_hi > C_MAX:
                top_hi = C_MAX
            for top in range(first_top, top_hi + 1):
                if popcount((mask >> (top - length + 1)) & window) + helpers < length:
                    continue
                if simple:
                    plain_runs(g, plays, base, top - length + 1, top)
                    continue
                if not ready:
                    specials(g, suit)
                    ready = True
                fill(g, plays, suit, top - length + 1, top, top - length + 1, 0, g.held, 0,
                     g.run_arts)


cdef int run_suits(Gen* g, uint64_t* values, int* suits) noexcept:
    """Fill ``values`` (per suit, a bitmask of values held) and ``suits``, the suits to try:
    those held and one empty suit (runs of wilds), or with ``first`` its suit (with the Prism
    any held suit from it up); return how many."""
    cdef int s, i, n = 0
    for s in range(C_SUITS):
        values[s] = 0
    for i in range(g.nsuited):
        values[g.suited[i] // C_NV] |= (<uint64_t>1) << (g.suited[i] % C_NV + C_MIN)
    if g.first >= 0 and not g.run_arts & A_PRISM:
        suits[0] = g.first // C_NV
        return 1
    for s in range(g.first // C_NV if g.first >= 0 else 0, C_SUITS):
        if values[s]:
            suits[n] = s
            n += 1
    if g.first < 0:
        for s in range(C_SUITS):
            if not values[s]:
                suits[n] = s
                return n + 1
    return n


cdef void plain_runs(Gen* g, dict plays, int base, int low, int top) except *:
    """Runs without Prism or Cauldron: held cards of the window, less any left to the fillers."""
    cdef int held[RANKS]
    cdef int opt[RANKS]
    cdef int idx[RANKS]
    cdef int nheld = 0, nopt = 0, rank, code, length, spare, dropped, i, j, n, most
    for rank in range(low, top + 1):
        code = base + rank
        if 0 <= code < 64 and (g.held >> code) & 1:
            held[nheld] = code
            nheld += 1
    length = top - low + 1
    spare = g.wilds + ((g.run_arts & A_STONE) != 0) - (length - nheld)
    if g.first >= 0:
        if not holds(held, nheld, g.first):
            return
        for i in range(nheld):
            if held[i] != g.first:
                opt[nopt] = held[i]
                nopt += 1
    else:
        for i in range(nheld):
            opt[i] = held[i]
        nopt = nheld
    most = spare if spare < nopt else nopt
    for dropped in range(most + 1):
        for i in range(dropped):
            idx[i] = i
        while True:
            n = 0
            for i in range(nheld):
                if not any_is(opt, idx, dropped, held[i]):
                    g.buf[n] = held[i]
                    n += 1
            close_run(g, plays, n, length - n, length, top, g.run_arts)
            if not next_combination(idx, dropped, nopt):
                break


cdef void specials(Gen* g, int suit) noexcept:
    """For each rank, the cards that fill it in ``suit`` only with Prism and/or Cauldron."""
    cdef bint prism = g.run_arts & A_PRISM, cauldron = g.run_arts & A_CAUL, own
    cdef int i, card, value, rank, r
    for r in range(RANKS):
        g.nspec[r] = 0
    for i in range(g.nsuited):
        card = g.suited[i]
        if g.first >= 0 and g.first // C_NV != suit and card != g.first and card // C_NV != suit:
            continue  # the first card needs the Prism here, so no other card of another suit fits
        value = card % C_NV + C_MIN
        own = card // C_NV == suit
        if not own and prism:
            g.spec_card[value][g.nspec[value]] = card
            g.spec_needs[value][g.nspec[value]] = A_PRISM
            g.nspec[value] += 1
        if cauldron and (own or prism):
            for rank in (value - 1, value + 1):
                if C_MIN <= rank <= C_MAX:
                    g.spec_card[rank][g.nspec[rank]] = card
                    g.spec_needs[rank][g.nspec[rank]] = A_CAUL if own else A_PRISM | A_CAUL
                    g.nspec[rank] += 1


cdef void fill(Gen* g, dict plays, int suit, int low, int top, int rank, int n, uint64_t free,
               int gaps, int arts) except *:
    """Place cards in slots ``rank..top`` (``g.buf[:n]`` so far); a slot may stay a gap."""
    cdef int nxt, own, i, card, needs, m
    if rank > top:
        close_run(g, plays, n, gaps, top - low + 1, top, arts)
        return
    if rank == g.past and not holds(g.buf, n, g.first):
        return
    nxt = rank + 1
    own = suit * C_NV + rank - C_MIN
    if (free >> own) & 1:
        g.buf[n] = own
        fill(g, plays, suit, low, top, nxt, n + 1, free & ~((<uint64_t>1) << own), gaps, arts)
    if gaps < g.wilds + ((arts & A_STONE) != 0):
        fill(g, plays, suit, low, top, nxt, n, free, gaps + 1, arts)
    for i in range(g.nspec[rank]):
        card = g.spec_card[rank][i]
        needs = g.spec_needs[rank][i]
        if (free >> card) & 1 and (needs & ~arts) == 0:
            g.buf[n] = card
            m = n + 1
            if needs & A_CAUL:
                g.buf[m] = K_CAUL
                m += 1
            if needs & A_PRISM:
                g.buf[m] = K_PRI
                m += 1
            fill(g, plays, suit, low, top, nxt, m, free & ~((<uint64_t>1) << card), gaps,
                 arts & ~needs)


cdef void close_run(Gen* g, dict plays, int n, int gaps, int length, int top, int arts) except *:
    """Record a run of ``g.buf[:n]`` whose ``gaps`` are filled by wilds, or wilds and the Stone."""
    cdef int i
    cdef int cards[MAXC]
    for i in range(n):
        cards[i] = g.buf[i]
    if gaps <= g.wilds:
        for i in range(gaps):
            cards[n + i] = C_WILD
        finish_run(g, plays, cards, n + gaps, length, top, arts)
    if gaps and (arts & A_STONE) and gaps <= g.wilds + 1:
        for i in range(gaps - 1):
            cards[n + i] = C_WILD
        cards[n + gaps - 1] = K_ST
        finish_run(g, plays, cards, n + gaps, length, top, arts)


cdef void finish_run(Gen* g, dict plays, int* cards, int n, int length, int top, int arts) except *:
    cdef int i
    record(g, plays, cards, n, _RUN_FINISH[top], C_RUN, length, top)
    if arts & A_PRISM:
        for i in range(n):
            if cards[i] < C_WILD:
                cards[n] = K_PRI
                record(g, plays, cards, n + 1, _RUN_FINISH[top], C_RUN, length, top)
                return


cdef int init_gen(Gen* g, const int* hand, int n, tuple top, bint focus) except -1:
    """Read a hand of ``n`` kinds and the table's top meld (``None``: leading) into ``g``, in
    dict mode (no mask)."""
    cdef int i, k, lowest_kind = C_KINDS, value, lift
    if n > MAXH:
        raise ValueError(f"a hand of {n} kinds: the compiled generator takes at most {MAXH}")
    g.arts = 0
    g.nsuited = 0
    g.held = 0
    g.wilds = 0
    g.mask = NULL
    for i in range(RANKS):
        g.nbv[i] = 0
    for i in range(n):
        k = hand[i]
        if not 0 <= k < C_KINDS:
            raise ValueError(f"not a card kind: {k} (kinds are 0..{C_KINDS - 1})")
        if k < lowest_kind:
            lowest_kind = k
        if k == C_WILD:
            g.wilds += 1
        elif k > C_WILD:
            g.arts |= (<uint64_t>1) << (k - C_WILD)
        else:
            g.suited[g.nsuited] = k
            g.nsuited += 1
            g.held |= (<uint64_t>1) << k
            value = k % C_NV + C_MIN
            g.bv[value][g.nbv[value]] = k
            g.nbv[value] += 1
    g.run_arts = (A_PRISM * has_art(g, K_PRI) | A_CAUL * has_art(g, K_CAUL)
                  | A_STONE * has_art(g, K_ST))
    g.half = has_art(g, K_HM)
    g.has_top = top is not None
    g.floor = -1
    if g.has_top:
        g.top_kind, g.top_size, g.top_rank2 = top[0], top[1], top[2]
        g.floor = g.top_rank2
    g.first = lowest_kind if focus and n and lowest_kind < C_WILD else -1
    g.near_lo, g.near_hi, g.past = C_MIN, C_MAX, C_MAX + 2
    if g.first >= 0:
        value = g.first % C_NV + C_MIN
        lift = has_art(g, K_CAUL)
        g.near_lo, g.near_hi, g.past = value - lift, value + lift, value + lift + 1
    return 0


cdef void generate(Gen* g, dict plays) except *:
    artifact_singles(g, plays)
    matching(g, plays)
    runs(g, plays)


def legal_plays(hand, top, bint focus=False) -> dict:
    """Every meld ``hand`` (kinds) may play on ``top`` (``None`` = leading), by sorted kinds:
    the reference's result, computed over C arrays."""
    cdef Gen g
    cdef int kinds[MAXH]
    cdef int n = len(hand), i = 0
    if n > MAXH:
        raise ValueError(f"a hand of {n} kinds: the compiled generator takes at most {MAXH}")
    for item in hand:
        kinds[i] = item
        i += 1
    init_gen(&g, kinds, n, top, focus)
    plays = {}
    generate(&g, plays)
    return plays


# -- the legal mask -----------------------------------------------------------------------------
cdef bint in_set_kinds(int k) noexcept:
    """``melds._SET_KINDS``: what may join suited cards in a Matching Set."""
    return k == C_WILD or k == K_EC or k == K_CAUL or k == K_HM


cdef bint in_run_kinds(int k) noexcept:
    """``melds._RUN_KINDS``: what may join suited cards in a Suited Run."""
    return k == C_WILD or k == K_ST or k == K_PRI or k == K_CAUL or k == K_HM


cdef bint alone(int k) noexcept:
    """``melds._ALONE``: in no meld with another card (but Half Moon)."""
    return k == K_ROD or k == K_GIFT or k == K_LENS or k == K_GO or k == K_CR


cdef int contenders(const int* hand, int n, int tk, int ts, int tr, int* out) noexcept:
    """``melds.contenders`` over C arrays: the kinds that can be in a meld beating the top
    (a Set or Run); how many, written to ``out``."""
    cdef int i, k, m = 0, least, low
    cdef bint match = tk == C_MATCH
    if ts < 2:
        for i in range(n):
            out[i] = hand[i]
        return n
    least = (tr - 1) // 2 + 1
    low = least - 1 if match else least - ts
    for i in range(n):
        k = hand[i]
        if (in_set_kinds(k) if match else in_run_kinds(k)) or (
            k < C_WILD and k % C_NV + C_MIN >= low
        ):
            out[m] = k
            m += 1
    return m


cdef int joiners(const int* hand, int n, int first, bint single_top, int* out) noexcept:
    """``melds.joiners`` over C arrays (``single_top``: the top is a Single): the kinds that
    can be in a meld whose lowest kind is ``first``; how many, written to ``out``."""
    cdef int i, k, m = 0, suit, value, reach, wilds = 0, nabove = 0, j, x
    cdef bint prism = False, cauldron = False, stone = False
    cdef int above[MAXH]
    if single_top:
        for i in range(n):
            if hand[i] == first or hand[i] == K_CAUL or hand[i] == K_HM:
                out[m] = hand[i]
                m += 1
        return m
    if first == K_GO or first == K_CR:
        for i in range(n):
            if hand[i] == first or hand[i] == K_HM:
                out[m] = hand[i]
                m += 1
        return m
    for i in range(n):  # ``rest``, in out
        k = hand[i]
        if k >= first and not alone(k):
            out[m] = k
            m += 1
            prism |= k == K_PRI
            cauldron |= k == K_CAUL
            stone |= k == K_ST
            wilds += k == C_WILD
    if first >= C_WILD or prism:
        return m
    suit, value = first // C_NV, first % C_NV
    n, m = m, 0
    if cauldron:
        for i in range(n):
            k = out[i]
            if k >= C_WILD or k // C_NV == suit or abs(k % C_NV - value) <= 1:
                out[m] = k
                m += 1
        return m
    reach = value + wilds + stone
    for i in range(n):
        k = out[i]
        if first < k < C_WILD and k // C_NV == suit:
            x = k % C_NV
            j = nabove
            while j > 0 and above[j - 1] > x:
                above[j] = above[j - 1]
                j -= 1
            above[j] = x
            nabove += 1
    for i in range(nabove):
        if above[i] > reach + 1:
            break
        reach += 1
    for i in range(n):
        k = out[i]
        if k >= C_WILD or (k % C_NV == value if k // C_NV != suit else k % C_NV <= reach):
            out[m] = k
            m += 1
    return m


@cython.final
cdef class LegalMask:
    """:meth:`SeersCatalogGame.legal_mask_py` compiled: the same bytes for every state, from
    the meld generator run in mask mode on the kinds the reference's tables would key on, with
    no table kept (hands rarely repeat, and many tables played in turn share none)."""

    cdef readonly int size
    cdef readonly tuple config
    cdef int adds[NKINDS]
    cdef int match_ids[RANKS]
    cdef int run_ids[RANKS]
    cdef int art_id, pass_id, rod_id, nothers
    cdef int gift_ids[MAXP]
    cdef int lens_ids[MAXP]

    def __init__(self, int size, dict adds, dict finishes, int pass_id, int rod_id,
                 tuple gift_ids, tuple lens_ids):
        """``adds``: kind -> add id; ``finishes``: finish -> play id (``StepIds``); the ids of
        pass, the Rod, and the Gift and Lens by other seat."""
        cdef int k, v
        if len(gift_ids) != len(lens_ids) or len(gift_ids) >= MAXP:
            raise ValueError(f"{len(gift_ids)} Gift and {len(lens_ids)} Lens ids")
        self.size, self.config = size, (size, adds, finishes, pass_id, rod_id, gift_ids, lens_ids)
        for k in range(NKINDS):
            self.adds[k] = -1
        for v in range(RANKS):
            self.match_ids[v] = self.run_ids[v] = -1
        for kind, action in adds.items():
            self.adds[checked(kind, NKINDS, "kind")] = checked(action, size, "action id")
        for (kind, value), action in finishes.items():
            if kind == C_MATCH:
                self.match_ids[checked(value, RANKS, "value")] = checked(action, size, "action id")
            elif kind == C_RUN:
                self.run_ids[checked(value, RANKS, "value")] = checked(action, size, "action id")
            else:
                self.art_id = checked(action, size, "action id")
        self.pass_id, self.rod_id = checked(pass_id, size, "pass id"), checked(rod_id, size, "rod id")
        self.nothers = len(gift_ids)
        for k in range(self.nothers):
            self.gift_ids[k] = checked(gift_ids[k], size, "gift id")
            self.lens_ids[k] = checked(lens_ids[k], size, "lens id")

    def __reduce__(self):
        return LegalMask, self.config

    def mask(self, state):
        """``int8`` mask for the seer to act (all zero once the game is over)."""
        mask = _zeros(self.size, _int8)
        self._write(state, mask)
        return mask

    def write(self, state, out) -> None:
        """The mask written into ``out``, ``size`` writable bytes (a vector env's mask row):
        zeroed, then set, with no array made."""
        self._write(state, out)

    cdef int _write(self, state, out) except -1:
        cdef Py_buffer view
        PyObject_GetBuffer(out, &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS)
        try:
            if view.len != self.size or view.itemsize != 1:
                raise ValueError(f"out must be {self.size} bytes")
            memset(view.buf, 0, self.size)
            if not state.over:
                self._set(state, <char*>view.buf)
        finally:
            PyBuffer_Release(&view)
        return 0

    cdef int _set(self, state, char* m) except -1:
        cdef Gen g
        cdef int kinds[MAXH]
        cdef int cards[MAXH]
        cdef int n = 0, ncards, i, code
        cdef list hand = state.hands[state.turn], pending = state.pending, table = state.table
        cdef tuple top = (<object>table[len(table) - 1]).key if table else None
        if len(hand) > MAXH or len(pending) >= MAXC:
            raise ValueError(f"a hand of {len(hand)} cards, {len(pending)} chosen: too many")
        for item in hand:
            code = checked(item, C_CODES, "card code")
            kinds[n] = C_KIND_OF[code]
            n += 1
        g.depth = len(pending)
        for i in range(g.depth):
            g.prefix[i] = C_KIND_OF[checked(pending[i], C_CODES, "card code")]
        if not g.depth:
            return self._leading(state, hand, kinds, n, top, m)
        if top is not None and top[1] > 1:
            ncards = contenders(kinds, n, top[0], top[1], top[2], cards)
            init_gen(&g, cards, ncards, top, False)
        else:
            single = top is not None and top[1] == 1
            ncards = joiners(kinds, n, g.prefix[0], single, cards)
            ncards = joiners(cards, ncards, g.prefix[0], False, kinds)
            init_gen(&g, kinds, ncards, top, True)
        self._generate(&g, m)
        return 0

    cdef int _generate(self, Gen* g, char* m) except -1:
        """The generator in mask mode (``g.depth`` and ``g.prefix`` set)."""
        g.mask, g.found = m, 0
        g.adds, g.match_ids, g.run_ids, g.art_id = self.adds, self.match_ids, self.run_ids, self.art_id
        generate(g, None)
        return 0

    cdef int _leading(self, state, list hand, int* kinds, int n, tuple top, char* m) except -1:
        """No meld in progress: the kinds that can start a meld (``MoveTables.first_steps``),
        then pass, the Rod, the Gift and the Lens (``SeersCatalogGame.legal_actions``)."""
        cdef Gen g
        cdef int cards[MAXH]
        cdef int i, k, ncards, least, low, starts = 0
        cdef bint wild = False, go = False, crown = False, rod, gift, lens = False
        cdef bint half = False, cauldron = False, may_pass
        for i in range(n):
            k = kinds[i]
            wild |= k == C_WILD
            go |= k == K_GO
            crown |= k == K_CR
            half |= k == K_HM
            cauldron |= k == K_CAUL
            lens |= k == K_LENS
        rod, gift = any_kind(kinds, n, K_ROD) and top is not None, any_kind(kinds, n, K_GIFT)
        if top is None or (top[0] == C_MATCH and top[1] == 1):  # ``start_kinds``
            low = C_MIN - C_MIN  # leading: every suited card starts a meld
            if top is not None:
                least = (<int>top[2] - half) // 2 + 1
                low = least - C_MIN - cauldron
            if top is not None and least > C_MAX:
                if crown and least <= C_CROWN_VALUE:
                    starts += self._start(m, K_CR)
            else:
                for i in range(n):
                    if kinds[i] < C_WILD and kinds[i] % C_NV >= low:
                        starts += self._start(m, kinds[i])
                if wild:
                    starts += self._start(m, C_WILD)
                if go and top is None:
                    starts += self._start(m, K_GO)
                if crown:
                    starts += self._start(m, K_CR)
        else:  # after a Set or Run: the first kinds of every meld that beats it
            ncards = contenders(kinds, n, top[0], top[1], top[2], cards)
            init_gen(&g, cards, ncards, top, False)
            g.depth = 0
            self._generate(&g, m)
            starts = g.found
        may_pass = not ((starts or rod or gift) and len(hand) <= C_BONUS_LIMIT) if top is not None else not (starts or rod or gift)
        if may_pass:
            m[self.pass_id] = 1
        if rod:
            m[self.rod_id] = 1
        for i in range(self.nothers):
            if gift:
                m[self.gift_ids[i]] = 1
            if lens:
                m[self.lens_ids[i]] = 1
        return 0

    cdef int _start(self, char* m, int kind) except -1:
        """Mark the add of ``kind`` as a first step; 1."""
        if self.adds[kind] < 0:
            raise ValueError(f"kind {kind} has no add action")
        m[self.adds[kind]] = 1
        return 1


cdef bint any_kind(const int* kinds, int n, int kind) noexcept:
    cdef int i
    for i in range(n):
        if kinds[i] == kind:
            return True
    return False


cdef inline int checked(object v, long limit, str what) except -1:
    """``v`` if in ``0..limit-1``: a state out of range would write out of bounds."""
    cdef long x = v
    if not 0 <= x < limit:
        raise ValueError(f"{what} {x} is out of range 0..{limit - 1}")
    return <int>x
