"""`companion trick yokir`, `companion legal yokir` and `companion play yokir`."""

import json
import re
import subprocess
import sys

import pytest

from companion.cli import main


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_trick_text_names_the_winner_and_why(capsys):
    code, out, _ = run(capsys, "trick", "yokir", "--trump", "Thought", "MA", "Student of Leadership",
                       "JT")
    assert code == 0
    assert "2. SL  the Student of Leadership" in out
    assert out.strip().endswith("The third card wins: the Journeyman of Thought is the only trump.")


@pytest.mark.parametrize("trump, cards, winner", [
    ("T", ["MA", "SL", "JT"], 2),
    ("art & music", ["MA", "IA", "RA"], 1),        # the Sage of Art & Music is a trump
    ("m", ["Initiate of Architecture", "IM", "MM"], 1),  # the Oracle beats the Sage led
    ("Leadership", ["MA", "RA", "ML"], 2),
    ("A", ["JT", "PT", "MT"], 2),                  # no trump: highest Thought
])
def test_trick_json_gives_the_index_from_zero(capsys, trump, cards, winner):
    code, out, _ = run(capsys, "trick", "yokir", "--trump", trump, *cards, "--json")
    result = json.loads(out)
    assert code == 0 and result["winner"] == winner and isinstance(result["why"], str)


def test_legal_lists_the_cards_and_explains(capsys):
    code, out, _ = run(capsys, "legal", "yokir", "--trump", "T", "--hand", "IL", "ST", "MA",
                       "--led", "Master of Thought")
    assert code == 0
    assert "IL  the Initiate of Leadership (the Sage of Thought)" in out and "MA " not in out
    assert ("You must follow Thought; the Initiate of Leadership is the Sage of Thought and counts "
            "as trump.") in out
    code, out, _ = run(capsys, "legal", "yokir", "--trump", "T", "--hand", "IL", "SL", "MA",
                       "--led", "ML", "--json")
    assert json.loads(out)["legal"] == ["SL"]
    code, out, _ = run(capsys, "legal", "yokir", "--trump", "T", "--hand", "SL", "MA", "--json")
    assert json.loads(out) == {"legal": ["SL", "MA"], "why": "You lead: any card may be played."}


@pytest.mark.parametrize("args, words", [
    (["trick", "yokir", "--trump", "X", "MA", "SL", "JT"], "unknown suit 'X'"),
    (["trick", "yokir", "--trump", "T", "MA", "SL"], "a Yokir trick has 3 cards"),
    (["trick", "yokir", "--trump", "T", "MA", "SL", "JT", "RT"], "got 4"),
    (["trick", "yokir", "--trump", "T", "MA", "Master of Architecture", "JT"], "given twice"),
    (["trick", "yokir", "--trump", "T", "MA", "SL", "Mastre of Thougt"],
     "unknown card 'Mastre of Thougt'.*Master of Thought"),
    (["legal", "yokir", "--trump", "T", "--hand", "MA", "SA", "PA", "JA", "RA", "IA"], "1 to 5 cards"),
    (["legal", "yokir", "--trump", "T", "--hand", "MA", "--led", "MA"], "cannot also be in the hand"),
    (["legal", "yokir", "--trump", "Hearts", "--hand", "MA"], "unknown suit 'Hearts'"),
    (["legal", "yokir", "--hand", "MA"], "required: --trump"),
])
def test_bad_input_is_one_line_and_status_2(capsys, args, words):
    code, out, err = run(capsys, *args)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert err.startswith("companion: error: ")
    assert re.search(words, err), err


def test_play_json_prints_the_event_log():
    proc = subprocess.run([sys.executable, "-m", "companion", "play", "yokir", "--seed", "4",
                           "--json"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    assert events[0]["type"] == "start" and events[0]["game"] == "yokir"
    assert events[1]["type"] == "deal" and len(events[1]["hands"]) == 3
    assert events[-2]["type"] == "game" and events[-1]["type"] == "end"
    assert events[-1]["winners"] == [events[-2]["winner"]]


def test_play_text_reads_like_a_referee(capsys):
    code, out, _ = run(capsys, "play", "yokir", "--seed", "4")
    lines = out.splitlines()
    assert code == 0 and lines[0] == "Yokir: players 3, target 7, seed 4"
    assert any(line.startswith("Seat ") and " plays " in line for line in lines)
    assert any(line.startswith("Trick 1: seat ") for line in lines)
    assert lines[-1].startswith("Game over. Scores:")
