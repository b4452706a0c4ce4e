"""protocol.md 14 in both implementations: every frame but a `msg` (at a host, but a `join` or `again`, which have
budgets of their own), a frame of a kind not in the table of frames (a later version's, or junk) too, counts as an
ask of its link ("Bounds": a burst of 64, then 20 a second; past it not answered, and once a slack of
1,280 more is spent each is a bad message; the 21st bad message closes the link). The same frames, at the same
times, go to the reference's net/frames.py frame_verdict (what on_frame judges every frame by) and to the TypeScript
page's link.ts askVerdict (what page_node.ts judges every frame by, in the web/peer/test/mixed.ts node process), and
both must give every frame the same verdict, so both close the link at the same frame.

Before session 45 neither counted a frame of an unknown kind, a `bye`, a `lobby`, a `probed`, ... at all: a seat's
tiny ones (`["zz", n]`) to a phone page, 38 M in 30 s, held its main thread 16 s busy and cut nothing (docs/fair-play.md, session 44's red team). On main
this test failed: the reference had no ask_verdict (since session 46 frame_verdict), and the node process no `asks` op.
"""

from __future__ import annotations

from typing import Any

from mixed import NodeSeats
from test_mixed_tables import child as child  # noqa: F401 (the node process of test_mixed_tables, a fixture)

from p2pnimmt.net.connection import Asks, Budgets
from p2pnimmt.net.frames import MAX_LINK_FAULTS, frame_verdict

BURST, SLACK, RATE = int(Asks.BURST), int(Asks.SLACK), int(Asks.PER_SECOND)


def verdicts(child: NodeSeats, frames: list[tuple[int, str]]) -> list[str]:
    """Each frame's verdict ([seconds, kind] on one fresh link), the same in both implementations (else it fails)."""
    budgets = Budgets()
    ours = [frame_verdict(budgets, kind, float(at)) for at, kind in frames]
    answer: dict[str, Any] = child.call("asks", 0, frames=[[at, kind] for at, kind in frames])
    assert "error" not in answer, answer
    assert answer["verdicts"] == ours, "the two implementations judge a link's frames differently"
    return ours


def cut_at(judged: list[str]) -> int | None:
    """The 1-based frame at which the link is closed: its (MAX_LINK_FAULTS + 1)th bad message; None if not closed."""
    bad = 0
    for n, verdict in enumerate(judged, 1):
        bad += verdict == "bad"
        if bad > MAX_LINK_FAULTS:
            return n
    return None


def test_a_flood_of_an_unknown_kind_is_cut_at_the_same_frame(child: NodeSeats) -> None:
    judged = verdicts(child, [(100, "zz")] * (BURST + SLACK + 30))
    assert judged[:BURST] == ["taken"] * BURST  # within the budget: ignored, and free
    assert judged[BURST:BURST + SLACK] == ["excused"] * SLACK
    assert cut_at(judged) == BURST + SLACK + MAX_LINK_FAULTS + 1  # 1,365: the 21st bad message


def test_every_frame_but_a_msg_shares_one_budget(child: NodeSeats) -> None:
    """Unknown kinds, asks and every other frame but a `msg` (a `bye`, a `lobby`, a `probed` nobody asked for, ...:
    since session 45 too, each cost its receiver as long as they came) take from one budget."""
    kinds = ["heads", "\u00e9t\u00e9", "ping", "", "seen", "x" * 100, "probe", "where", "msg", "bye", "lobby", "probed",
             "rematch", "refuse", "join", "again"]
    frames = [(10, kinds[n % len(kinds)]) for n in range(2 * (BURST + SLACK))]
    judged = verdicts(child, frames)
    assert [kind for (_, kind), v in zip(frames, judged, strict=True) if v == "free"] == ["msg"] * judged.count("free")
    charged = [v for v in judged if v != "free"]
    assert charged[:BURST] == ["taken"] * BURST and charged[BURST:BURST + SLACK] == ["excused"] * SLACK
    assert cut_at(judged) is not None


def test_a_host_takes_joins_and_answers_to_a_rematch_from_budgets_of_their_own() -> None:
    """The reference as a host (the page hosts no game): `join` and `again` frames are not asks there (their own
    budgets, a burst of 4, then 1 a second, no slack: connection.Budgets.joins and .answers; a `msg` is free)."""
    budgets = Budgets()
    judged = [frame_verdict(budgets, kind, 0.0, host=True) for kind in ["join", "again", "msg"] * 6]
    assert judged == ["taken", "taken", "free"] * 4 + ["bad", "bad", "free"] * 2
    assert frame_verdict(budgets, "bye", 0.0, host=True) == "taken" and budgets.asks.budget.level == Asks.BURST - 1


def test_a_later_versions_rare_frames_never_cost_a_link(child: NodeSeats) -> None:
    """A later version's new kind a few times a second beside an honest node's asks (about ten a second at the most)
    for ten minutes: every one taken, none past the budget."""
    frames = [(t, kind) for t in range(600) for kind in ["new-kind"] * 5 + ["heads"] * 2 + ["ping", "seen", "where"]]
    assert set(verdicts(child, frames)) == {"taken"}


def test_the_budget_fills_at_its_rate_for_unknown_kinds_too(child: NodeSeats) -> None:
    """Past the burst and slack, a second later RATE more are taken again: a flood spread thin is never cut."""
    frames = [(0, "zz")] * (BURST + SLACK) + [(1, "zz")] * (RATE + 1) + [(2, "zz")] * (RATE + 1)
    judged = verdicts(child, frames)
    assert judged[BURST + SLACK:] == (["taken"] * RATE + ["excused"]) * 2
    assert cut_at(judged) is None
