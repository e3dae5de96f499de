# The exact search of memcore's "best" plan (csrc/src/plan_exact.c, driven by exact_search
# in csrc/src/plan.c), for the pure-Python fallback (memcore_fallback.plan), node for node
# and step for step as the C core, so the fallback's plans and step counts are the core's.
#
# A module of its own, compiled only when a plan may need it, and written for a board's
# heap: MicroPython compiles this source in the heap that already holds memcore_boot and
# memcore_fallback, and the parse tree of the whole module lives until its bytecode is
# made.  So: one search function with the C functions inlined (no class, no methods, no
# docstrings: a docstring is parsed into the heap too), comments rather than strings, and
# the state in int32 arrays (half a list's bytes on a 64-bit port).  On the PyPI unix port
# (64-bit) importing it alone needs a 32 KB heap and leaves 3.8 KB of code; the class of
# methods it replaces needed 42 KB and left 5.5 KB.

from array import array

_NONE = 2147483647  # INT32_MAX, no floor yet


def _run(size, lo, hi, off, floor, rem, link, fr, frames, target, steps, limit):
    # mc__exact_run: (0 found, off holds it | 1 none exists | 2 out of steps or stack,
    # steps).  fr: 3 ints a depth (move, a, z), grown as the search goes deeper.
    k, n_sec = len(size), len(floor)
    for s in range(n_sec):
        floor[s] = rem[s] = link[s] = 0
    for c in range(k):
        off[c] = -1
        h = hi[c]
        for s in range(lo[c], h + 1):
            rem[s] += size[c]
            if s < h:
                link[s] += 1
        steps += h - lo[c] + 1
    for s in range(n_sec):
        if rem[s] > target:
            return 1, steps
        if link[s] == 0:
            link[s] = -1
    clo = d = 0
    steps += n_sec
    entering = True
    while True:
        if entering:  # enter(d): the lowest floor of the group, its leftmost run [a, z]
            end = clo
            while end < n_sec - 1 and link[end] > 0:
                end += 1
            f, a = _NONE, 0
            for s in range(clo, end + 1):
                if floor[s] < f:
                    f, a = floor[s], s
            z = a
            while z < end and floor[z + 1] == f:
                z += 1
            steps += 2 * (end - clo + 1)
            c, h = 0, k
            while c < h:
                m = c + (h - c) // 2
                if lo[m] < a:
                    c = m + 1
                else:
                    h = m
                steps += 1
            i = 3 * d
            if len(fr) <= i:
                fr.extend((0, 0, 0))
            fr[i], fr[i + 1], fr[i + 2] = c - 1, a, z
        entering = False
        if steps > limit:
            return 2, steps
        # next_move(d): the next buffer of the run placed at its floor, else the waste
        i = 3 * d
        c, a, z = fr[i], fr[i + 1], fr[i + 2]
        f = floor[a]
        moved = False
        if c >= -1:
            c += 1
            while c < k and lo[c] <= z:
                steps += 1
                if off[c] >= 0 or hi[c] > z or (c > 0 and off[c - 1] < 0 and lo[c - 1] == lo[c] and
                                                hi[c - 1] == hi[c] and size[c - 1] == size[c]):
                    c += 1
                    continue
                v = f + size[c]
                if a > clo and floor[a - 1] < v:
                    v = floor[a - 1]
                m = lo[c]
                s = a
                while s < m and v + rem[s] <= target:  # fits(a, lo - 1, v)
                    s += 1
                if s < m:
                    steps += s - a + 1
                    c += 1
                    continue
                steps += 2 * (m - a)  # fits, then set_floor
                fr[i] = c
                off[c] = f
                for s in range(a, m):
                    floor[s] = v
                h, v = hi[c], f + size[c]
                for s in range(m, h + 1):  # place(c, a, f, v, d + 1)
                    floor[s] = v
                    rem[s] -= size[c]
                    if s < h:
                        link[s] -= 1
                        if link[s] == 0:
                            link[s] = -2 - d
                steps += h - m + 1
                moved = True
                break
            if not moved:
                fr[i] = -2 - f
                v = _NONE
                if a > clo:
                    v = floor[a - 1]
                if z < n_sec - 1 and link[z] > 0 and floor[z + 1] < v:
                    v = floor[z + 1]
                if v != _NONE:
                    s = a
                    while s <= z and v + rem[s] <= target:  # fits(a, z, v)
                        s += 1
                    if s <= z:
                        steps += s - a + 1
                    else:
                        steps += 2 * (z - a + 1)
                        for s in range(a, z + 1):
                            floor[s] = v
                        moved = True
        if moved:
            d += 1
            while clo < n_sec and rem[clo] == 0:  # advance()
                clo += 1
                steps += 1
            if clo == n_sec:
                return 0, steps
            if d == frames:
                return 2, steps
            entering = True
            continue
        # no move left at d: back to its parent, or, when it was the first node of a group
        # that became independent at depth e < d, fail the node at e (plan_exact.c)
        while True:
            if d == 0:
                return 1, steps
            e = d
            while clo < n_sec and rem[clo] == 0:
                clo += 1
                steps += 1
            i = 3 * d - 3
            c = fr[i]
            if (fr[i + 2] if c < -1 else hi[c]) < clo and link[clo - 1] < 0:
                e = -1 - link[clo - 1]
            back = e == d
            if back:
                e = d - 1
            while d > e:  # undo(d - 1)
                d -= 1
                i = 3 * d
                c, a = fr[i], fr[i + 1]
                if c < -1:
                    h, v = fr[i + 2], -2 - c
                else:
                    h, v = hi[c], off[c]
                for s in range(a, h + 1):
                    floor[s] = v
                steps += h - a + 1
                if c >= 0:
                    for s in range(lo[c], h + 1):
                        rem[s] += size[c]
                        if s < h:
                            link[s] = 1 if link[s] < 0 else link[s] + 1
                    off[c] = -1
                    if lo[c] < clo:
                        clo = lo[c]
            if back:
                break


