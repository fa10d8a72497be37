"""`companion trick|meld|play medieval-mastery`: answers, JSON, and one-line errors."""

import json

import pytest

from companion.cli import main


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_trick_names_the_winner_and_why(capsys):
    code, out, _ = run(capsys, "trick", "medieval-mastery", "KC", "ZC", "KS")
    assert code == 0
    assert out.splitlines()[0] == "winner: 1 (ZC, Zany of Cups)"
    assert out.splitlines()[1].startswith("why: Zany of Cups beats King of Cups")


def test_trick_json_and_full_names(capsys):
    code, out, _ = run(capsys, "trick", "medieval-mastery", "Queen of Staffs", "queen of cups",
                       "King of Pentacles", "--json")
    assert code == 0
    answer = json.loads(out)
    assert answer["winner"] == 2 and answer["why"].startswith("King of Pentacles is the highest card")


def test_meld_reports_kind_legality_problems_and_points(capsys):
    code, out, _ = run(capsys, "meld", "medieval-mastery", "JC", "PC")
    assert code == 0
    assert out.splitlines() == ["JC PC: junior family of Cups", "not legal:",
                                "  - Jack and Princess of Cups cannot marry: same suit"]
    code, out, _ = run(capsys, "meld", "medieval-mastery", "KS", "QS", "MS", "--json")
    assert json.loads(out) == {"kind": "royal family", "title": "Royal family of Swords",
                               "legal": True, "problems": [], "points": 122}
    code, out, _ = run(capsys, "meld", "medieval-mastery", "AS", "BC", "CT")
    assert out.splitlines() == ["AS BC CT: A-commune", "legal, 46 points"]


def test_meld_best_proposes_a_tableau(capsys):
    code, out, _ = run(capsys, "meld", "medieval-mastery", "--best", "KS", "QC", "MC", "GW", "--json")
    answer = json.loads(out)
    assert code == 0 and answer["points"] == 25 + 24 + 12 and answer["left"] == ["GW"]
    assert [g["cards"] for g in answer["groups"]] == [["KS", "QC", "MC"]]


@pytest.mark.parametrize("args, words", [
    (["trick", "medieval-mastery", "KC"], "2 to 14 cards"),
    (["trick", "medieval-mastery", "KC", "Kng of Cups"], "unknown card 'Kng of Cups'"),
    (["trick", "medieval-mastery", "KC", "KC"], "given twice"),
    (["meld", "medieval-mastery", "5S"], "unknown card '5S'"),
    (["play", "medieval-mastery", "--players", "2"], "3 to 14 players, not 2"),
    (["play", "medieval-mastery", "--rounds", "-1"], "'rounds' must be at least 0"),
])
def test_bad_input_is_one_line_and_status_2(capsys, args, words):
    code, out, err = run(capsys, *args)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and words in err and err.startswith("companion: error:")


def test_play_plays_rounds_to_the_target_by_default(capsys):
    # RULINGS: rounds repeat until someone reaches the target (3125 by default)
    code, out, _ = run(capsys, "play", "medieval-mastery", "--players", "3", "--seed", "2", "--json")
    assert code == 0
    events = [json.loads(line) for line in out.splitlines()]
    assert events[0]["type"] == "start" and events[0]["config"] == {"players": 3, "rounds": 0,
                                                                    "target": 3125}
    rounds = [e for e in events if e["type"] == "round"]
    assert [e["round"] for e in rounds] == list(range(1, len(rounds) + 1)) and len(rounds) >= 2
    assert [r["over"] for r in rounds] == [max(r["totals"]) >= 3125 for r in rounds]
    assert rounds[-1]["over"] and events[-1]["type"] == "end"


def test_play_with_rounds_plays_that_many(capsys):
    code, out, _ = run(capsys, "play", "medieval-mastery", "--players", "3", "--seed", "2",
                       "--rounds", "1", "--json")
    assert code == 0
    events = [json.loads(line) for line in out.splitlines()]
    assert events[0]["config"] == {"players": 3, "rounds": 1, "target": 3125}
    assert [e["round"] for e in events if e["type"] == "round"] == [1]
    code, text, _ = run(capsys, "play", "medieval-mastery", "--players", "3", "--seed", "2",
                        "--rounds", "1")
    lines = text.splitlines()
    assert lines[0] == "Medieval Mastery: players 3, rounds 1, target 3125, seed 2"
    assert any(line.startswith("Round 1 ends after trick") for line in lines)
    assert lines[-1].startswith("Game over. Scores:")
