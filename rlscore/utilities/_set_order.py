"""Iteration order of CPython's ``set`` of small non-negative ints, written out.

RLScore's ``random_folds`` sampled from a set (``random.sample`` turned it into a tuple
in iteration order, on Python 3.6-3.10) and removed each fold with
``set.difference``, so its folds for a seed depend on that order. Current Python's
``random.sample`` refuses sets, and other interpreters order sets differently, so the
order is reproduced here from the hash-table rules of CPython's ``Objects/setobject.c``
(unchanged from 3.5 to 3.13), which for ints are deterministic (hash(i) = i):

* a table has a power-of-two size (at least 8); key i goes to slot ``i & mask``; on
  a collision the next 9 slots are probed linearly (when they exist), then the probe
  jumps to ``(5 j + 1 + perturb) & mask`` with ``perturb >>= 5`` (``set_insert_clean``);
* ``set(range(n))`` adds 0, 1, ..., n - 1 one by one, growing the table to the
  smallest power of two above 4 used whenever fill * 5 >= mask * 3 (so every key
  lands in its own slot);
* ``s.difference(list)`` copies s (``set_merge``: a table of the smallest power of
  two above 2 used, unless the copy still fits an 8-slot table; keys inserted in s's
  slot order) and replaces each removed key by a dummy slot; when more than mask / 4
  slots are then dummies the table is rebuilt (smallest power of two above 4 used,
  keys reinserted in slot order);
* iteration visits the slots in order, skipping empty and dummy ones.
"""

_LINEAR_PROBES = 9
_PERTURB_SHIFT = 5
_MINSIZE = 8
_EMPTY = None
_DUMMY = -1


def _insert_clean(table, mask, key):
    perturb = key
    i = key & mask
    while True:
        if table[i] is _EMPTY:
            table[i] = key
            return
        if i + _LINEAR_PROBES <= mask:
            for j in range(i + 1, i + _LINEAR_PROBES + 1):
                if table[j] is _EMPTY:
                    table[j] = key
                    return
        perturb >>= _PERTURB_SHIFT
        i = (i * 5 + 1 + perturb) & mask


def _table_size(minused):
    size = _MINSIZE
    while size <= minused:
        size <<= 1
    return size


class IntSet:
    """A CPython set of distinct non-negative ints, as its slot table.

    O(table size) per copy; ``order()`` is ``tuple(the_set)`` on CPython.
    """

    def __init__(self, table, used):
        self.table = table
        self.used = used

    @classmethod
    def from_range(cls, n):
        """``set(range(n))``: keys 0..n-1 added in order with the incremental growth
        of ``set_add_entry``; each key stays in slot key, so only the size matters."""
        size, fill = _MINSIZE, 0
        for _ in range(n):
            fill += 1
            if fill * 5 >= (size - 1) * 3:
                size = _table_size(fill * 2 if fill > 50000 else fill * 4)
        table = [_EMPTY] * size
        table[:n] = range(n)
        return cls(table, n)

    def order(self):
        """The iteration order (``tuple(s)``)."""
        return [k for k in self.table if k is not _EMPTY and k != _DUMMY]

    def difference(self, removed):
        """``s.difference(removed)`` for a list of members: ``set_copy`` then one
        dummy per removed key."""
        keys = self.order()
        used = len(keys)
        size = _MINSIZE
        if used * 5 >= (_MINSIZE - 1) * 3:              # set_merge's one big resize
            size = _table_size(used * 2)
        if size == len(self.table) and used == self._fill():
            table = list(self.table)                     # same size, no dummies: copy
        else:
            table = [_EMPTY] * size
            for k in keys:
                _insert_clean(table, size - 1, k)
        slot = {k: i for i, k in enumerate(table) if k is not _EMPTY and k != _DUMMY}
        gone = 0
        for k in removed:
            i = slot.pop(k, None)
            if i is not None:
                table[i] = _DUMMY
                gone += 1
        used -= gone
        if gone > (len(table) - 1) // 4:
            # set_difference_update_internal: more than mask/4 dummies -> resize them
            # away (set_table_resize, keys reinserted in slot order)
            keys = [k for k in table if k is not _EMPTY and k != _DUMMY]
            size = _table_size(used * 2 if used > 50000 else used * 4)
            table = [_EMPTY] * size
            for k in keys:
                _insert_clean(table, size - 1, k)
        return IntSet(table, used)

    def _fill(self):
        return sum(1 for k in self.table if k is not _EMPTY)
