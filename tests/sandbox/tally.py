"""A count of hostile requests sent and 5xx answers seen, per suite, for the record.

Set ``LYT_HOSTILE_TALLY=path`` to have the counts appended to that file as JSON
lines when the process ends (the suite's figures, e.g. for a report).
"""

from __future__ import annotations

import atexit
import json
import os
from collections import Counter


class Tally:
    def __init__(self) -> None:
        self.sent: Counter[str] = Counter()
        self.server_errors: Counter[str] = Counter()

    def add(self, suite: str, status: int) -> None:
        self.sent[suite] += 1
        if status >= 500:
            self.server_errors[suite] += 1

    def dump(self, path: str) -> None:
        if not self.sent:
            return
        with open(path, "a", encoding="utf-8") as out:
            for suite, sent in sorted(self.sent.items()):
                row = {"suite": suite, "sent": sent, "5xx": self.server_errors[suite]}
                out.write(json.dumps(row) + "\n")


TALLY = Tally()

if os.environ.get("LYT_HOSTILE_TALLY"):
    atexit.register(TALLY.dump, os.environ["LYT_HOSTILE_TALLY"])
