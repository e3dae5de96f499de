"""The exact search of memcore's "best" plan (exact_search in csrc/src/plan.c), for the
pure-Python fallback (memcore_fallback.plan), node for node and step for step as the C
core, so the fallback's plans and step counts are the core's.

A module of its own so that a board running the fallback compiles it only when a model
with at most EXACT_BUFFERS buffers is planned, after memcore_fallback is in memory.
"""

FIRST_RUN_STEPS = 4096  # FIRST_RUN_STEPS in plan.c


class _Exact:
    """exact_search in plan.c: depth-first over buffers placed at their lowest free
    offset with offsets that never decrease, iterative deepening on the target."""

    def __init__(self, ids, by_first, first, last, aligned):
        k = len(ids)
        self.k = k
        self.size = [aligned[b] for b in ids]
        self.first = [first[b] for b in ids]
        self.last = [last[b] for b in ids]
        self.live = []
        prev = None
        for b in by_first:
            t = first[b]
            if t == prev:
                continue
            prev = t
            mask = 0
            for c in range(k):
                if self.first[c] <= t <= self.last[c]:
                    mask |= 1 << c
            self.live.append(mask)
        self.overlap = []
        for a in range(k):
            mask = 0
            for c in range(k):
                if c != a and self.first[a] <= self.last[c] and self.first[c] <= self.last[a]:
                    mask |= 1 << c
            self.overlap.append(mask)
        self.off = [0] * k
        self.rel = [0] * k
        self.steps = 0

    def priority(self, which):
        k, size, first, last = self.k, self.size, self.first, self.last
        if which == 0:
            key = lambda c: (first[c], -size[c], c)
        elif which == 1:
            key = lambda c: (size[c], c)
        else:
            key = lambda c: (first[c] - last[c], -size[c], c)
        rank = [0] * k
        for r, c in enumerate(sorted(range(k), key=key)):
            rank[c] = r
        twin = [-1] * k
        for a in range(k):
            for c in range(k):
                if c != a and size[c] == size[a] and first[c] == first[a] and last[c] == last[a] \
                        and rank[c] < rank[a] and (twin[a] < 0 or rank[c] > rank[twin[a]]):
                    twin[a] = c
        self.rank, self.twin = rank, twin

    def lowest(self, c, path, depth, start):
        at, size, overlap = start, self.size[c], self.overlap[c]
        for t in range(depth):
            j = path[t]
            if not (overlap >> j) & 1:
                continue
            s = self.off[j]
            e = s + self.size[j]
            if e <= at:
                continue
            if s - at >= size:
                break
            at = e
        return at

    def expand(self, path, depth, placed):
        """The node's children (by lowest offset, then priority), or None when cut."""
        k, size, off, rel, rank = self.k, self.size, self.off, self.rel, self.rank
        level = off[path[depth - 1]] if depth else 0
        level_rank = rank[path[depth - 1]] if depth else -1
        bound = 0
        for t in range(depth):
            j = path[t]
            if off[j] + size[j] > bound:
                bound = off[j] + size[j]
        children = []
        for c in range(k):
            if (placed >> c) & 1:
                continue
            low = self.lowest(c, path, depth, 0)
            if low < level:
                if low + size[c] <= level:
                    return None
                r = self.lowest(c, path, depth, level)
            else:
                r = low
            rel[c] = r
            if r + size[c] > bound:
                bound = r + size[c]
            twin = self.twin[c]
            if low >= level and (low > level or rank[c] > level_rank) and (twin < 0 or (placed >> twin) & 1):
                children.append(c)
        for live in self.live:
            if bound > self.target:
                break
            need = 0
            for c in range(k):
                if (live >> c) & 1 and not (placed >> c) & 1:
                    need += size[c]
            if need == 0:
                continue
            y = level
            for t in range(depth):
                j = path[t]
                s = off[j]
                e = s + size[j]
                if not (live >> j) & 1 or e <= y:
                    continue
                if s > y:
                    if s - y >= need:
                        break
                    need -= s - y
                y = e
            if y + need > bound:
                bound = y + need
        if bound > self.target:
            if bound < self.next_target:
                self.next_target = bound
            return None
        children.sort(key=lambda c: (rel[c], rank[c]))
        return children

    def run(self):
        k = self.k
        if self.steps + k > self.limit:
            return 2
        self.steps += k
        path = [0] * k
        kids = [None] * k
        nxt = [0] * k
        kids[0] = self.expand(path, 0, 0)
        if kids[0] is None:
            return 1
        depth = 0
        placed = 0
        while True:
            if nxt[depth] == len(kids[depth]):
                if depth == 0:
                    return 1
                depth -= 1
                placed &= ~(1 << path[depth])
                continue
            c = kids[depth][nxt[depth]]
            nxt[depth] += 1
            self.off[c] = self.lowest(c, path, depth, 0)
            path[depth] = c
            depth += 1
            placed |= 1 << c
            if depth == k:
                return 0
            cost = k * (depth + 1)
            if self.steps + cost > self.limit:
                return 2
            self.steps += cost
            children = self.expand(path, depth, placed)
            if children is None:
                depth -= 1
                placed &= ~(1 << c)
            else:
                kids[depth] = children
                nxt[depth] = 0


def exact_search(ids, by_first, first, last, aligned, lower, budget, arena, offsets):
    """Returns (steps, arena, proven); writes an improved plan into offsets."""
    x = _Exact(ids, by_first, first, last, aligned)
    x.target = lower
    run_steps = FIRST_RUN_STEPS
    which = 0
    while x.target < arena:
        x.next_target = arena
        x.priority(which)
        x.limit = min(x.steps + run_steps, budget)
        outcome = x.run()
        if outcome == 0:
            for a in range(x.k):
                offsets[ids[a]] = x.off[a]
            arena = x.target
            break
        if outcome == 1:
            x.target = x.next_target
            run_steps = FIRST_RUN_STEPS
            which = 0
            continue
        if x.limit >= budget:
            return x.steps, arena, False
        which += 1
        if which == 3:
            which = 0
            run_steps *= 2
    return x.steps, arena, True
