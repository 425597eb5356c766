"""Find, and mark for translation, the text of the templates that people read (docs/translations.md).

A template is read as Jinja tags (``{{ }}``, ``{% %}``, ``{# #}``) between pieces of HTML. A *run* is the
text between two HTML tags or Jinja statements: literal text and ``{{ expressions }}``. A run with a
letter in its literal text is text for people and must be inside ``{% trans %}``; so must the values of
the attributes people read (``title``, ``aria-label``, ``placeholder``, ``alt``, an ``optgroup``'s
``label``). Script and style bodies and HTML comments are not text.

``python -m orchestrator.web.template_text templates/`` wraps every unmarked run in ``{% trans %}``
(expressions become the block's variables: ``Round {{ r.number }}`` → ``{% trans number=r.number %}Round
{{ number }}{% endtrans %}``), so a new template only needs a look at its msgids; tests/unit/
test_template_i18n.py fails on any run left unmarked.
"""

from __future__ import annotations

import keyword
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

_JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.DOTALL)
_TRANS_START = re.compile(r"\{%-?\s*trans\b")
_TRANS_END = re.compile(r"\{%-?\s*endtrans\s*-?%\}")
_RAW_START = re.compile(r"\{%-?\s*raw\s*-?%\}")
_RAW_END = re.compile(r"\{%-?\s*endraw\s*-?%\}")
_ENTITY = re.compile(r"&(#\d+|#x[0-9a-fA-F]+|[a-zA-Z]+);")
_ATTRIBUTE = re.compile(r'(\s(?:title|aria-label|placeholder|alt|label)=")([^"]*)(")')
_ATTRIBUTE_LIST = re.compile(r'(?:[\w-]+="[^"]*"\s*)+')  # a macro that writes attributes
_CODE = re.compile(r"<(code|kbd|samp)\b", re.IGNORECASE)
_PATH = re.compile(r"/[\w./?=&-]*")
_IDENT = re.compile(r"[A-Za-z_]\w*")
_RESERVED = {"_", "gettext", "ngettext", "trimmed", "notrimmed", "pluralize", "num", "loop"}


@dataclass(frozen=True, slots=True)
class Unmarked:
    line: int
    text: str


def _pieces(source: str) -> Iterator[tuple[str, str]]:
    """``(kind, text)``: ``data``, ``var``, ``block``, ``comment``, ``kept`` (a whole trans or raw block)."""
    pos = 0
    while pos < len(source):
        match = _JINJA.search(source, pos)
        if match is None:
            yield "data", source[pos:]
            return
        if match.start() > pos:
            yield "data", source[pos : match.start()]
        token = match.group()
        end_re = _TRANS_END if _TRANS_START.match(token) else _RAW_END if _RAW_START.match(token) else None
        if end_re is not None:
            end = end_re.search(source, match.end())
            stop = end.end() if end else len(source)
            yield "kept", source[match.start() : stop]
            pos = stop
            continue
        kind = {"{{": "var", "{%": "block", "{#": "comment"}[token[:2]]
        yield kind, token
        pos = match.end()


def has_words(text: str) -> bool:
    """Whether literal text has a letter in it (entities such as ``&nbsp;`` are not words, nor is an
    address such as ``/events/{{ slug }}/stages``)."""
    text = _ENTITY.sub("", text).strip()
    if _PATH.fullmatch(text) or _ATTRIBUTE_LIST.fullmatch(text):
        return False
    return any(ch.isalpha() for ch in text)


def _var_name(expr: str, taken: dict[str, str]) -> str:
    for name, known in taken.items():
        if known == expr:
            return name
    base = expr.split("|")[0]
    base = re.sub(r"\(.*", "", base)
    idents = _IDENT.findall(base)
    name = idents[-1] if idents else "value"
    if name in _RESERVED or keyword.iskeyword(name) or name in {"true", "false", "none"}:
        name = "value"
    candidate, n = name, 2
    while candidate in taken:
        candidate, n = f"{name}{n}", n + 1
    taken[candidate] = expr
    return candidate


def wrap(parts: list[tuple[str, str]]) -> str:
    """A run (``data`` text and ``var`` tokens) as a ``{% trans %}`` block, its outer whitespace kept."""
    first, last = parts[0], parts[-1]
    lead = first[1][: len(first[1]) - len(first[1].lstrip())] if first[0] == "data" else ""
    trail = last[1][len(last[1].rstrip()) :] if last[0] == "data" else ""
    taken: dict[str, str] = {}
    body = []
    for kind, text in parts:
        if kind == "data":
            body.append(text)
            continue
        expr = text[2:-2].strip()
        if _IDENT.fullmatch(expr) and expr not in _RESERVED and taken.get(expr, expr) == expr:
            taken.setdefault(expr, expr)
            body.append("{{ " + expr + " }}")
        else:
            body.append("{{ " + _var_name(expr, taken) + " }}")
    inner = "".join(body)
    inner = inner[len(lead) : len(inner) - len(trail)] if trail else inner[len(lead) :]
    assigns = ", ".join(f"{name}={expr}" for name, expr in taken.items() if name != expr)
    opening = "{% trans " + ("trimmed " if "\n" in inner else "") + assigns
    return lead + opening.rstrip() + " %}" + inner + "{% endtrans %}" + trail


def _attributes(tag: str, line: int, found: list[Unmarked]) -> str:
    def replace(match: re.Match[str]) -> str:
        value = match.group(2)
        if "{%" in value or not has_words(_JINJA.sub("", value)):
            if "{%" in value and "trans" not in value and has_words(_JINJA.sub("", value)):
                found.append(Unmarked(line, value))
            return match.group()
        found.append(Unmarked(line, value))
        parts = [("var" if p.startswith("{{") else "data", p) for p in re.split(r"(\{\{.*?\}\})", value) if p]
        return match.group(1) + wrap(parts) + match.group(3)

    return _ATTRIBUTE.sub(replace, tag)


