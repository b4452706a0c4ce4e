"""Many seeds of the seeded chaos at mixed tables (tests/peer/chaos.py), by hand: each seed's table played at the
all-Python table and at the mixed one, compared node by node (test_mixed_tables.node_by_node). Prints one line a
seed (ok or FAIL with the first difference, how long it took, the phases, the fault codes recorded, the plan) and,
at the end, how many seeds ran, how many failed, and which tables stopped with a seat still playing that nothing
excuses (not the cheat's, the forger's, the seats cut off for good, nor a node still starting that refused a seat's
START_ACK: it waits for its host's new start, which is not played in memory; the same at both tables, not a
disagreement, but worth a look). A cut marked `lossy` loses what was on its way; back, the heads exchange of the new
links brings it (and the proofs the node missed). Asserts nothing; exit status 1 if a seed failed.

    python benchmarks/chaos_sweep.py FIRST LAST   # seeds FIRST..LAST-1
    python benchmarks/chaos_sweep.py FIRST LAST --no-pull   # no node asks for what it lacks (as the GAPS seeds)

(the pytest form: P2PNIMMT_CHAOS_SEEDS=FIRST-LAST python -m pytest -q -n 2 tests/peer/test_chaos_agrees.py).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests" / "peer"), str(ROOT / "tests")]

from chaos import plan, play, still_playing  # noqa: E402
from test_mixed_tables import node_by_node, node_child  # noqa: E402

from p2pnimmt.protocol.transcript import records  # noqa: E402


class Folders:
    def mktemp(self, name: str) -> Path:
        return Path(tempfile.mkdtemp(prefix=name))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first", type=int)
    parser.add_argument("last", type=int)
    parser.add_argument("--no-pull", action="store_true",
                        help="no node asks the others for what it lacks (chaos.Plan.pull): votes cast over gaps")
    args = parser.parse_args()
    child = node_child(Folders())  # type: ignore[arg-type]
    failed, stopped = [], []
    began = time.time()
    try:
        for seed in range(args.first, args.last):
            p = plan(seed, not args.no_pull)
            t0 = time.time()
            try:
                table = play(p, child)
                outcomes = node_by_node(table, Path(tempfile.mkdtemp()))
            except Exception as e:  # a disagreement, or a node that threw
                failed.append(seed)
                print(f"{seed} FAIL {type(e).__name__} {p.describe()}\n    " + str(e)[:1500].replace("\n", "\n    "),
                      flush=True)
                continue
            mixed = table.mixed
            codes = sorted({b["code"] for peer in mixed.peers for what, b in records(bytes(mixed.transcripts[peer]))
                            if what == "fault"})
            still = still_playing(p, outcomes)
            if still:
                stopped.append(seed)
            print(f"{seed} ok {time.time() - t0:.1f}s {[o['phase'] for o in outcomes]} {codes}"
                  f"{' stopped ' + str(still) if still else ''} {p.describe()}", flush=True)
    finally:
        child.close()
    print(f"seeds {args.first}..{args.last - 1}: {args.last - args.first} run, {len(failed)} failed {failed}; "
          f"stopped with a seat still playing: {stopped}; {time.time() - began:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
