"""The words a yes/no question at the line prompt takes, in both languages.

A player's answer is read the same whichever language the prompt speaks: a
Polish player at an English prompt still types "tak".  Anything else is no
answer at all, and the question is asked again: a typo is not a "no" that
resigns a game or declines its rules.
"""

from __future__ import annotations

YES = frozenset({"y", "yes", "t", "tak"})
NO = frozenset({"n", "no", "nie"})


def yes_or_no(answer: str) -> bool | None:
    """True for a yes, False for a no, None for anything that is neither."""
    word = answer.strip().lower()
    if word in YES:
        return True
    if word in NO:
        return False
    return None
