"""The exact search of memcore's "best" plan (csrc/src/plan_exact.c, driven by
exact_search in csrc/src/plan.c), for the pure-Python fallback (memcore_fallback.plan),
node for node and step for step as the C core, so the fallback's plans and step counts
are the core's.

A module of its own so that a board running the fallback compiles it only when a plan
needs it, after memcore_fallback is in memory.
"""

FIRST_RUN_STEPS = 4096  # FIRST_RUN_STEPS in plan.c
FRAME_INTS = 3  # MC_EXACT_FRAME_INTS
MAX_UNITS = 1 << 30  # EXACT_MAX_UNITS
NONE = 2147483647


class _Exact:
    """mc_exact_t and mc__exact_run: canonical plans on a skyline of section floors,
    groups of sections searched one after the other (plan_exact.c says why)."""

    def __init__(self, size, lo, hi, sections, frames):
        self.size, self.lo, self.hi = size, lo, hi
        self.k = len(size)
        self.sections = sections
        self.frames = frames
        self.off = [-1] * self.k
        self.floor = [0] * sections
        self.rem = [0] * sections
        self.link = [0] * sections
        self.frame = []  # grown as the search goes deeper: a board's heap is small
        self.steps = 0
        self.clo = 0

    def set_floor(self, a, b, v):
        floor = self.floor
        for s in range(a, b + 1):
            floor[s] = v
        if b >= a:
            self.steps += b - a + 1

    def fits(self, a, b, v):
        rem, target = self.rem, self.target
        for s in range(a, b + 1):
            if v + rem[s] > target:
                self.steps += s - a + 1
                return False
        if b >= a:
            self.steps += b - a + 1
        return True

    def place(self, c, a, f, left, d):
        lo, hi, size, rem, link = self.lo[c], self.hi[c], self.size[c], self.rem, self.link
        self.off[c] = f
        self.set_floor(a, lo - 1, left)
        self.set_floor(lo, hi, f + size)
        for s in range(lo, hi + 1):
            rem[s] -= size
            if s < hi:
                link[s] -= 1
                if link[s] == 0:
                    link[s] = -1 - d

    def undo(self, d):
        fr = self.frame
        c, a = fr[FRAME_INTS * d], fr[FRAME_INTS * d + 1]
        if c < -1:
            self.set_floor(a, fr[FRAME_INTS * d + 2], -2 - c)
            return
        lo, hi, size, rem, link = self.lo[c], self.hi[c], self.size[c], self.rem, self.link
        self.set_floor(a, hi, self.off[c])
        for s in range(lo, hi + 1):
            rem[s] += size
            if s < hi:
                link[s] = 1 if link[s] < 0 else link[s] + 1
        self.off[c] = -1
        if lo < self.clo:
            self.clo = lo

    def advance(self):
        while self.clo < self.sections and self.rem[self.clo] == 0:
            self.clo += 1
            self.steps += 1

    def enter(self, d):
        floor, link, clo = self.floor, self.link, self.clo
        end = clo
        while end < self.sections - 1 and link[end] > 0:
            end += 1
        f, a = NONE, 0
        for s in range(clo, end + 1):
            if floor[s] < f:
                f, a = floor[s], s
        z = a
        while z < end and floor[z + 1] == f:
            z += 1
        self.steps += 2 * (end - clo + 1)
        lo, hi = 0, self.k
        while lo < hi:
            mid = lo + (hi - lo) // 2
            if self.lo[mid] < a:
                lo = mid + 1
            else:
                hi = mid
            self.steps += 1
        fr = self.frame
        if len(fr) <= FRAME_INTS * d:
            fr.extend((0, 0, 0))
        fr[FRAME_INTS * d], fr[FRAME_INTS * d + 1], fr[FRAME_INTS * d + 2] = lo - 1, a, z

    def next_move(self, d):
        fr, floor, off, size, lo, hi = self.frame, self.floor, self.off, self.size, self.lo, self.hi
        move, a, z = fr[FRAME_INTS * d], fr[FRAME_INTS * d + 1], fr[FRAME_INTS * d + 2]
        f = floor[a]
        if move < -1:
            return False
        c = move + 1
        while c < self.k and lo[c] <= z:
            left = f + size[c]
            self.steps += 1
            if off[c] >= 0 or hi[c] > z or (c > 0 and off[c - 1] < 0 and lo[c - 1] == lo[c] and
                                            hi[c - 1] == hi[c] and size[c - 1] == size[c]):
                c += 1
                continue
            if a > self.clo and floor[a - 1] < left:
                left = floor[a - 1]
            if lo[c] > a and not self.fits(a, lo[c] - 1, left):
                c += 1
                continue
            fr[FRAME_INTS * d] = c
            self.place(c, a, f, left, d + 1)
            return True
        fr[FRAME_INTS * d] = -2 - f
        g = NONE
        if a > self.clo:
            g = floor[a - 1]
        if z < self.sections - 1 and self.link[z] > 0 and floor[z + 1] < g:
            g = floor[z + 1]
        if g == NONE or not self.fits(a, z, g):
            return False
        self.set_floor(a, z, g)
        return True

    def left_behind(self, d):
        c = self.frame[FRAME_INTS * d]
        return (self.frame[FRAME_INTS * d + 2] if c < -1 else self.hi[c]) < self.clo

    def run(self):
        """0: found (off holds it), 1: none exists, 2: out of steps or stack."""
        n_sec = self.sections
        for s in range(n_sec):
            self.floor[s] = self.rem[s] = self.link[s] = 0
        for c in range(self.k):
            self.off[c] = -1
            for s in range(self.lo[c], self.hi[c] + 1):
                self.rem[s] += self.size[c]
                if s < self.hi[c]:
                    self.link[s] += 1
            self.steps += self.hi[c] - self.lo[c] + 1
        for s in range(n_sec):
            if self.rem[s] > self.target:
                return 1
            if self.link[s] == 0:
                self.link[s] = -1
        self.clo = 0
        self.steps += n_sec
        self.enter(0)
        d = 0
        while True:
            if self.steps > self.limit:
                return 2
            if self.next_move(d):
                d += 1
                self.advance()
                if self.clo == n_sec:
                    return 0
                if d == self.frames:
                    return 2
                self.enter(d)
                continue
            while True:
                e = d
                if d == 0:
                    return 1
                self.advance()
                if self.left_behind(d - 1) and self.link[self.clo - 1] < 0:
                    e = -1 - self.link[self.clo - 1]
                if e == d:
                    d -= 1
                    self.undo(d)
                    break
                while d > e:
                    d -= 1
                    self.undo(d)


