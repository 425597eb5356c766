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


def scan(source: str) -> tuple[str, list[Unmarked]]:
    """The source with every unmarked run and attribute marked, and the list of what was unmarked."""
    out: list[str] = []
    found: list[Unmarked] = []
    run: list[tuple[str, str]] = []
    state = "text"  # text, tag, comment (HTML), rawtext (script/style body)
    tag: list[str] = []
    raw_until = ""
    line = 1
    last_tag = [""]  # the HTML tag before the run: text inside <code> is not translated

    def flush() -> None:
        if not run:
            return
        literal = "".join(text for kind, text in run if kind == "data")
        if has_words(literal) and not _CODE.match(last_tag[0]):
            found.append(Unmarked(line - literal.count("\n"), " ".join(literal.split())))
            out.append(wrap(run))
        else:
            out.extend(text for _kind, text in run)
        run.clear()

    for kind, text in _pieces(source):
        if kind != "data":
            if state == "tag":
                tag.append(text)
            elif state == "text" and kind == "var" and not (text.startswith("{{-") or text.endswith("-}}")):
                run.append((kind, text))
            else:
                flush()
                out.append(text)
            line += text.count("\n")
            continue
        i = 0
        while i < len(text):
            if state == "text":
                j = text.find("<", i)
                if j < 0:
                    run.append(("data", text[i:]))
                    line += text[i:].count("\n")
                    break
                if j > i:
                    run.append(("data", text[i:j]))
                    line += text[i:j].count("\n")
                flush()
                if text.startswith("<!--", j):
                    state, i = "comment", j
                else:
                    state, tag, i = "tag", ["<"], j + 1
            elif state == "tag":
                j = text.find(">", i)
                if j < 0:
                    tag.append(text[i:])
                    line += text[i:].count("\n")
                    break
                tag.append(text[i : j + 1])
                whole = "".join(tag)
                out.append(_attributes(whole, line, found))
                last_tag[0] = whole
                line += text[i : j + 1].count("\n")
                name = re.match(r"<\s*([a-zA-Z0-9]+)", whole)
                if name and name.group(1).lower() in ("script", "style"):
                    state, raw_until = "rawtext", f"</{name.group(1).lower()}"
                else:
                    state = "text"
                i = j + 1
            else:  # comment or rawtext: copied as it is
                closing = "-->" if state == "comment" else raw_until
                j = text.lower().find(closing, i)
                if j < 0:
                    out.append(text[i:])
                    line += text[i:].count("\n")
                    break
                stop = j + (3 if state == "comment" else 0)
                out.append(text[i:stop])
                line += text[i:stop].count("\n")
                state, i = ("text" if state == "comment" else "tag"), stop
                if state == "tag":
                    tag = []
    if state == "tag":
        out.append("".join(tag))
    flush()
    return "".join(out), found


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
