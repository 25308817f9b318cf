"""Where a part of a file sits in the whole: what a worker knows of the parts it does not render."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class PartSpan:
    """Where one part sits in the whole file, in frames at the engine's ``sample_rate``."""

    index: int
    count: int  # parts in the file
    start: int  # the part's first frame (of the silence before it)
    frames: int  # the part's frames: silence before, speech, and for the last part the silence after
    total: int  # the whole file's frames
    sample_rate: int
    # Frames of silence the part starts with (the pause before it) and the next part starts with:
    # a seam placed inside silence joins without a trace, whatever a codec's filters reach across it.
    lead: int = 0
    next_lead: int = 0

    def __post_init__(self) -> None:
        if not 0 <= self.index < self.count:
            raise ValueError(f"part {self.index} of {self.count}")
        if self.start < 0 or self.frames < 0 or self.start + self.frames > self.total:
            raise ValueError(f"part {self.index} spans frames {self.start}..{self.start + self.frames} of {self.total}")
        if not 0 <= self.lead <= self.frames or self.next_lead < 0 or (self.last and self.next_lead):
            raise ValueError(f"part {self.index}: silence of {self.lead} frames before, {self.next_lead} after")

    @staticmethod
    def of_parts(frames: Sequence[int], sample_rate: int, leads: Sequence[int] | None = None) -> list[PartSpan]:
        """The spans of parts of ``frames`` each, one after another (``spans``)."""
        return spans(frames, sample_rate, leads)

    @property
    def end(self) -> int:
        return self.start + self.frames

    @property
    def last(self) -> bool:
        return self.index == self.count - 1

    @property
    def seam(self) -> int:
        """Where, in the file, this part's bytes begin when a codec moves the seam into silence:
        the middle of the silence it starts with (the file's start for the first part)."""
        return 0 if self.index == 0 else self.start + self.lead // 2

    @property
    def next_seam(self) -> int:
        """Where the next part's bytes begin (the file's end after the last part)."""
        return self.total if self.last else self.end + self.next_lead // 2


def spans(frames: Sequence[int], sample_rate: int, leads: Sequence[int] | None = None) -> list[PartSpan]:
    """The spans of parts of ``frames`` each, one after another, each starting with ``leads`` frames of silence."""
    leads = list(leads) if leads is not None else [0] * len(frames)
    total = sum(frames)
    out, start = [], 0
    for index, size in enumerate(frames):
        following = leads[index + 1] if index + 1 < len(frames) else 0
        out.append(PartSpan(index, len(frames), start, size, total, sample_rate, leads[index], following))
        start += size
    return out


def checked(samples: np.ndarray, span: PartSpan) -> np.ndarray:
    """``samples`` if they are one part's, as long as its span says; ``ValueError`` otherwise."""
    if samples.ndim != 1 or samples.size != span.frames:
        raise ValueError(f"part {span.index} has {samples.size} samples, its span {span.frames}")
    return samples
