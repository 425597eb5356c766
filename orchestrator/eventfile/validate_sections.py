"""The sections of an event file (docs/sections.md): the ``sections`` list, the ``section`` a team or a
stage names, and whether every stage draws its teams from its own section.

An event file without ``sections`` has one implicit section: no team or stage may name one then. With
``sections``, every team and every stage names one of them; a federation enters at most one team per
section; a female-only section admits female players only (checked with the roster, validate_teams.py).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import yaml

from orchestrator.domain.event import Qualifiers, Section, SeedRange
from orchestrator.domain.names import MAX_STAGE_NAME
from orchestrator.domain.teams import SECTION_ELIGIBILITIES, Team
from orchestrator.eventfile.drafts import StageDraft, ranges
from orchestrator.eventfile.nodes import NodeReader

KEY_RE = re.compile(r"^[a-z][a-z0-9_-]*$")  # stage and section keys
MAX_KEY_LENGTH = 40  # the stage's key and section columns (adapters/tables.py): PostgreSQL refuses more


def key_problem(key: str) -> str | None:
    """Why ``key`` cannot be a stage or section key, or None."""
    if not KEY_RE.match(key):
        return f"use lower-case letters, digits, '-' and '_', starting with a letter; found {key!r}"
    if len(key) > MAX_KEY_LENGTH:
        return f"at most {MAX_KEY_LENGTH} characters, found {len(key)}"
    return None


def read_sections(reader: NodeReader, node: yaml.Node) -> dict[str, Section]:
    """The sections that read without problems, by key, in the file's order."""
    items = reader.sequence(node, "sections")
    if items is None:
        return {}
    if not items:
        reader.report("sections", "give at least one section, or leave 'sections' out", node=node)
    sections: dict[str, Section] = {}
    for index, item in enumerate(items):
        path = f"sections[{index}]"
        fields = reader.mapping(item, path, required=("key", "name"), optional=("eligibility",))
        if fields is None:
            continue
        key = reader.text(fields["key"], f"{path}.key") if "key" in fields else None
        if key is not None and (problem := key_problem(key)):
            reader.report(f"{path}.key", problem, node=fields["key"])
            key = None
        elif key is not None and key in sections:
            reader.report(f"{path}.key", f"section {key!r} is given twice", node=fields["key"])
            key = None
        name = (
            reader.name(fields["name"], f"{path}.name", what="section name", limit=MAX_STAGE_NAME)
            if "name" in fields
            else None
        )
        eligibility: str | None = "open"
        if "eligibility" in fields:
            eligibility = reader.text(fields["eligibility"], f"{path}.eligibility")
            if eligibility is not None and eligibility not in SECTION_ELIGIBILITIES:
                reader.report(
                    f"{path}.eligibility",
                    f"eligibility must be one of {', '.join(SECTION_ELIGIBILITIES)}, found {eligibility!r}",
                    node=fields["eligibility"],
                )
                eligibility = None
        if key is not None:  # kept with a wrong name or eligibility: its teams are not reported again
            sections[key] = Section(key, name or key, eligibility or "open")
    return sections


def read_section_ref(
    reader: NodeReader,
    fields: Mapping[str, yaml.Node],
    path: str,
    sections: Mapping[str, Section] | None,
    *,
    what: str,
) -> str | None:
    """The section a team or a stage names: "" without sections, None (reported) when it is wrong.

    ``sections`` None: the file has no ``sections`` list; an empty mapping: it has one that did not read.
    """
    node = fields.get("section")
    if sections is None:
        if node is not None:
            reader.report(
                f"{path}.section", f"a {what} names a section, but the file has no 'sections'", node=node
            )
            return None
        return ""
    if node is None:
        if sections:
            reader.report(path, f"missing 'section' (sections: {', '.join(sections)})")
        return None
    key = reader.text(node, f"{path}.section")
    if key is None:
        return None
    if key not in sections:
        if sections:
            reader.report(
                f"{path}.section", f"no section {key!r} (sections: {', '.join(sections)})", node=node
            )
        return None
    return key


def check_sections(
    reader: NodeReader, sections: Mapping[str, Section], stages: Sequence[StageDraft], teams: Sequence[Team]
) -> None:
    """Every stage draws its teams from its own section (seeds and qualifiers); every section has teams
    and a stage."""
    if not sections:
        return
    by_seed = {team.seed: team for team in teams}
    by_key = {stage.key: stage for stage in stages}
    for stage in stages:
        own = sections.get(stage.section)
        if own is None:
            continue  # its section is wrong: reported where it was read
        path = f"stages[{stage.index}]"
        for position, entrant in stage.entrants:
            entrant_path = f"{path}.entrants[{position}]"
            if isinstance(entrant, SeedRange):
                _check_seed_sections(reader, stage, own, entrant, entrant_path, by_seed, sections)
            elif isinstance(entrant, Qualifiers):
                source = by_key.get(entrant.stage)
                if source is None or source.section == stage.section or source.section not in sections:
                    continue
                fed = "is a knockout fed" if stage.kind == "knockout" else "takes qualifiers"
                reader.report(
                    f"{entrant_path}.from",
                    f"{stage.name} ({own.name} section) {fed} from {source.name}, a stage of the "
                    f"{sections[source.section].name} section: a stage takes teams of its own section only",
                )
    for section in sections.values():
        if teams and not any(team.section == section.key for team in teams):
            reader.report("sections", f"section {section.name!r} has no teams")
        if stages and not any(stage.section == section.key for stage in stages):
            reader.report("sections", f"section {section.name!r} has no stage")


def _check_seed_sections(
    reader: NodeReader,
    stage: StageDraft,
    own: Section,
    entrant: SeedRange,
    path: str,
    by_seed: Mapping[int, Team],
    sections: Mapping[str, Section],
) -> None:
    strays: dict[str, list[int]] = {}
    for seed in range(entrant.first, entrant.last + 1):
        team = by_seed.get(seed)
        if team is not None and team.section != own.key and team.section in sections:
            strays.setdefault(team.section, []).append(seed)
    for key, seeds in strays.items():
        names = ", ".join(by_seed[seed].name for seed in seeds[:3]) + (", ..." if len(seeds) > 3 else "")
        reader.report(
            path,
            f"{stage.name} ({own.name} section) draws seeds {ranges(seeds)} ({names}), teams of the "
            f"{sections[key].name} section: a stage takes teams of its own section only",
        )
