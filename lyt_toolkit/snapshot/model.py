"""``ProgramSnapshot``: every kind of program data as it stood at one moment.

A snapshot holds one typed frame per kind (``FRAME_NAMES``), the service it came from and
the service's time when the pull began (and, per kind, when it was read: ``read_at``). It is
a record: ``pull`` fills it over the network and ``refresh`` brings it up to date by what is
new, through ``lyt_toolkit.fill``, imported only when called; ``to_csv`` writes it with the
manifest of ``lyt_toolkit.reports``. ``odd_values`` lists the odd values met in the
service's answers (one row per flagged value; not written to CSV).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from numbers import Integral
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from .._collector import collector_paused
from .._progress import Progress
from .._url import public_url
from ..frames.registry import FRAME_NAMES, SCHEMAS
from ..frames.sample import Sample, SampleDesign, draw_sample, member_points
from ..frames.schema import ODD_VALUES, OddValue
from ..reports.snapshot_csv import write_snapshot
from ..reports.snapshot_parquet import write_parquet_snapshot
from .clock import utc_now
from .cost import PullCalls, PullEstimate
from .defaults import (
    DEFAULT_CONCURRENCY,
    DEFAULT_SHARE,
    REFRESH_OVERLAP,
    EstimateOptions,
    MembersChoice,
    PullOptions,
    RefreshOptions,
    SampleSource,
)
from .diff import DEFAULT_IGNORE, MEMBER_KINDS, SnapshotDiff, compare
from .program_file import write_program
from .refresh_cost import RefreshCost

if TYPE_CHECKING:
    from ..client import LoyaltyClient
    from ..fill.pull import ClientSource, Pulled

__all__ = ["FRAME_NAMES", "ProgramSnapshot"]


@dataclass(eq=False)
class ProgramSnapshot:
    """Typed frames of one program's data as it stood at ``pulled_at``.

    ``source`` is the service's base URL (never credentials). ``pulled_at`` is
    the service's clock when the pull began, read from the token it issued
    (``expires_at - expires_in``), so audits of a sandbox with a fixed clock
    see that clock; it falls back to this machine's UTC time. ``odd`` holds the
    odd values met while building the frames (see ``odd_values``).
    """

    rewards: pd.DataFrame
    reward_costs: pd.DataFrame
    benefits: pd.DataFrame
    card_definitions: pd.DataFrame
    tier_structures: pd.DataFrame
    programs: pd.DataFrame
    members: pd.DataFrame
    cards: pd.DataFrame
    pending_buckets: pd.DataFrame
    source: str = ""
    pulled_at: pd.Timestamp = field(default_factory=utc_now)
    odd: tuple[OddValue, ...] = field(default=(), repr=False)
    calls: PullCalls | None = field(default=None, repr=False)
    """What the pull that made this snapshot sent and the budget left (None when not pulled)."""
    kinds: frozenset[str] = field(default=frozenset(FRAME_NAMES), repr=False)
    """The kinds it holds: those pulled (``pull(kinds=...)``) or given to ``from_frames``; the
    other frames are empty because they were not read, not because the service has none."""
    sample: SampleDesign | None = field(default=None, repr=False)
    """The sample whose members alone were read (None: every member). ``cards`` and
    ``pending_buckets`` then hold only theirs, each row with its member's ``weight``."""
    provenance: dict[str, Any] = field(default_factory=dict, repr=False)
    """How the snapshot was made, as the code that made it records it (empty: nothing
    recorded): for example when each kind was read or what a refresh replaced. Any JSON
    (text keys; text, numbers, true/false, None, lists, mappings, and instants, which are
    written as ISO 8601 text in UTC); ``to_parquet``, ``to_csv`` and a ``SnapshotHistory``
    write it to the manifest (``provenance``) and ``read_snapshot`` reads it back."""
    read_times: Mapping[str, tuple[pd.Timestamp, pd.Timestamp]] = field(
        default_factory=dict, repr=False
    )
    """Per kind, the service's time of the first and the last answer it was read from, when
    a pull recorded them (a checkpointed pull, which may run for hours: each kind is as it
    stood somewhere between the two, not at ``pulled_at``). Empty otherwise."""
    read_at: Mapping[str, pd.Timestamp] = field(default_factory=dict, repr=False)
    """How old each kind is: kind -> the service's time when its oldest rows were read (its
    rows are at least that fresh). One pull reads every kind at ``pulled_at``, a paced one
    at the first answer of its ``read_times``; a refresh (``refresh``) re-reads some kinds
    whole and only adds what is new to the others, which keep their earlier time. Kinds not
    held are absent. ``from_frames`` fills a kind not given so."""

    def frames(self) -> dict[str, pd.DataFrame]:
        """Frame name -> DataFrame, in ``FRAME_NAMES`` order."""
        return {name: getattr(self, name) for name in FRAME_NAMES}

    @property
    def odd_values(self) -> pd.DataFrame:
        """One row per odd value in the service's answers: kind, id, field, value, outcome.

        ``outcome`` is "set to NA" or "kept as a new category"; zero rows for clean data.
        """
        columns = ("kind", "id", "field", "value", "outcome")
        data = {c: pd.array([getattr(o, c) for o in self.odd], dtype="string") for c in columns}
        return pd.DataFrame(data, columns=list(columns))

    @classmethod
    def from_frames(
        cls,
        frames: Mapping[str, pd.DataFrame],
        *,
        source: str = "",
        pulled_at: str | datetime | None = None,
        odd_values: Iterable[OddValue] | None = None,
        calls: PullCalls | None = None,
        sample: SampleDesign | None = None,
        read_at: Mapping[str, str | datetime] | None = None,
        read_times: Mapping[str, tuple[pd.Timestamp, pd.Timestamp]] | None = None,
        provenance: Mapping[str, Any] | None = None,
    ) -> ProgramSnapshot:
        """A snapshot from ready frames; a missing kind becomes its empty frame (of a
        sample, ``cards`` and ``pending_buckets`` with their ``weight`` column), and
        ``kinds`` names the given ones.

        ``odd_values`` defaults to those the frames' builders recorded in their
        ``attrs["odd_values"]``. ``sample`` is the design of a sampled snapshot (see
        ``sampled``); ``provenance`` says how it was made (see the attribute). ``read_at``
        says when each given kind was read (see the attribute); a kind it does not name was
        read at the first of its ``read_times``, else at ``pulled_at``.
        """
        _check_frames(frames)
        built = {n: frames[n] if n in frames else SCHEMAS[n].empty() for n in FRAME_NAMES}
        if sample is not None:  # of a sample, its members' rows carry their weight
            built |= {n: sample.weigh(built[n]) for n in MEMBER_KINDS if n not in frames}
        stamp = utc_now() if pulled_at is None else _pulled_at(pulled_at)
        if odd_values is None:
            odd_values = [o for f in built.values() for o in f.attrs.get(ODD_VALUES, ())]
        stamps = dict(read_at or {})
        if unknown := set(stamps) - set(frames):
            raise ValueError(f"read_at names kinds not given: {sorted(unknown)}")
        spans = dict(read_times or {})
        when = {
            n: _utc(stamps[n]) if n in stamps else _utc(spans[n][0]) if n in spans else stamp
            for n in FRAME_NAMES
            if n in frames
        }
        return cls(
            **built,
            source=public_url(source),
            pulled_at=stamp,
            odd=tuple(odd_values),
            calls=calls,
            kinds=frozenset(frames),
            sample=sample,
            provenance=dict(provenance or {}),
            read_at=when,
            read_times=spans,
        )

    def __repr__(self) -> str:
        counts = ", ".join(f"{n}={len(f)}" for n, f in self.frames().items())
        sampled = "" if self.sample is None else f", sample={str(self.sample)!r}"
        return (
            f"ProgramSnapshot(source={self.source!r}, pulled_at={self.pulled_at}, {counts}"
            f"{sampled})"
        )

    def sampled(self, sample: Sample) -> ProgramSnapshot:
        """The snapshot a sampled pull would give: members, programs and every kind but
        cards and pending buckets whole; ``cards`` and ``pending_buckets`` only of the members
        ``sample`` draws (``draw_sample``), ordered by member ID (a member's rows keep their
        order), each row with its member's ``weight``. Economics of the result come with 95 %
        intervals; use it to see what a sample of a given size would tell."""
        if self.sample is not None:
            raise ValueError(
                f"this snapshot is already a sample ({self.sample}); sample a full one"
            )
        design = draw_sample(self.members, sample, self._points_of)
        return replace(
            self,
            cards=design.keep(self.cards),
            pending_buckets=design.keep(self.pending_buckets),
            calls=None,
            sample=design,
        )

    def _points_of(self, design: SampleDesign) -> pd.Series:
        """The points each of ``design``'s members holds on its cards (an adaptive sample's
        pilot, drawn from this full snapshot)."""
        return member_points(design.keep(self.cards))

    def to_csv(self, directory: str | Path) -> list[Path]:
        """Write one CSV per frame plus ``manifest.json``; returns the written paths.

        See ``lyt_toolkit.reports`` for the manifest and ``read_snapshot`` to read back.
        """
        return write_snapshot(self, directory)

    def to_parquet(self, directory: str | Path) -> list[Path]:
        """Write one Parquet file per frame plus ``manifest.json``; returns the written paths.

        ``read_snapshot`` reads the folder back with every dtype, category list and NA intact.
        """
        return write_parquet_snapshot(self, directory)

    def diff(
        self, other: ProgramSnapshot, *, ignore: Iterable[str] = DEFAULT_IGNORE
    ) -> SnapshotDiff[ProgramSnapshot]:
        """What changed from this snapshot to ``other``: one row per changed value.

        ``ignore`` names columns left out (default ``updated_at``). See
        ``lyt_toolkit.snapshot.diff`` for keys and equality rules. When either snapshot is a
        sample, cards and pending buckets are left out and the diff's ``note`` says so.
        """
        if not isinstance(other, ProgramSnapshot):
            raise TypeError(f"other: expected a ProgramSnapshot, not {type(other).__name__}")
        return compare(self, other, ignore=ignore)

    def drift(
        self,
        client: ClientSource = None,
        *,
        progress: Progress = True,
        budget_share: float = DEFAULT_SHARE,
    ) -> SnapshotDiff[ProgramSnapshot]:
        """What changed in the live program since this snapshot: the same kinds pulled again
        from ``client`` (as ``pull`` takes it, within ``budget_share``) and compared, this
        snapshot before, the live program after. An empty diff means no drift.

        A sampled snapshot's cards and pending buckets cannot be compared (see ``diff``), so
        they are not pulled again either: the live pull reads no member one by one."""
        # Imported here: the record and the analysis that reads it load no HTTP client.
        from ..fill.drift import pull_live

        live = pull_live(self, client, progress=progress, budget_share=budget_share)
        return self.diff(live)

    def to_program(self, path: str | Path) -> Path:
        """Write a ``lyt-program/1`` file the sandbox loads; returns its path.

        Real IDs, statuses, settings and timestamps are kept, the file's clock is
        ``pulled_at``, and what the records reference but the interface cannot
        list becomes placeholder records (see ``lyt_toolkit.snapshot.program_file``
        and data/README.md). ``Sandbox.start(snapshot=...)`` does this for you.
        A sampled snapshot is refused (``ValueError``): it would be a program whose
        unsampled members hold no cards.
        """
        return write_program(self, path)

    @classmethod
    def estimate(
        cls,
        client: LoyaltyClient,
        *,
        kinds: Iterable[str] | None = None,
        cards_per_member: int | None = None,
        read_members: bool = False,
        budget_share: float = DEFAULT_SHARE,
        read_sample: int | None = None,
    ) -> PullEstimate:
        """How many calls ``pull(client, kinds=kinds)`` will make, and the budget left.

        A list's length is known only by walking it, so this walks the lists the pull
        walks (its own calls are ``spent``; never a member one by one), within
        ``budget_share`` of the calls left in the window: when even the lists do not fit,
        it stops and says so (``complete`` is False). Every figure is then exact but the
        bucket lists, a bound (``bounds``): at most ``cards_per_member`` cards per member
        (default: one per card definition, the most a member can hold) hold pending points,
        since a member's cards are known only by reading it. ``read_sample`` reads that many
        members, drawn at random (seeded), one call each (in ``spent``, within the share),
        when the pull lists bucket lists, and projects those from the cards the members read
        hold: ``expected`` and its 95 % ``interval``, beside the bounds (``projected``). Per
        kind: one call per page of 100 of each list, one per member (its cards), one per card
        holding pending points (its buckets), one per card definition referenced but not
        listed, one token request.
        ``read_members`` is deprecated: it reads every member to count exactly, as many
        calls as the pull. See ``lyt_toolkit.snapshot.cost``.
        """
        if cards_per_member is not None and (
            isinstance(cards_per_member, bool) or not isinstance(cards_per_member, Integral)
        ):
            raise TypeError(
                "cards_per_member: expected an integer or None,"
                f" not {type(cards_per_member).__name__}"
            )
        # Imported here: the record and the analysis that reads it load no HTTP client.
        from ..fill.estimate import estimate_pull

        options = EstimateOptions(
            kinds=kinds,
            cards_per_member=cards_per_member,
            read_members=read_members,
            budget_share=budget_share,
            read_sample=read_sample,
        )
        return estimate_pull(client, options)

    @classmethod
    def pull(
        cls,
        client: ClientSource = None,
        *,
        progress: Progress = True,
        concurrency: int = DEFAULT_CONCURRENCY,
        kinds: Iterable[str] | None = None,
        budget_share: float = DEFAULT_SHARE,
        sample: SampleSource = None,
        checkpoint: str | os.PathLike[str] | None = None,
    ) -> ProgramSnapshot:
        """Pull everything, or only the frames named in ``kinds`` (a list of frame names, or
        one name as text), blocking until done.

        ``client`` may be a ``LoyaltyClient`` (its calls go through it: its pool, proxies,
        ``rate=`` and ``quota``), an ``AsyncLoyaltyClient`` (one is built from its
        configuration, as it is bound to its own event loop; ``apull`` uses it as is), a
        ``ClientConfig``, a mapping of client keyword arguments, or None for the
        environment / ``.env``. Works inside Jupyter, whose event loop is already running.
        Frames not asked for are empty; ``calls`` says what the pull sent.

        The pull keeps to ``budget_share`` of the calls left in the window when it starts
        (default half; 1.0 uses them all, leaving none to the project's other traffic). It
        walks the lists first, then counts what reading the members and their cards' buckets
        needs; when that is more than its share holds, it sends nothing more and raises
        ``PullBudgetError``, which says what it needed, what was left and each way forward
        with its cost. See ``lyt_toolkit.fill.budget`` and ``estimate``.

        ``sample`` (a member count, or a ``Sample``) reads only a stratified random sample of
        the members listed, and their cards and buckets: about one call per sampled member
        instead of one per member. The snapshot is then a sample (``sample`` holds its
        design; its cards and pending buckets carry a ``weight``) and its economics come with
        95 % intervals; it equals ``full.sampled(sample)`` of a full pull of that moment.

        ``checkpoint`` (a folder) makes the pull paced and resumable, for programs whose
        pull needs more than one window: it keeps to ``budget_share`` of every window and
        waits across resets (its bar shows the calls done and to do, the next window and
        the expected end), never refusing for the budget. Its runs share a window: run again
        in it, the pull keeps to the share its first run there took, of what the window held
        then (less what other traffic spent since), the calls its earlier runs sent there
        counted against it, its token request included, so a run after the share is spent
        sends nothing and waits (a sandbox's clock, fixed or moved, not agreeing with this
        machine's: its token request, to learn the window; see
        docs/explanation/budgets.md); every answer is written to the
        folder as it arrives, and after a crash, ``kill -9``, Ctrl-C or a
        ``QuotaExhaustedError`` the same call resumes, reading nothing again that the folder
        holds (a second pull on the folder meanwhile is refused). The folder belongs to one
        pull: other ``kinds``, ``sample`` or service are refused. ``read_times`` then says
        when each kind was read. See ``lyt_toolkit.fill.checkpoint``.
        """
        # Imported here: the record and the analysis that reads it load no HTTP client. The
        # collector paused: a first pull imports the client and the pull (see collector_paused).
        with collector_paused():
            from ..fill.pull import pull_blocking

        options = PullOptions(
            progress=progress,
            concurrency=concurrency,
            kinds=kinds,
            budget_share=budget_share,
            sample=sample,
            checkpoint=checkpoint,
        )
        return cls._of(pull_blocking(client, options))

    @classmethod
    async def apull(
        cls,
        client: ClientSource = None,
        *,
        progress: Progress = True,
        concurrency: int = DEFAULT_CONCURRENCY,
        kinds: Iterable[str] | None = None,
        budget_share: float = DEFAULT_SHARE,
        sample: SampleSource = None,
        checkpoint: str | os.PathLike[str] | None = None,
    ) -> ProgramSnapshot:
        """Async twin of ``pull``; an ``AsyncLoyaltyClient`` given here is used as is."""
        # Imported here: the record and the analysis that reads it load no HTTP client.
        from ..fill.pull import pull_frames

        options = PullOptions(
            progress=progress,
            concurrency=concurrency,
            kinds=kinds,
            budget_share=budget_share,
            sample=sample,
            checkpoint=checkpoint,
        )
        return cls._of(await pull_frames(client, options))

    def refresh(
        self,
        client: ClientSource = None,
        *,
        members: MembersChoice = "new",
        progress: Progress = True,
        concurrency: int = DEFAULT_CONCURRENCY,
        budget_share: float = DEFAULT_SHARE,
        overlap: pd.Timedelta = REFRESH_OVERLAP,
        checkpoint: str | os.PathLike[str] | None = None,
    ) -> ProgramSnapshot:
        """This snapshot brought up to date by what is new, for far fewer calls than a pull.

        ``client`` is taken as ``pull`` takes it, and the refresh keeps to ``budget_share``
        of the calls left in the window as a pull does (``PullBudgetError`` with its ways
        forward when the members it reads do not fit). It reads again, whole, the short
        lists (card definitions, tier structures, programs, and benefits while they are a
        few pages), which finds their edits and deletions; the rewards and each program's
        members only since this snapshot's newest ``created_at`` less ``overlap`` (long
        benefit lists likewise, long card definition lists by ``created_at`` or
        ``updated_at``), each object kept once by ID. ``members`` chooses the members read
        for their cards and buckets: ``"all"``, ``"new"`` (the default), ``"none"`` or a
        ``Sample`` of old and new together (the snapshot is then a sample).

        With ``members="all"`` the result equals a full pull of the same moment frame for
        frame, but for what the interface cannot reveal without reading it whole: a reward
        edited or deleted since stays as it was. With ``"new"`` it equals it but for that
        and the old members' cards and pending buckets (their balances, as this snapshot
        holds them) and the old members' own fields; with ``"none"`` the new members have
        no cards. ``read_at`` says how old each kind is; ``refresh_cost`` shows each
        choice's calls first.

        ``checkpoint`` (a folder) makes the refresh paced and resumable as it makes a pull
        (see ``pull``), its runs keeping together to the share of each window: what
        re-reading every member costs (``members="all"``) can then be spread over as many
        windows as it needs.
        """
        # Imported here: the record and the analysis that reads it load no HTTP client.
        from ..fill.refresh import refresh_blocking

        options = RefreshOptions(
            members=members,
            progress=progress,
            concurrency=concurrency,
            budget_share=budget_share,
            overlap=overlap,
            checkpoint=checkpoint,
        )
        return refresh_blocking(self, client, options)

    async def arefresh(
        self,
        client: ClientSource = None,
        *,
        members: MembersChoice = "new",
        progress: Progress = True,
        concurrency: int = DEFAULT_CONCURRENCY,
        budget_share: float = DEFAULT_SHARE,
        overlap: pd.Timedelta = REFRESH_OVERLAP,
        checkpoint: str | os.PathLike[str] | None = None,
    ) -> ProgramSnapshot:
        """Async twin of ``refresh``; an ``AsyncLoyaltyClient`` given here is used as is."""
        # Imported here: the record and the analysis that reads it load no HTTP client.
        from ..fill.refresh import arefresh

        options = RefreshOptions(
            members=members,
            progress=progress,
            concurrency=concurrency,
            budget_share=budget_share,
            overlap=overlap,
            checkpoint=checkpoint,
        )
        return await arefresh(self, client, options)

    def refresh_cost(
        self,
        client: LoyaltyClient,
        *,
        sample: Sample | None = None,
        overlap: pd.Timedelta = REFRESH_OVERLAP,
        budget_share: float = DEFAULT_SHARE,
    ) -> RefreshCost:
        """What ``refresh(client, members=...)`` costs for ``"all"``, ``"new"``, ``"none"``
        (not for a sampled snapshot, which takes neither) and, when given, ``sample``, before
        any of it runs.

        The short lists are counted from this snapshot's sizes; a probe lists the programs
        and what the refresh lists by date (new members, new rewards), within
        ``budget_share`` of the calls left in the window (its calls are ``spent``). The
        bucket lists are expected as this snapshot saw them (its share of cards holding
        pending points). See ``lyt_toolkit.snapshot.refresh_cost``.
        """
        # Imported here: the record and the analysis that reads it load no HTTP client.
        from ..fill.refresh_probe import refresh_cost

        return refresh_cost(self, client, sample=sample, overlap=overlap, budget_share=budget_share)

    @classmethod
    def _of(cls, pulled: Pulled) -> ProgramSnapshot:
        return cls.from_frames(
            pulled.frames,
            source=pulled.source,
            pulled_at=pulled.pulled_at,
            calls=pulled.calls,
            sample=pulled.sample,
            read_times=pulled.read_times,
        )


