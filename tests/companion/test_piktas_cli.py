"""`companion score piktas`, `companion hint piktas` and `companion play piktas`."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from companion.cli import main
from companion.eventlog import parse_lines, replay

FULL_HAND = ["--hand", "O7", "W7", "K7", "lizard", "U1", "U2", "--field", "O4", "O5", "O6",
             "jackal", "M9", "M10"]


def run(args, capsys):
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_score_prints_the_total_and_the_units(capsys):
    code, out, _ = run(["score", "piktas", *FULL_HAND], capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "Total 26"
    assert "Multi-Mixed Sequence" in lines[1] and lines[1].split()[0] == "22"
    assert "Full Hand" in lines[-1]


def test_score_json(capsys):
    code, out, _ = run(["score", "piktas", *FULL_HAND, "--json"], capsys)
    assert code == 0
    result = json.loads(out)
    assert result["total"] == 26 == sum(u["points"] for u in result["units"])
    assert [u["kind"] for u in result["units"]] == ["multi_mixed_sequence", "duo", "full_hand"]
    assert result["units"][1] == {"kind": "duo", "cards": ["W7", "K7"], "points": 2}


def test_score_takes_names_and_covered_cards(capsys):
    code, out, _ = run(["score", "piktas", "--hand", "void1", "Mountain Lion", "--field",
                        "3 of Stone", "O4", "O5", "O6", "O7", "--covered", "O8", "--json"], capsys)
    assert code == 0 and json.loads(out)["total"] == 2 * 6 + 8  # O3 to O8 with the covered O8


def test_hint_lists_every_move_best_first(capsys):
    code, out, _ = run(["hint", "piktas", "--hand", "O7", "K7", "M2", "--field", "W7", "U3",
                        "O9", "--json"], capsys)
    assert code == 0
    moves = json.loads(out)
    assert len(moves) == 1 + 3 * 3
    assert moves[0]["move"] == {"type": "swap", "take": "W7", "give": "M2"}
    assert moves[0]["total"] == 5 and moves[0]["units"][-1]["kind"] == "full_hand"
    totals = [m["total"] for m in moves]
    assert totals == sorted(totals, reverse=True)
    code, out, _ = run(["hint", "piktas", "--hand", "O7", "K7", "M2", "--field", "W7", "U3",
                        "O9"], capsys)
    assert "swap: take W7, give M2" in out.splitlines()[1]


def test_play_prints_a_replayable_round(capsys):
    code, out, _ = run(["play", "piktas", "--players", "3", "--seed", "4", "--json"], capsys)
    assert code == 0
    events = [json.loads(line) for line in out.splitlines()]
    assert events[0]["config"] == {"players": 3, "rounds": 1, "betting": False, "buy_in": 1,
                                   "max_raise": 5}
    assert [e["type"] for e in events].count("round") == 1
    result = replay(parse_lines(out.splitlines()))
    assert result.ended and result.state.scores() == events[-1]["scores"]
    code, out, _ = run(["play", "piktas", "--players", "2", "--rounds", "2", "--betting"], capsys)
    assert code == 0 and out.count("Round ") >= 2 and "takes the pot" in out


@pytest.mark.parametrize("args, words", [
    (["score", "piktas", "--hand", "O7", "Ox", "--field", "W1"], "unknown card 'Ox'"),
    (["score", "piktas", "--hand", "O7", "--field", "O7"], "O7 (7 of Stone) is given twice"),
    (["score", "piktas", "--hand", "O1", "O2", "O3", "O4", "O5", "O6", "O8", "--field", "W1"],
     "at most 6 cards, got 7"),
    (["score", "piktas", "--hand", "O1", "--field", "W1", "W2", "W3", "W4", "W5", "--covered",
      "W6", "W7"], "6 positions, got 5 uncovered and 2 covered"),
    (["hint", "piktas", "--hand", "O1", "--field", "void1", "W2"], "void1 in --field"),
    (["score", "piktas", "--hand", "O1"], "--field"),
    (["play", "piktas", "--players", "12"], "2 to 11 players, not 12"),
])
def test_bad_input_is_one_line_and_status_2(args, words, capsys):
    code, out, err = run(args, capsys)
    assert code == 2 and not out
    assert len(err.strip().splitlines()) == 1 and words in err and "Traceback" not in err


def test_the_real_command_exits_2_on_bad_input():
    proc = subprocess.run([sys.executable, "-m", "companion", "score", "piktas", "--hand", "O7",
                           "O7", "--field", "W1"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stderr.startswith("companion: error:")
