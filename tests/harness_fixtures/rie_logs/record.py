"""Records what this machine's RIE logs for each kind of invocation, into ``<case>.log`` beside this file.

``./dev python tests/harness_fixtures/rie_logs/record.py`` after an RIE upgrade; ``test_harness_rie_log.py``
then shows whether the log adapter still reads the new binary's lines. Each file holds one
invocation's lines as ``Rie.invoke`` collects them (RIE's own and the function's, interleaved).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))  # tests/, for harness_fixtures

from harness_fixtures.support import sample_function  # noqa: E402
from supertonic_harness.function.rie import Rie  # noqa: E402

# case: (sample function, its timeout, its environment, the events sent in turn; the last one's log is kept)
CASES = {
    "cold-success": ("echo", 5, {}, [{"n": 1}]),
    "warm-success": ("echo", 5, {}, [{"n": 1}, {"n": 2}]),
    "handler-error": ("fail", 5, {}, [{}]),
    # The harness's own timeout (runtime_proxy kills the runtime): RIE sees only a killed runtime.
    "timeout": ("sleep", 1, {}, [{"seconds": 30}]),
    # RIE's own timeout: an init past Lambda's 10 s allowance runs into RIE's deadline.
    "init-timeout": ("echo", 1, {"SAMPLE_INIT_SECONDS": "12"}, [{}]),
    "init-error": ("no_such_handler", 5, {}, [{}]),
}


def record(case: str) -> Path:
    name, timeout_s, environment, events = CASES[case]
    with Rie(sample_function(name, timeout_s=timeout_s, **environment)) as emulator:
        for event in events:
            invocation = emulator.invoke(json.dumps(event).encode())
    path = HERE / f"{case}.log"
    path.write_text("".join(f"{line}\n" for line in invocation.log.lines))
    return path


if __name__ == "__main__":
    for case in sys.argv[1:] or CASES:
        print(record(case))