class _Scanner:
    """One pass over a template for ``scan``, fed its pieces in order (``feed``).

    HTML is read in one of four states: ``text`` (between tags: a run is collected there), ``tag``
    (inside ``<...>``: its attributes are checked when it closes), ``comment`` (an HTML comment) and
    ``rawtext`` (a script or style body); the last two are copied as they are. A run ends at a tag or a
    Jinja statement (``_end_run``): text for people is wrapped in ``{% trans %}`` and listed, any other
    run is copied. ``line`` follows the source so that each finding names its line.
    """

    def __init__(self) -> None:
        self.out: list[str] = []
        self.found: list[Unmarked] = []
        self.run: list[tuple[str, str]] = []
        self.state = "text"  # text, tag, comment (HTML), rawtext (script/style body)
        self.tag: list[str] = []
        self.raw_until = ""
        self.line = 1
        self.last_tag = ""  # the HTML tag before the run: text inside <code> is not translated

    def feed(self, kind: str, text: str) -> None:
        if kind == "data":
            self._html(text)
        else:
            self._jinja(kind, text)

    def finish(self) -> tuple[str, list[Unmarked]]:
        if self.state == "tag":  # a tag left open at the end of the file
            self.out.append("".join(self.tag))
        self._end_run()
        return "".join(self.out), self.found

    def _jinja(self, kind: str, text: str) -> None:
        """A Jinja piece: part of the tag being read, an expression within the run, or (a statement, a
        comment, a whitespace-trimming expression) the end of the run."""
        if self.state == "tag":
            self.tag.append(text)
        elif self.state == "text" and kind == "var" and not (text.startswith("{{-") or text.endswith("-}}")):
            self.run.append((kind, text))
        else:
            self._end_run()
            self.out.append(text)
        self.line += text.count("\n")

    def _html(self, text: str) -> None:
        """HTML between two Jinja pieces, read step by step in the state each step leaves."""
        i = 0
        while i < len(text):
            if self.state == "text":
                i = self._in_text(text, i)
            elif self.state == "tag":
                i = self._in_tag(text, i)
            else:
                i = self._in_copied(text, i)

    def _in_text(self, text: str, i: int) -> int:
        """Text up to the next ``<`` joins the run; the ``<`` ends it and opens a tag or a comment."""
        j = text.find("<", i)
        if j < 0:
            self._add_to_run(text[i:])
            return len(text)
        if j > i:
            self._add_to_run(text[i:j])
        self._end_run()
        if text.startswith("<!--", j):
            self.state = "comment"
            return j
        self.state, self.tag = "tag", ["<"]
        return j + 1

    def _in_tag(self, text: str, i: int) -> int:
        """A tag up to its ``>``, written with its attributes for people marked; a script or style tag
        leaves its body to be copied."""
        j = text.find(">", i)
        if j < 0:
            self.tag.append(text[i:])
            self.line += text[i:].count("\n")
            return len(text)
        self.tag.append(text[i : j + 1])
        whole = "".join(self.tag)
        self.out.append(_attributes(whole, self.line, self.found))
        self.last_tag = whole
        self.line += text[i : j + 1].count("\n")
        name = re.match(r"<\s*([a-zA-Z0-9]+)", whole)
        if name and name.group(1).lower() in ("script", "style"):
            self.state, self.raw_until = "rawtext", f"</{name.group(1).lower()}"
        else:
            self.state = "text"
        return j + 1

    def _in_copied(self, text: str, i: int) -> int:
        """An HTML comment up to ``-->``, or a script or style body up to its closing tag, copied."""
        closing = "-->" if self.state == "comment" else self.raw_until
        j = text.lower().find(closing, i)
        if j < 0:
            self._copy(text[i:])
            return len(text)
        stop = j + (3 if self.state == "comment" else 0)
        self._copy(text[i:stop])
        if self.state == "comment":
            self.state = "text"
        else:  # the closing tag is read as a tag
            self.state, self.tag = "tag", []
        return stop

    def _add_to_run(self, text: str) -> None:
        self.run.append(("data", text))
        self.line += text.count("\n")

    def _copy(self, text: str) -> None:
        self.out.append(text)
        self.line += text.count("\n")

    def _end_run(self) -> None:
        """The run so far: wrapped and listed if its literal text has words (and it is not code)."""
        if not self.run:
            return
        literal = "".join(text for kind, text in self.run if kind == "data")
        if has_words(literal) and not _CODE.match(self.last_tag):
            self.found.append(Unmarked(self.line - literal.count("\n"), " ".join(literal.split())))
            self.out.append(wrap(self.run))
        else:
            self.out.extend(text for _kind, text in self.run)
        self.run.clear()


def scan(source: str) -> tuple[str, list[Unmarked]]:
    """The source with every unmarked run and attribute marked, and the list of what was unmarked."""
    scanner = _Scanner()
    for kind, text in _pieces(source):
        scanner.feed(kind, text)
    return scanner.finish()


def unmarked(source: str) -> list[Unmarked]:
    return scan(source)[1]


def main(argv: list[str]) -> int:
    root = Path(argv[0] if argv else "templates")
    for path in sorted(root.rglob("*.html")):
        source = path.read_text(encoding="utf-8")
        marked, found = scan(source)
        if found:
            path.write_text(marked, encoding="utf-8")
            print(f"{path}: {len(found)} marked")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
