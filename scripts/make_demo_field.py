"""Write the 2020 event files with a deterministic 163-team demo field.

    .venv/bin/python scripts/make_demo_field.py           # (re)write events/*.yaml
    .venv/bin/python scripts/make_demo_field.py --check   # exit 1 if the committed files are stale

Federations are real (name and FIDE code); players are fictional: generated names, ratings that fall
with the seed (about 2600 on the open boards of seed 1, about 1500 at seed 163), six main players eligible
for their boards (junior and girl boards born 2000 or later, women and girl boards female), 0–6 reserves
and unique game-server account names. The seed order is a plausible ranking, not the real 2018 one.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EVENT_FILE = ROOT / "events" / "online-olympiad-2020.yaml"
ERRORS_FILE = ROOT / "events" / "seed-errors-2020.yaml"
RANDOM_SEED = 2020

FEDERATIONS = """
Russia RUS|China CHN|United States USA|Ukraine UKR|India IND|Armenia ARM|Azerbaijan AZE|Georgia GEO|
Poland POL|France FRA|Germany GER|Hungary HUN|England ENG|Kazakhstan KAZ|Iran IRI|Vietnam VIE|
Uzbekistan UZB|Spain ESP|Netherlands NED|Czech Republic CZE|Israel ISR|Romania ROU|Serbia SRB|Cuba CUB|
Peru PER|Turkey TUR|Sweden SWE|Norway NOR|Greece GRE|Bulgaria BUL|Croatia CRO|Slovakia SVK|Italy ITA|
Austria AUT|Lithuania LTU|Latvia LAT|Mongolia MGL|Indonesia INA|Philippines PHI|Argentina ARG|Brazil BRA|
Chile CHI|Colombia COL|Mexico MEX|Canada CAN|Egypt EGY|Switzerland SUI|Belgium BEL|Denmark DEN|
Slovenia SLO|Estonia EST|Belarus BLR|Moldova MDA|Montenegro MNE|Bosnia and Herzegovina BIH|
North Macedonia MKD|Australia AUS|Iceland ISL|Finland FIN|Portugal POR|Kyrgyzstan KGZ|Tajikistan TJK|
Turkmenistan TKM|Bangladesh BAN|Sri Lanka SRI|Singapore SGP|Malaysia MAS|Thailand THA|Japan JPN|
South Korea KOR|Chinese Taipei TPE|Hong Kong HKG|Nepal NEP|Pakistan PAK|Qatar QAT|United Arab Emirates UAE|
Iraq IRQ|Jordan JOR|Lebanon LBN|Syria SYR|Saudi Arabia KSA|Kuwait KUW|Yemen YEM|Oman OMA|Bahrain BRN|
Algeria ALG|Morocco MAR|Tunisia TUN|Libya LBA|South Africa RSA|Zambia ZAM|Zimbabwe ZIM|Nigeria NGR|
Kenya KEN|Uganda UGA|Angola ANG|Botswana BOT|Namibia NAM|Malawi MAW|Mozambique MOZ|Ghana GHA|Ethiopia ETH|
Madagascar MAD|Mauritius MRI|Seychelles SEY|Cameroon CMR|Ivory Coast CIV|Senegal SEN|Sudan SUD|Rwanda RWA|
Burundi BDI|Tanzania TAN|Lesotho LES|Eswatini SWZ|Gambia GAM|Sierra Leone SLE|Togo TOG|Mali MLI|
Venezuela VEN|Ecuador ECU|Uruguay URU|Paraguay PAR|Bolivia BOL|Costa Rica CRC|Panama PAN|Guatemala GUA|
Honduras HON|El Salvador ESA|Nicaragua NCA|Dominican Republic DOM|Puerto Rico PUR|Jamaica JAM|
Trinidad and Tobago TTO|Barbados BAR|Bahamas BAH|Haiti HAI|Suriname SUR|Guyana GUY|Aruba ARU|Bermuda BER|
Ireland IRL|Scotland SCO|Wales WLS|Luxembourg LUX|Malta MLT|Cyprus CYP|Albania ALB|Kosovo KOS|Andorra AND|
Monaco MNC|Liechtenstein LIE|San Marino SMR|Faroe Islands FAI|Jersey JCI|Guernsey GCI|New Zealand NZL|
Fiji FIJ|Papua New Guinea PNG|Palau PLW|Afghanistan AFG|Macau MAC|Brunei BRU|Cambodia CAM
"""

GIVEN_MALE = [
    "Aron",
    "Bako",
    "Cirilo",
    "Dario",
    "Emil",
    "Farid",
    "Goran",
    "Hugo",
    "Ilian",
    "Jarek",
    "Kemal",
    "Luka",
    "Marek",
    "Nilo",
    "Oskar",
    "Pavo",
    "Quentin",
    "Rafael",
    "Stefan",
    "Tariq",
    "Ulrich",
    "Viktor",
    "Walid",
    "Xander",
    "Yusuf",
    "Zoran",
    "Anvar",
    "Bruno",
    "Casimir",
    "Dmitar",
]
GIVEN_FEMALE = [
    "Alina",
    "Bela",
    "Carina",
    "Dalia",
    "Elif",
    "Freya",
    "Gala",
    "Hana",
    "Irina",
    "Jana",
    "Kira",
    "Lena",
    "Mira",
    "Nadia",
    "Olga",
    "Petra",
    "Rana",
    "Sara",
    "Tamara",
    "Ulla",
    "Vera",
    "Wiktoria",
    "Yara",
    "Zeynep",
    "Asel",
    "Bianca",
    "Clara",
    "Dina",
    "Eva",
    "Fatima",
]
SURNAME_PARTS = (
    "ka lo vi ren dor mi sa tel bro nan ve lis ko ra den zu mar tin go bel sha fen ru al",
    "nov sen ric dez lan mek tor vash ber quin dal son rik mon las vel zar nik tas ros",
)
NAME_FRAGMENTS = [part.split() for part in SURNAME_PARTS]

CATEGORIES = ("open", "open", "women", "women", "junior", "girl")
RESERVES = {"open": 2, "women": 2, "junior": 1, "girl": 1}
# Offsets from the team's base rating: women's and girls' boards are weaker in a typical national team.
BOARD_OFFSET = {"open": (0, -40), "women": (-180, -220), "junior": (-120,), "girl": (-320,)}

# Divisions 4, 3 and 2: five pools of ten, the previous stage's qualifiers and a seed range, a week each.
DIVISION = """\
  - key: div{number}
    name: Division {number}
    kind: pools
    pool_count: 5
    pool_size: 10
    entrants:
      - {{from: {previous}, top: {top}}}
      - {{seeds: {seeds}}}
    advance: 3
    tiebreaks: online-2020
    schedule: {{start: "{start} 10:00", rounds_per_day: 3, minutes_between_rounds: 90}}
