"""Reading a POSIX shell script far enough to know where each simple command's words are.

The multinode rules put flags on one command of a user's script (the engine's launch) and on no
other: appending them to the script's end gives them to whatever runs last (``... && ls``). This
is no shell (nothing is expanded or run); it knows the grammar that decides where a simple command
ends: quoting (``'...'``, ``"..."``, ``$'...'``, backslashes), expansions (``$(...)``,
``$((...))``, ``${...}``, backquotes), control operators (``&&`` ``||`` ``;`` ``&`` ``|`` ``|&``
``;;`` parentheses, newlines), redirections (``2>&1``, ``> log``, here-documents, whose bodies
are skipped), comments, line continuations, and reserved words that start a command (``if``,
``then``, ``do``, ``!``, ``{`` ...). A command's words are kept unquoted, expansions as written.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from dynamo_operator.builders.errors import ShellSyntaxError

__all__ = ["SimpleCommand", "insert_at", "simple_commands"]

_BLANKS = " \t"
_WORD_END = " \t\n;&|()<>"
_OPERATORS = (";;&", "&&", "||", ";;", ";&", "|&", "&", "|", ";", "(", ")")
_REDIRECTION = re.compile(r"[0-9]*(?:<<<|<<-|&>>|<<|>>|<>|>&|<&|>\||&>|<|>)")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
_STARTS_COMMAND = frozenset({"if", "then", "else", "elif", "do", "while", "until", "!", "{"})
"""Reserved words after which, in command position, the next word begins a command."""


@dataclass(frozen=True, slots=True)
class SimpleCommand:
    words: tuple[str, ...]
    """Unquoted words, leading variable assignments left out; the first names the program."""
    starts: tuple[int, ...]
    """Offset in the script where each word begins."""
    end: int
    """Offset just after the command's last word (redirections after it are not its words)."""


@functools.lru_cache(maxsize=512)
def simple_commands(script: str) -> tuple[SimpleCommand, ...]:
    """The simple commands of ``script`` in order; ``ShellSyntaxError`` if it does not parse.
    Cached: every pod role of every replica reads the same script again."""
    return _Reader(script).read()


def insert_at(script: str, offsets: Iterable[int], text: str) -> str:
    """``script`` with ``text`` inserted at each of ``offsets``."""
    pieces, start = [], 0
    for offset in sorted(set(offsets)):
        pieces += [script[start:offset], text]
        start = offset
    return "".join([*pieces, script[start:]])


