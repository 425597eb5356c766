"""Reading and writing CSV text: the one place every import and export goes through (docs/input-limits.md).

Reading turns what the ``csv`` module refuses (a field over its size limit, a broken quote) and text the
databases cannot store (NUL, lone surrogates) into a ``CsvReadError`` naming the line. Writing neutralises
spreadsheet formulas (OWASP "CSV injection"): a text cell starting with ``=``, ``+``, ``-``, ``@``, a tab
or a carriage return gets a leading single quote, so that a spreadsheet shows it as text instead of
running it. Numbers (``int``, ``Fraction``, ``Decimal``) and text that spells a number (``-1``, ``2.5``,
``−½``: scores and tie-break values) stay as they are, so that they still count as numbers.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Iterator
from decimal import Decimal
from fractions import Fraction

from orchestrator.domain.names import text_problem

FIELD_SIZE_LIMIT = csv.field_size_limit()  # 131072 characters by default
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
# A signed number as our exports write them: "-1", "+3", "2.5", "-3/2", "−½", "1½" (format_points).
_NUMBER = re.compile(r"[+\-−]?(\d+(\.\d+)?(/\d+)?|\d*½)")


class CsvReadError(ValueError):
    """A CSV text that cannot be read; ``line`` is the 1-based line where reading stopped."""

    def __init__(self, line: int, message: str) -> None:
        self.line = line
        self.message = message
        super().__init__(f"line {line}: {message}")


def read_rows(text: str) -> Iterator[tuple[int, list[str]]]:
    """(line number, fields) of every record of ``text`` (a leading BOM is dropped).

    The line number is that of the record's last line, as ``csv.reader.line_num`` counts.
    """
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff")))
    while True:
        try:
            values = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            line = reader.line_num
            if "field larger than field limit" in str(exc):
                raise CsvReadError(
                    line, f"a field is longer than {FIELD_SIZE_LIMIT} characters (the CSV field limit)"
                ) from None
            raise CsvReadError(line, f"cannot be read as CSV: {exc}") from None
        for index, value in enumerate(values, start=1):
            if problem := text_problem(value):
                raise CsvReadError(reader.line_num, f"field {index} {problem}")
        yield reader.line_num, values


def safe_cell(value: object) -> object:
    """The cell as written: numbers as they are, formula-like text behind a quote (module docstring)."""
    if value is None or isinstance(value, bool | int | float | Fraction | Decimal):
        return value
    text = str(value)
    if text.startswith(_FORMULA_START) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def write_csv(rows: Iterable[Iterable[object]]) -> str:
    """CSV text (``\\n`` line ends) of ``rows``, every text cell through ``safe_cell``."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for row in rows:
        writer.writerow([safe_cell(cell) for cell in row])
    return out.getvalue()
