"""utstools.common (the one argument parser, the argument types, provenance
and checksums) and utstools.figure_formats: what every tool relies on to
refuse bad usage in one line and to name what it ran."""
import argparse
import hashlib
import os

import pytest

from utstools import common, figure_formats


def error_of(parser, argv, capsys):
    """(exit status, stderr lines) of a parse that must fail."""
    with pytest.raises(SystemExit) as e:
        parser.parse_args(argv)
    return e.value.code, capsys.readouterr().err.splitlines()


def test_bad_usage_is_one_line_and_exit_2(capsys):
    p = common.Parser(prog="bench-x")
    p.add_argument("--reps", type=common.positive_int, required=True)
    code, err = error_of(p, ["--reps", "0"], capsys)
    assert code == 2
    assert err == ["bench-x: argument --reps: must be at least 1, not 0 (see --help)"]
    code, err = error_of(p, [], capsys)
    assert code == 2 and err == ["bench-x: the following arguments are required: --reps (see --help)"]


def test_parser_name_and_hint_reach_subparsers(capsys):
    names = {"error_name": "study", "error_hint": "see scripts/study --help"}
    p = common.Parser(prog="scripts/study", **names)
    sub = p.add_subparsers(dest="kind", parser_class=common.Parser)
    s = sub.add_parser("scaling", **names)
    s.add_argument("--out", required=True)
    code, err = error_of(p, ["scaling"], capsys)
    assert code == 2
    assert err == ["study: the following arguments are required: --out (see scripts/study --help)"]
    code, err = error_of(p, ["bogus"], capsys)
    assert code == 2 and len(err) == 1 and err[0].startswith("study: argument kind: invalid choice: 'bogus'")


def test_doc_parser_help_is_the_docstring(capsys):
    doc = "First line of the tool.\n\nusage: tool [--x]\n\nMore text, kept as written:\n  a  b\n"
    p = common.doc_parser("tool", doc)
    with pytest.raises(SystemExit) as e:
        p.parse_args(["--help"])
    out = capsys.readouterr().out
    assert e.value.code == 0
    assert "First line of the tool." in out and "More text, kept as written:\n  a  b" in out


def test_usage_and_run_errors(capsys):
    with pytest.raises(SystemExit) as e:
        common.usage_error("scale-study", "smpirun not found")
    assert e.value.code == 2 and capsys.readouterr().err == "scale-study: smpirun not found\n"
    with pytest.raises(SystemExit) as e:
        common.run_error("scale-study", "a point differs")
    assert e.value.code == 1 and capsys.readouterr().err == "scale-study: a point differs\n"


@pytest.mark.parametrize("text, expected", [("1,2,8", [1, 2, 8]), (" 4 , 16 ", [4, 16]), ("", []), ("3,", [3])])
def test_int_list(text, expected):
    assert common.int_list(text) == expected


@pytest.mark.parametrize("text", ["0", "1,x", "-2", "1.5"])
def test_int_list_refuses(text):
    with pytest.raises(argparse.ArgumentTypeError):
        common.int_list(text)


def test_counts_and_names():
    assert common.positive_int("7") == 7 and common.nonnegative_int("0") == 0
    with pytest.raises(argparse.ArgumentTypeError, match="at least 0, not -1"):
        common.nonnegative_int("-1")
    assert common.name_list("T1, T3 ,") == ["T1", "T3"]
    with pytest.raises(argparse.ArgumentTypeError, match="empty list"):
        common.name_list(" , ")


def test_sha256_of_known_content(tmp_path):
    f = tmp_path / "x.bin"
    f.write_bytes(b"abc")
    # FIPS 180-2's example digest of "abc".
    assert common.sha256_of(str(f)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    big = tmp_path / "big.bin"
    data = bytes(range(256)) * 9000  # past one 1 MiB read block
    big.write_bytes(data)
    assert common.sha256_of(str(big)) == hashlib.sha256(data).hexdigest()


def test_times_are_utc_in_two_documented_forms():
    assert len(common.utc_now()) == 20 and common.utc_now().endswith("Z") and common.utc_now()[10] == "T"
    assert common.utc_iso().endswith("+00:00") and common.utc_iso()[10] == "T"


def test_text_of_a_command_that_cannot_run_is_empty():
    assert common.text_of(["/nonexistent/tool"]) == ""
    assert common.uts_version("/nonexistent/uts") is None
    assert common.text_of(["echo", "hi"]) == "hi\n"


def test_root_is_the_checkout():
    assert os.path.isfile(os.path.join(common.ROOT, "scripts", "utstools", "common.py"))
    assert os.path.isdir(os.path.join(common.ROOT, "configs", "studies"))


@pytest.mark.parametrize("text, expected", [
    ("", ("png", "svg")), ("svg", ("svg",)), ("PDF, png", ("pdf", "png")), ("svg,svg", ("svg",)),
    ("png,jpeg", None), ("eps", None)])
def test_figure_formats_parse(text, expected):
    assert figure_formats.parse(text) == expected


def test_figure_formats_bad_environment_exits_2(monkeypatch, capsys):
    monkeypatch.setenv("UTS_FIGURE_FORMATS", "png,jpeg")
    with pytest.raises(SystemExit) as e:
        figure_formats.formats("plot-results")
    assert e.value.code == 2
    assert capsys.readouterr().err == ("plot-results: UTS_FIGURE_FORMATS='png,jpeg': expected a comma list of "
                                       "png, svg, pdf\n")
