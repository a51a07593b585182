"""Errors a learner can cause, shown as one short message (course machinery, used by every lesson).

A learner who has no API key, no cassette, or who edited a prompt that a recording must
match needs one line that says what happened and what to do, not thirty lines of the
library's insides ending in that line. IPython shows an exception through its
`_render_traceback_` method when the exception has one, so each of these errors renders
as its own message. In a terminal they print the usual way.
"""

from __future__ import annotations


class CourseError(Exception):
    """An error whose message is the whole story: what went wrong and the fix."""

    def _render_traceback_(self) -> list[str]:
        return [f"{type(self).__name__}: {self}"]
