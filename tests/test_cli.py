"""The `companion` command: help everywhere, one-line errors with status 2."""

import json
import subprocess
import sys

import pytest

from companion.cli import build, main


def run(*args):
    proc = subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True,
                          text=True, timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


def all_command_paths():
    cli = build()
    paths = []

    def walk(parser, prefix):
        for action in parser._actions:
            if hasattr(action, "choices") and isinstance(action.choices, dict) and \
                    action.dest not in ("help",) and action.choices and \
                    all(hasattr(p, "parse_args") for p in action.choices.values()):
                for name, sub in action.choices.items():
                    paths.append([*prefix, name])
                    walk(sub, [*prefix, name])
    walk(cli.parser, [])
    return paths


def test_top_help_lists_every_command_with_a_description():
    code, out, _ = run("--help")
    assert code == 0
    for path in all_command_paths():
        if len(path) == 1:
            assert path[0] in out


@pytest.mark.parametrize("path", all_command_paths(), ids=" ".join)
def test_every_subcommand_has_help(path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([*path, "--help"])
    assert exit_.value.code == 0
    assert "usage: companion" in capsys.readouterr().out


@pytest.mark.parametrize("args", [["cards", "nodeck"], ["nosuchcommand"], ["play", "ahyoheek",
                                  "--players", "1"], ["score", "ahyoheek", "pen", "rock"],
                                  ["play", "ahyoheek", "--seed", "x"]])
def test_bad_input_is_one_line_with_status_2(args):
    code, _out, err = run(*args)
    assert code == 2
    assert len(err.strip().splitlines()) == 1, err
    assert err.startswith("companion") and "Traceback" not in err


def test_cards_piktas_prints_72_cards():
    code, out, _ = run("cards", "piktas")
    assert code == 0
    assert len(out.strip().splitlines()) == 73 and "72 cards" in out
    code, out, _ = run("cards", "piktas", "--json")
    assert len(json.loads(out)) == 72


def test_score_ahyoheek_json():
    code, out, _ = run("score", "ahyoheek", "pen", "beetle", "beetle", "page", "page", "--json")
    assert code == 0 and json.loads(out) == {"scores": [0, -1, -1, 1, 1], "winners": [3, 4]}


def test_play_json_is_the_event_log():
    _code, out, _ = run("play", "ahyoheek", "--players", "4", "--seed", "2", "--json")
    events = [json.loads(line) for line in out.splitlines()]
    assert events[0]["type"] == "start" and events[0]["config"]["players"] == 4
    assert events[-1]["type"] == "end"
