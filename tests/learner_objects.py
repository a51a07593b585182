"""Objects a learner's code might hand a check, built to fool it: each lies or breaks in one way.

A fair check reads real built-in values (teachagent/exercises/__init__.py), so none of these
may pass for a right answer, and none may make a check end in a traceback. Every lesson's
exercise tests and the quiz tests feed them to their checks.
"""

import sys


class AlwaysEqual:
    """Equal to everything, and ordered to match: never less, always at least."""

    def __eq__(self, other):
        return True

    def __lt__(self, other):
        return False

    __gt__ = __le__ = __ge__ = __eq__
    __hash__ = object.__hash__


class LyingInt(int):
    """An int that says it equals, and is at least, anything, and would turn into 42.0 if asked."""

    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    def __lt__(self, other):
        return False

    __gt__ = __le__ = __ge__ = __eq__
    __hash__ = int.__hash__

    def __float__(self):
        return 42.0


class LyingFloat(float):
    """A float that says it equals anything, and whose every difference is 0."""

    def __eq__(self, other):
        return True

    def __sub__(self, other):
        return 0.0

    __rsub__ = __sub__
    __hash__ = float.__hash__


class Broken:
    """An object that cannot be shown, measured or tested for truth."""

    def __str__(self):
        raise RuntimeError("no")

    __repr__ = __str__

    def __bool__(self):
        raise RuntimeError("no")

    def __len__(self):
        raise RuntimeError("no")


class Exits:
    """A number-like object that ends the process when read as a number."""

    def __float__(self):
        sys.exit(0)
