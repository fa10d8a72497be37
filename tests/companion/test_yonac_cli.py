"""`companion yonac set` and `companion play yonac`: outputs, the event log, one-line errors."""

import json
import subprocess
import sys

import pytest

from companion.cli import main
from companion.eventlog import parse_lines, replay


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_set_with_the_ace_of_diamonds_asks_for_more(capsys):
    code, out, err = run(capsys, "yonac", "set", "AD", "5C")
    assert code == 0 and not err
    assert out.splitlines() == [
        "Set: Ace of Diamonds (AD), 5 of Clubs (5C)",
        "Ruling (¶ 2.2.1.7): the Ace of Diamonds asks for more cards.",
        "Draw more: the Ace of Diamonds asks for another card. Pick up one or more cards from "
        "the Pile and add them to the Set."]


@pytest.mark.parametrize(("args", "result", "stash", "aside", "pile"), [
    (["2C", "KH"], "keep", ["KH", "2C"], [], []),
    (["Ace of Spades", "7 of hearts"], "lose", [], [], ["AS", "7H"]),
    (["AS", "7H", "--potent-hearts"], "saved", ["AH"], [], ["AS", "7H"]),
    (["Joker", "AD", "3C"], "removed", ["3C", "JK1"], [], ["AD"]),
    (["Joker", "3C"], "keep", ["3C", "JK1"], [], []),
    (["AC", "AH", "9D"], "keep", ["9D"], ["AH", "AC"], []),
])
def test_set_json(capsys, args, result, stash, aside, pile):
    code, out, _ = run(capsys, "yonac", "set", *args, "--json")
    got = json.loads(out)
    assert code == 0
    assert (got["result"], got["stash"], got["aside"], got["pile"]) == (result, stash, aside, pile)
    assert got["rule"].startswith("¶ 2.2.1.") and got["next"]


def test_set_words_for_the_joker_that_cannot_be_swapped_and_the_aces_set_aside(capsys):
    _, out, _ = run(capsys, "yonac", "set", "Joker", "3C")
    assert "No other player has a Potent Ace, so the Joker cannot be swapped." in out
    _, out, _ = run(capsys, "yonac", "set", "AH", "2C")
    assert "Set the Ace of Hearts aside: it protects you from the next Ace of Spades." in out
    _, out, _ = run(capsys, "yonac", "set", "AS")
    assert "You are out: shuffle your stash back into the Pile" in out


@pytest.mark.parametrize(("args", "message"), [
    (["yonac", "set", "Ace of Spaeds"], "unknown card 'Ace of Spaeds' in the standard deck; "
                                        "closest: Ace of Spades (AS)"),
    (["yonac", "set", "AS", "as"], "card 'as' (AS) is given twice"),
    (["yonac", "set", "AH", "AS", "--potent-hearts"], "--potent-hearts says the Ace of Hearts is "
                                                      "set aside, but AH is in the Set"),
    (["yonac", "set"], "the following arguments are required: CARD"),
    (["play", "yonac", "--players", "3", "--threshold", "4"], "Yonac threshold 4 is more than "
                                                              "the 3 players"),
    (["play", "yonac", "--threshold", "1"], "'threshold' must be at least 2, got 1"),
    (["play", "yonac", "--players", "11"], "Yonac is played by 2 to 10 players, not 11"),
])
def test_bad_input_is_one_line_naming_the_value_with_status_2(capsys, args, message):
    code, out, err = run(capsys, *args)
    assert code == 2 and not out
    assert len(err.strip().splitlines()) == 1 and message in err


def test_bad_set_from_the_real_command_exits_2_without_a_traceback():
    proc = subprocess.run([sys.executable, "-m", "companion", "yonac", "set", "AS", "XX"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and not proc.stdout
    assert len(proc.stderr.strip().splitlines()) == 1
    assert proc.stderr.startswith("companion: error: unknown card 'XX' in the standard deck")


def test_play_json_prints_an_event_log_that_replays(capsys):
    code, out, _ = run(capsys, "play", "yonac", "--players", "5", "--threshold", "3", "--jokers",
                       "--seed", "11", "--json")
    assert code == 0
    events = [json.loads(line) for line in out.splitlines()]
    assert events[0] == {"type": "start", "format": 1, "game": "yonac",
                         "config": {"players": 5, "threshold": 3, "jokers": True}, "seed": 11}
    assert events[-1]["type"] == "end" and len(events[-1]["winners"]) == 1
    assert sum(e["type"] == "lose" for e in events) >= 2  # down to the threshold, then one more
    result = replay(parse_lines(out.splitlines()))
    assert result.ended and result.state.winners() == events[-1]["winners"]


def test_play_text_tells_the_game_in_words(capsys):
    code, out, _ = run(capsys, "play", "yonac", "--players", "3", "--seed", "2")
    lines = out.splitlines()
    assert code == 0 and lines[0] == "Yonac: players 3, threshold 2, jokers False, seed 2"
    assert lines[1].startswith("Seat 1 collects ") and lines[2].startswith("Shown face up: ")
    assert any(line.startswith("Sudden Death: ") for line in lines)
    assert lines[-2].startswith("Seat ") and " wins: " in lines[-2]
    assert lines[-1].startswith("Game over. Scores: ")