"""
DIVISIONS = [
    {"number": 4, "previous": "base", "top": 4, "seeds": "96-133", "start": "2020-07-31"},
    {"number": 3, "previous": "div4", "top": 3, "seeds": "61-95", "start": "2020-08-07"},
    {"number": 2, "previous": "div3", "top": 3, "seeds": "26-60", "start": "2020-08-14"},
]
DIVISION_STAGES = "\n".join(DIVISION.format(**division) for division in DIVISIONS)

HEADER = """\
# FIDE Online Chess Olympiad 2020 (docs/rules.md §3), with a fictional demo field of 163 teams.
# {note}
# Generated by scripts/make_demo_field.py: edit the script, not this file. Format: docs/event-file.md.
name: FIDE Online Chess Olympiad 2020{name_suffix}
slug: {slug}
timezone: UTC
team_format:
  boards: [open, open, women, women, junior, girl]
  cutoff_year: 2000
  reserves: {{open: 2, women: 2, junior: 1, girl: 1}}
time_control: {{minutes: 15, increment_seconds: 5}}
match_scoring: {{win: 2, draw: 1, loss: 0}}
lot_publication_delay: 10m  # a real event's wait before each draw; olympiad demo runs with 0 (docs/lots.md)
appeal_window_minutes: 15
armageddon: {{white_minutes: 5, black_minutes: 4, increment_seconds: 0}}

stages:
  - key: base
    name: Base
    kind: pools
    pool_count: 3
    pool_size: 10
    entrants:
      - {{seeds: 134-163}}
    advance: 4
    tiebreaks: online-2020
    schedule: {{start: "2020-07-25 10:00", rounds_per_day: 3, minutes_between_rounds: 90}}

{divisions}
  - key: top
    name: Top Division
    kind: pools
    pool_count: 4
    pool_size: 10
    entrants:
      - {top_qualifiers}
      - {{seeds: 1-25}}
    advance: 3
    tiebreaks: online-2020
    # 5 Division 2 pool winners cannot be kept apart in 4 pools (2020 rules ask it of Div 3 and Div 2 only)
    winners_apart: false
    schedule: {{start: "2020-08-21 10:00", rounds_per_day: 3, minutes_between_rounds: 90}}

  - key: playoff
    name: Play-off
    kind: knockout
    entrants:
      - {{from: top, top: 3}}
    # two matches per bracket round: first round 27 Aug, quarter-finals 28, semi-finals 29, final 30 Aug
    schedule:
      rounds: ["2020-08-27 10:00", "2020-08-27 12:00", "2020-08-28 10:00", "2020-08-28 12:00",
               "2020-08-29 10:00", "2020-08-29 12:00", "2020-08-30 10:00", "2020-08-30 12:00"]

bracket:
  - {{duel: I, round: First round, first: Top A 2nd, second: Top B 3rd}}
  - {{duel: II, round: First round, first: Top B 2nd, second: Top A 3rd}}
  - {{duel: III, round: First round, first: Top C 2nd, second: Top D 3rd}}
  - {{duel: IV, round: First round, first: Top D 2nd, second: {duel_iv_second}}}
  - {{duel: V, round: Quarter-final, first: Top A 1st, second: winner IV}}
  - {{duel: VI, round: Quarter-final, first: Top B 1st, second: winner III}}
  - {{duel: VII, round: Quarter-final, first: Top C 1st, second: winner II}}
  - {{duel: VIII, round: Quarter-final, first: Top D 1st, second: winner I}}
  - {{duel: IX, round: Semi-final, first: winner V, second: winner VI}}
  - {{duel: X, round: Semi-final, first: winner VII, second: winner VIII}}
  - {{duel: XI, round: Final, first: winner IX, second: winner X}}