def exact_search(ids, n, first, last, aligned, alignment, lower, budget, arena, offsets):
    """exact_search in plan.c: returns (steps, arena, proven); writes an improved plan
    into offsets.  ids: the buffers with a size; n: all buffers (the stack's size)."""
    order = sorted(ids, key=lambda b: (first[b], -aligned[b], -last[b], b))
    m = len(order)
    size, lo, hi, times = [], [], [], []
    total = 0
    for b in order:
        total += aligned[b] // alignment
        size.append(aligned[b] // alignment)
        if not times or times[-1] != first[b]:
            times.append(first[b])
        lo.append(len(times) - 1)
    spans = 0
    for i in range(m):
        lo_i, h = lo[i], len(times) - 1
        while lo_i < h:
            mid = h - (h - lo_i) // 2
            if times[mid] <= last[order[i]]:
                lo_i = mid
            else:
                h = mid - 1
        hi.append(lo_i)
        spans += lo_i - lo[i] + 1
    if total > MAX_UNITS or spans > budget:
        return 0, arena, False
    x = _Exact(size, lo, hi, len(times), 7 * n // FRAME_INTS)
    top = arena // alignment
    least = lower // alignment
    run_steps = FIRST_RUN_STEPS
    low = True
    while least < top:
        x.target = least if low else top - 1
        x.limit = x.steps + run_steps if budget - x.steps > run_steps else budget
        outcome = x.run()
        if outcome == 0:
            top = 0
            for i in range(m):
                if x.off[i] + size[i] > top:
                    top = x.off[i] + size[i]
                offsets[order[i]] = x.off[i] * alignment
        elif outcome == 1:
            least = x.target + 1
        elif x.limit == budget:
            break
        if not low:
            run_steps = 2 * run_steps if run_steps < budget // 2 else budget
        low = not low
    return min(x.steps, budget), top * alignment, least >= top
