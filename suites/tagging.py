"""The one place a case gets its clause tags: the clauses the oracle's answer to it cites.

Every case maker (strategies.common.make_case, the boundary cases, the doc examples, the error cases) tags
through `with_oracle_clauses`, so tags never restate a rule the oracle decides; the session reuses the
answer of the case tagged last (`last_answer`) instead of asking the oracle twice.
"""
from __future__ import annotations

import oracle
from contract.case import Case


def with_oracle_clauses(case: Case) -> Case:
    """The case with every clause the oracle's answer cites added to its own tags."""
    global _LAST_ANSWER
    answer = oracle.expect(case)
    merged = tuple(dict.fromkeys((*case.clauses, *answer.clauses)))
    tagged = case if merged == case.clauses else case.with_clauses(merged)
    _LAST_ANSWER = (tagged, answer)
    return tagged


# The case with_oracle_clauses made last and the oracle's answer for it: an explored case is checked right
# after it is drawn, and asking the oracle again would cost the example a second answer.
_LAST_ANSWER = (None, None)


def last_answer(case: Case):
    """oracle.expect(case) if `case` is the very object with_oracle_clauses made last, else None."""
    made, answer = _LAST_ANSWER
    return answer if made is case else None