def exact_search(ids, n, first, last, aligned, alignment, lower, budget, arena, offsets):
    # exact_search in plan.c: (steps, arena, proven); writes an improved plan into
    # offsets.  ids: the buffers with a size; n: all buffers (the C stack's size).
    order = sorted(ids, key=lambda b: (first[b], -aligned[b], -last[b], b))
    m = len(order)
    size, lo, hi, times = array("i"), array("i"), array("i"), array("i")
    total = spans = 0
    for b in order:
        total += aligned[b] // alignment
        if total > 1 << 30:  # EXACT_MAX_UNITS: the core's sums stay in 32 bits
            return 0, arena, False
        size.append(aligned[b] // alignment)
        if not times or times[-1] != first[b]:
            times.append(first[b])
        lo.append(len(times) - 1)
    for i in range(m):  # the last section at or before the last use
        c, h = lo[i], len(times) - 1
        while c < h:
            k = h - (h - c) // 2
            if times[k] <= last[order[i]]:
                c = k
            else:
                h = k - 1
        hi.append(c)
        spans += c - lo[i] + 1
    if spans > budget:
        return 0, arena, False
    forward = size, lo, hi, order
    # _run clears them; their sizes only matter here
    off, floor, fr = array("i", size), array("i", times), array("i")
    rem, link, times = array("i", times), array("i", times), None
    top, least = arena // alignment, lower // alignment
    run_steps, steps, low, odd = 4096, 0, True, False  # FIRST_RUN_STEPS in plan.c
    while least < top:
        target = least if low else top - 1
        if low and odd:  # turn in plan.c: every other pair's low run with time turned round
            t = len(floor) - 1  # by new first section, ties as they were (C's counting sort)
            lo, _, size, hi, order = zip(*sorted(zip([t - h for h in hi], range(m), size, [t - c for c in lo], order)))
            size, lo, hi = array("i", size), array("i", lo), array("i", hi)
        limit = steps + run_steps if budget - steps > run_steps else budget
        outcome, steps = _run(size, lo, hi, off, floor, rem, link, fr, 7 * n // 3, target, steps, limit)
        if outcome == 0:
            top = 0
            for i in range(m):
                if off[i] + size[i] > top:
                    top = off[i] + size[i]
                offsets[order[i]] = off[i] * alignment
        elif outcome == 1:
            least = target + 1
        elif limit == budget:
            break
        if low and odd:  # turned back: exactly the order before
            size, lo, hi, order = forward
        if not low:
            run_steps = 2 * run_steps if run_steps < budget // 2 else budget
            odd = not odd
        low = not low
    return min(steps, budget), top * alignment, least >= top