def _check_frames(frames: Any) -> None:
    """``TypeError`` unless ``frames`` maps frame names to DataFrames; ``ValueError`` for a
    name that is no frame's."""
    if not isinstance(frames, Mapping):
        raise TypeError(
            f"frames: expected a mapping of frame names to DataFrames, not {type(frames).__name__}"
        )
    unknown = set(frames) - set(FRAME_NAMES)
    if unknown:
        raise ValueError(f"unknown frame names {sorted(unknown)}; known: {FRAME_NAMES}")
    for name, frame in frames.items():
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(f"frames[{name!r}]: expected a DataFrame, not {type(frame).__name__}")


def _pulled_at(moment: Any) -> pd.Timestamp:
    """``pulled_at`` as a UTC timestamp; ``TypeError`` or ``ValueError`` naming it."""
    if not isinstance(moment, str | datetime):
        raise TypeError(
            f"pulled_at: expected an ISO 8601 string or a datetime, not {type(moment).__name__}"
        )
    try:
        return _utc(moment)
    except ValueError:
        raise ValueError(f"pulled_at: {moment!r} is not a date and time") from None


def _utc(moment: str | datetime) -> pd.Timestamp:
    """``moment`` as a UTC timestamp (a naive one taken as UTC)."""
    stamp = pd.Timestamp(moment)
    return stamp.tz_localize("UTC") if stamp.tzinfo is None else stamp.tz_convert("UTC")