teams:
"""

CORRECT = {
    "note": "The two errors of the Turkish seed text are corrected: 15 teams come from Division 2, "
    "duel IV is D2-C3.",
    "name_suffix": "",
    "slug": "online-olympiad-2020",
    "top_qualifiers": "{from: div2, top: 3}",
    "duel_iv_second": "Top C 3rd",
}
SEED_ERRORS = {
    "note": "As the Turkish seed text has it, errors included: 13 qualifiers from Division 2, duel IV D2-D3.",
    "name_suffix": " (seed text, with its errors)",
    "slug": "seed-errors-2020",
    "top_qualifiers": "{from: div2, top: 3, count: 13}",
    "duel_iv_second": "Top D 3rd",
}


def federations() -> list[tuple[str, str]]:
    entries = [item.strip() for item in FEDERATIONS.replace("\n", "").split("|") if item.strip()]
    pairs = [(entry.rsplit(" ", 1)[0], entry.rsplit(" ", 1)[1]) for entry in entries]
    if len(pairs) != 163 or len({code for _, code in pairs}) != 163:
        raise SystemExit(f"need 163 distinct federations, have {len(pairs)}")
    return pairs


class NameMaker:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.accounts: set[str] = set()

    def person(self, female: bool) -> str:
        given = self.rng.choice(GIVEN_FEMALE if female else GIVEN_MALE)
        surname = self.rng.choice(NAME_FRAGMENTS[0]) + self.rng.choice(NAME_FRAGMENTS[1])
        if self.rng.random() < 0.4:
            surname = self.rng.choice(NAME_FRAGMENTS[0]) + surname
        return f"{given} {surname.capitalize()}"

    def account(self, name: str, code: str) -> str:
        given, surname = name.split(" ", 1)
        base = f"{given[0]}{surname}_{code}".lower()
        account, n = base, 1
        while account in self.accounts:
            n += 1
            account = f"{base}{n}"
        self.accounts.add(account)
        return account


def player_line(
    names: NameMaker, rng: random.Random, code: str, slot: str, category: str, rating: int
) -> str:
    female = category in ("women", "girl") or rng.random() < 0.08
    if category in ("junior", "girl"):
        born = rng.randint(2000, 2007)
    elif category == "women":
        born = rng.randint(1972, 2004)
    else:
        born = rng.randint(1965, 2005)
    if category == "junior" and rng.random() < 0.15:
        female = True
    name = names.person(female)
    account = names.account(name, code)
    sex = "f" if female else "m"
    return (
        f'      - {{{slot}, name: "{name}", account: "{account}", sex: {sex}, born: {born}, '
        f"rating: {max(1000, rating)}}}"
    )


def field_yaml() -> str:
    rng = random.Random(RANDOM_SEED)
    names = NameMaker(rng)
    lines: list[str] = []
    for seed, (country, code) in enumerate(federations(), start=1):
        base = round(2600 - (seed - 1) * 1100 / 162)
        lines.append(f"  - name: {country}")
        lines.append(f"    federation: {code}")
        lines.append(f"    seed: {seed}")
        lines.append(f'    captain: "{names.person(rng.random() < 0.3)}"')
        lines.append("    players:")
        seen: dict[str, int] = {}
        for board, category in enumerate(CATEGORIES, start=1):
            index = seen.get(category, 0)
            seen[category] = index + 1
            rating = base + BOARD_OFFSET[category][index] + rng.randint(-45, 45)
            lines.append(player_line(names, rng, code, f"board: {board}", category, rating))
        for category, allowed in RESERVES.items():
            for _ in range(rng.randint(0, allowed)):
                rating = base + BOARD_OFFSET[category][-1] - rng.randint(40, 160)
                lines.append(player_line(names, rng, code, f"reserve: {category}", category, rating))
    return "\n".join(lines) + "\n"


def render() -> dict[Path, str]:
    teams = field_yaml()
    return {
        EVENT_FILE: HEADER.format(**CORRECT, divisions=DIVISION_STAGES) + teams,
        ERRORS_FILE: HEADER.format(**SEED_ERRORS, divisions=DIVISION_STAGES) + teams,
    }


def write_or_check(outputs: dict[Path, str], argv: list[str], *, script: str) -> int:
    """Write the generated files, or with ``--check`` list the ones that differ from what ``script`` makes."""
    if "--check" in argv:
        stale = [path for path, text in outputs.items() if not path.exists() or path.read_text() != text]
        for path in stale:
            print(f"{path.relative_to(ROOT)} is out of date: run {script}")
        return 1 if stale else 0
    for path, text in outputs.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        print(f"wrote {path.relative_to(ROOT)} ({text.count(chr(10))} lines)")
    return 0


def main(argv: list[str]) -> int:
    return write_or_check(render(), argv, script="scripts/make_demo_field.py")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
