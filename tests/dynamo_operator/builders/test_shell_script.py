from __future__ import annotations

from pathlib import Path
from tempfile import TemporaryDirectory

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dynamo_operator.builders.errors import ShellSyntaxError
from dynamo_operator.builders.shell_script import insert_at, simple_commands

from .stub_programs import make_stubs


def words_of(script: str) -> list[list[str]]:
    return [list(command.words) for command in simple_commands(script)]


def marked(script: str) -> str:
    """The script with ``@`` after the last word of every simple command."""
    return insert_at(script, (command.end for command in simple_commands(script)), "@")


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        ("a 1 && b -x", "a 1@ && b -x@"),
        ("a | b || c; d & e", "a@ | b@ || c@; d@ & e@"),
        ("a > log 2>&1 && b", "a@ > log 2>&1 && b@"),
        ("a 2>err <in >>out", "a@ 2>err <in >>out"),
        ("a \\\n  --x y # note\nb", "a \\\n  --x y@ # note\nb@"),
        ("if a; then b; fi", "if a@; then b@; fi@"),
        ("(a; b) && { c; }", "(a@; b@) && { c@; }@"),
        ("a &> log; b |& c", "a@ &> log; b@ |& c@"),
    ],
)
def test_each_simple_command_ends_before_operators_redirections_and_comments(
    script: str, expected: str
) -> None:
    assert marked(script) == expected


@pytest.mark.parametrize(
    ("script", "words"),
    [
        ("a 'b c' \"d $X e\" f\\ g", [["a", "b c", "d $X e", "f g"]]),
        ('a "$(b "c d") e" `f g` ${H:-"i j"}', [["a", '$(b "c d") e', "`f g`", '${H:-"i j"}']]),
        ("a $(b; c) $((1 + (2))) d", [["a", "$(b; c)", "$((1 + (2)))", "d"]]),
        ("A=1 B='x y' a b", [["a", "b"]]),
        ("a A=1", [["a", "A=1"]]),
        ("a \"it's\" 'q\\' $'x\\'y' z", [["a", "it's", "q\\", "$'x\\'y'", "z"]]),
        ('a "# no comment" b#c', [["a", "# no comment", "b#c"]]),
        ("! a; while b; do c; done", [["a"], ["b"], ["c"], ["done"]]),
    ],
)
def test_words_are_unquoted_and_expansions_kept_whole(script: str, words: list[list[str]]) -> None:
    assert words_of(script) == words


def test_here_document_bodies_are_not_commands() -> None:
    script = "cat <<EOF | a\nb && c\nEOF\nd\ncat <<-'END'\n\te\n\tEND\nf"
    assert words_of(script) == [["cat"], ["a"], ["d"], ["cat"], ["f"]]


@pytest.mark.parametrize("script", ["a 'b", 'a "b', "a $(b", "a `b", "a ${b", 'a "$(b)'])
def test_unterminated_quotes_and_substitutions_do_not_parse(script: str) -> None:
    with pytest.raises(ShellSyntaxError):
        simple_commands(script)


def test_text_is_inserted_at_every_offset_once() -> None:
    assert insert_at("abc", [3, 1, 1], "-") == "a-bc-"


@given(st.text(alphabet=st.sampled_from(list("ab $'\"\\`(){}|&;<>#\n\t=0-")), max_size=60))
def test_any_text_parses_or_is_refused_and_words_lie_inside_it(script: str) -> None:
    try:
        commands = simple_commands(script)
    except ShellSyntaxError:
        return
    for command in commands:
        assert len(command.starts) == len(command.words) > 0
        assert list(command.starts) == sorted(command.starts)
        assert 0 <= command.starts[-1] < command.end <= len(script)


ARGUMENTS = st.sampled_from(
    [
        "x",
        "'a b'",
        '"c $HOME d"',
        "$(echo e f)",
        "`echo g`",
        "h\\ i",
        "--j=k",
        '"l\\"m"',
        "> out",
        "2>&1",
        ">> out 2> err",
        "< /dev/null",
    ]
)
COMMANDS = st.builds(
    lambda program, arguments: " ".join([program, *arguments]),
    st.sampled_from(["p1", "p2", "A=1 p3", "exec p1"]),
    st.lists(ARGUMENTS, max_size=4),
)
OPERATORS = st.sampled_from([" && ", "; ", " | ", "\n", " & "])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(COMMANDS, OPERATORS), min_size=1, max_size=4))
def test_the_shell_agrees_where_each_command_ends(pieces: list[tuple[str, str]]) -> None:
    """A word put at each end found here reaches, under /bin/sh, the program of that command."""
    script = "".join(command + operator for command, operator in pieces) + "wait"
    with TemporaryDirectory() as directory:
        stubs = make_stubs(Path(directory), "p1", "p2", "p3")
        ends = [command.end for command in simple_commands(script)][:-1]  # not `wait`
        stubs.run(["/bin/sh", "-c", insert_at(script, ends, " MARK")])
        calls = stubs.calls()
    assert calls  # the first command always runs: the script is valid for the shell
    assert all(call[-1] == "MARK" and call.count("MARK") == 1 for call in calls)
