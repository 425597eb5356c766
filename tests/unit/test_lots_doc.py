"""docs/lots.md is exact: its worked example and reference script agree with the code."""

import re
from pathlib import Path
from types import ModuleType

from orchestrator.domain.lots import canonical_order, commitment, draw_one, draw_order, stream_word

DOC = (Path(__file__).resolve().parents[2] / "docs" / "lots.md").read_text()


def between(start: str, end: str) -> str:
    return DOC.split(start, 1)[1].split(end, 1)[0]


def names(text: str) -> list[str]:
    return [name.strip() for name in text.split(",")]


def test_the_worked_example_commitment_and_category_draw_match_the_code() -> None:
    seed = bytes.fromhex(re.search(r"Seed \(hex\): `([0-9a-f]+)`", DOC)[1])  # type: ignore[index]
    assert re.search(r"Commitment: `([0-9a-f]+)`", DOC)[1] == commitment(seed)  # type: ignore[index]

    section = between("**Armageddon category.**", "**Tie-break (g).**")
    purpose = re.search(r"Purpose `([^`]+)`", section)[1]  # type: ignore[index]
    candidates = names(re.search(r"candidates `([^`]+)`", section)[1])  # type: ignore[index]
    assert names(re.search(r"Starting order: `([^`]+)`", section)[1]) == list(canonical_order(candidates))  # type: ignore[index]
    word = re.search(r"Word 0: `([0-9a-f]+)`", section)[1]  # type: ignore[index]
    assert int(word, 16) == stream_word(seed, purpose, 0)
    index, drawn = re.search(r"Number below 4: (\d+) → drawn: `([^`]+)`", section).groups()  # type: ignore[union-attr]
    assert int(word, 16) % 4 == int(index)
    assert drawn == draw_one(seed, candidates, purpose=purpose)


def test_the_worked_example_shuffle_table_replays_step_by_step() -> None:
    seed = bytes.fromhex(re.search(r"Seed \(hex\): `([0-9a-f]+)`", DOC)[1])  # type: ignore[index]
    section = between("**Tie-break (g).**", "## Reference script")
    purpose = re.search(r"Purpose `([^`]+)`", section)[1]  # type: ignore[index]
    candidates = names(re.search(r"candidates `([^`]+)`", section)[1])  # type: ignore[index]
    items = names(re.search(r"Starting order: `([^`]+)`", section)[1])  # type: ignore[index]
    assert items == list(canonical_order(candidates))
    rows = re.findall(
        r"^\| (\d+) \| `([0-9a-f]{64})` \| (\d+) \| (\d+) \| (\d+) ↔ (\d+) \| ([^|]+) \|$", section, re.M
    )
    assert len(rows) == len(candidates) - 1
    for counter, word, bound, j, i, j_again, after in rows:
        assert int(word, 16) == stream_word(seed, purpose, int(counter))
        assert int(word, 16) % int(bound) == int(j) == int(j_again)
        assert int(i) == int(bound) - 1
        items[int(i)], items[int(j)] = items[int(j)], items[int(i)]
        assert names(after) == items
    drawn = names(re.search(r"Order drawn: `([^`]+)`", section)[1])  # type: ignore[index]
    assert drawn == items == list(draw_order(seed, candidates, purpose=purpose))


def reference_script() -> ModuleType:
    source = re.search(r"## Reference script.*?```python\n(.*?)```", DOC, re.S)[1]  # type: ignore[index]
    module = ModuleType("lot_reference")
    exec(compile(source, "docs/lots.md", "exec"), module.__dict__)
    return module


def test_the_reference_script_in_the_doc_agrees_with_the_code_on_many_draws() -> None:
    script = reference_script()
    teams = ["Russia", "India", "USA", "China", "Ukraine", "Poland", "Türkiye"]
    for n in range(50):
        seed = bytes([n]) * 32
        purpose = f"check {n}"
        size = 1 + n % len(teams)
        assert script.draw_order(seed, teams[:size], purpose) == list(
            draw_order(seed, teams[:size], purpose=purpose)
        )
        assert script.draw_one(seed, teams[:size], purpose) == draw_one(seed, teams[:size], purpose=purpose)