class _Reader:
    def __init__(self, script: str) -> None:
        self.text = script
        self.at = 0
        self.commands: list[SimpleCommand] = []
        self.words: list[str] = []
        self.starts: list[int] = []
        self.end = 0
        self.here_documents: list[tuple[str, bool]] = []

    def read(self) -> tuple[SimpleCommand, ...]:
        text = self.text
        while self.at < len(text):
            char = text[self.at]
            if char in _BLANKS:
                self.at += 1
            elif text.startswith("\\\n", self.at):
                self.at += 2
            elif char == "#":
                newline = text.find("\n", self.at)
                self.at = len(text) if newline < 0 else newline
            elif char == "\n":
                self._close_command()
                self.at += 1
                self._skip_here_documents()
            elif redirection := _REDIRECTION.match(text, self.at):
                self._read_redirection(redirection.group())
            elif operator := next((op for op in _OPERATORS if text.startswith(op, self.at)), ""):
                self._close_command()
                self.at += len(operator)
            else:
                self._read_command_word()
        self._close_command()
        return tuple(self.commands)

    def _close_command(self) -> None:
        if self.words:
            self.commands.append(SimpleCommand(tuple(self.words), tuple(self.starts), self.end))
        self.words, self.starts = [], []

    def _read_command_word(self) -> None:
        start = self.at
        value = self._word()
        if self.at == start:  # unreachable (every other character is handled above); no hang
            self.at += 1
            return
        raw = self.text[start : self.at]
        if not self.words and (_ASSIGNMENT.match(raw) or raw in _STARTS_COMMAND):
            return
        self.words.append(value)
        self.starts.append(start)
        self.end = self.at

    def _read_redirection(self, operator: str) -> None:
        self.at += len(operator)
        while self.at < len(self.text) and self.text[self.at] in _BLANKS:
            self.at += 1
        if self.at >= len(self.text) or self.text[self.at] in _WORD_END:
            return  # a syntax error for the shell; not ours to report
        target = self._word()
        if operator.lstrip("0123456789") in ("<<", "<<-"):
            self.here_documents.append((target, operator.endswith("-")))

    def _skip_here_documents(self) -> None:
        for delimiter, strip_tabs in self.here_documents:
            while self.at < len(self.text):
                newline = self.text.find("\n", self.at)
                line_end = len(self.text) if newline < 0 else newline
                line = self.text[self.at : line_end]
                self.at = line_end + 1
                if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                    break
        self.here_documents = []

    def _word(self) -> str:
        """Reads one word from ``at`` and returns its value without quotes."""
        text, value = self.text, []
        while self.at < len(text) and text[self.at] not in _WORD_END:
            char = text[self.at]
            if char == "\\":
                value.append(text[self.at + 1 : self.at + 2].replace("\n", ""))
                self.at = min(self.at + 2, len(text))
            elif char == "'":
                close = text.find("'", self.at + 1)
                if close < 0:
                    raise ShellSyntaxError("unterminated single quote")
                value.append(text[self.at + 1 : close])
                self.at = close + 1
            elif char == '"':
                value.append(self._double_quoted())
            elif char in "$`":
                value.append(self._expansion())
            else:
                value.append(char)
                self.at += 1
        return "".join(value)

    def _double_quoted(self) -> str:
        text, value = self.text, []
        self.at += 1
        while self.at < len(text) and text[self.at] != '"':
            char = text[self.at]
            if char == "\\":
                following = text[self.at + 1 : self.at + 2]
                value.append(following if following in '$`"\\' else "\\" + following)
                self.at += 2
            elif char in "$`":
                value.append(self._expansion(quoted=True))
            else:
                value.append(char)
                self.at += 1
        if self.at >= len(text):
            raise ShellSyntaxError("unterminated double quote")
        self.at += 1
        return "".join(value)

    def _expansion(self, *, quoted: bool = False) -> str:
        """Skips a ``$``-expansion or a backquoted command at ``at``; returns it as written.
        ``$'...'`` is an ANSI-C string only outside double quotes."""
        start, text = self.at, self.text
        if text[self.at] == "`":
            self.at = self._closing(self.at + 1, "`")
        elif text.startswith("$(", self.at):
            self.at = self._closing(self.at + 2, ")")
        elif text.startswith("${", self.at):
            self.at = self._closing(self.at + 2, "}")
        elif text.startswith("$'", self.at) and not quoted:
            self.at = self._closing(self.at + 2, "'")
        else:
            self.at += 1
        return text[start : self.at]

    def _closing(self, at: int, closer: str) -> int:
        """The offset after the ``closer`` that closes what opened just before ``at``, skipping
        what is nested: quotes and parentheses in a substitution, expansions in double quotes."""
        text = self.text
        while at < len(text):
            char = text[at]
            if char == closer:
                return at + 1
            if char == "\\":
                at += 2
            elif closer in "`'":
                at += 1
            elif text.startswith(("$(", "${"), at):
                at = self._closing(at + 2, ")" if text[at + 1] == "(" else "}")
            elif char == "`":
                at = self._closing(at + 1, "`")
            elif closer == '"':
                at += 1
            elif char == "'":
                close = text.find("'", at + 1)
                if close < 0:
                    break
                at = close + 1
            elif char == '"':
                at = self._closing(at + 1, '"')
            elif char == "(" and closer == ")":
                at = self._closing(at + 1, ")")
            else:
                at += 1
        raise ShellSyntaxError(f"unterminated {closer!r}")
