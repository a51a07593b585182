"""What any traceback printer could show of an error: the tests that keep a key out of sight read it all."""

import traceback


def everything_shown(error: BaseException) -> str:
    """The text of `error`'s whole chain and the repr of every variable of every frame (%xmode Verbose, --showlocals)."""
    shown, seen, pending = ["".join(traceback.format_exception(error)), repr(error)], set(), [error]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        tb = current.__traceback__
        while tb is not None:
            shown += [repr(value) for value in tb.tb_frame.f_locals.values()]
            tb = tb.tb_next
        pending += [e for e in (current.__cause__, current.__context__) if e is not None]
    return "\n".join(shown)
