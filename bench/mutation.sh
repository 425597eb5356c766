#!/usr/bin/env bash
# Mutation score of the rules core with the domain's unit tests only (docs/mutation.md).
#
#   bench/mutation.sh                      # every module below
#   bench/mutation.sh scoring knockout/duels # some of them (names relative to orchestrator/domain, no .py)
#   MAX_CHILDREN=1 bench/mutation.sh scoring
#
# Each module runs in its own scratch copy under bench/out/mutation/<module> (git-ignored) holding only
# orchestrator/domain and the domain tests, so mutmut never writes into the checkout and the web app's
# test fixtures are never imported. Prints, per module: mutants, killed, survived, other, score, time;
# the surviving mutants' names go to bench/out/mutation/<module>/survivors.txt
# (see one with `cd bench/out/mutation/<module> && ../../../../.venv/bin/mutmut show <name>`).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
VENV="$ROOT/.venv"
MUTMUT_VERSION=3.8.1 # supports Python 3.11 and pytest 9 (3.3 breaks on pytest 9); [mutmut] in setup.cfg
MAX_CHILDREN=${MAX_CHILDREN:-2}
OUT="$ROOT/bench/out/mutation"

DEFAULT_MODULES=(scoring knockout/duels knockout/armageddon knockout/bracket tiebreaks direct_encounter swiss/model swiss/pairing)
if [ $# -gt 0 ]; then MODULES=("$@"); else MODULES=("${DEFAULT_MODULES[@]}"); fi

# The domain's unit tests: they import nothing outside orchestrator.domain and tests.unit.builders.
# test_gacrux.py and test_swiss_gacrux.py are left out: they start FIDE's external checker per example.
DOMAIN_TESTS=(
  tests/unit/test_scoring.py
  tests/unit/test_tiebreaks.py
  tests/unit/test_tiebreaks_edge_cases.py
  tests/unit/test_tiebreaks_unplayed_rounds.py
  tests/unit/test_tiebreaks_olympiad.py
  tests/unit/test_tiebreak_registry.py
  tests/unit/test_direct_encounter.py
  tests/unit/test_standings.py
  tests/unit/test_knockout_duels.py
  tests/unit/test_knockout_armageddon.py
  tests/unit/test_knockout_bracket.py
  tests/unit/test_knockout_edge_cases.py
  tests/unit/test_round_robin.py
  tests/unit/test_trf.py
  tests/unit/test_result_mapping.py
  tests/unit/test_game_model.py
  tests/unit/test_swiss_model.py
  tests/unit/test_swiss_model_edge_cases.py
  tests/unit/test_swiss_olympiad2022.py
  tests/unit/test_trf_read_domain.py
  tests/unit/test_record_domain.py
  tests/unit/test_trf_read_columns.py
  tests/unit/test_trf_requested_byes.py
  tests/unit/test_swiss_acceleration.py
  tests/unit/test_swiss_prohibited.py
  tests/unit/test_trf_lineup_colours.py
)

# Tests that run only for one module (too slow for every module's mutants), and the fixtures they read.
declare -A EXTRA_TESTS=(
  [swiss/olympiad2022]="tests/unit/test_swiss_olympiad_replay_rounds.py tests/unit/test_swiss_olympiad2022_rules.py"
  [trf/event_read]="tests/unit/test_trf_event_read.py"
  [needs]="tests/unit/test_needs.py"
  [chances]="tests/unit/test_chances.py"
  [pools]="tests/unit/test_pools.py tests/unit/test_pools_rules.py"
  [ratings]="tests/unit/test_ratings.py tests/unit/test_ratings_rules.py"
  [lots]="tests/unit/test_lots.py tests/unit/test_lots_rules.py"
  [board_prizes]="tests/unit/test_board_prizes.py tests/unit/test_board_prizes_rules.py"
  [combined]="tests/unit/test_combined.py tests/unit/test_combined_rules.py"
  [standings]="tests/unit/test_standings_rules.py"
  [event]="tests/unit/test_event_domain.py"
  [simulation]="tests/unit/test_simulation_domain.py"
  [names]="tests/unit/test_names_domain.py"
  [teams]="tests/unit/test_teams_domain.py"
  [section_results]="tests/unit/test_section_results_domain.py"
  [performance]="tests/unit/test_performance_domain.py"
  [gameresults]="tests/unit/test_gameresults_rules.py"
  [bracket]="tests/unit/test_bracket_domain.py"
  [trf/swiss_read]="tests/unit/test_trf_swiss_read_rounds.py tests/unit/test_trf_swiss_records.py"
  [trf/swiss_records]="tests/unit/test_trf_swiss_read_rounds.py tests/unit/test_trf_swiss_records.py"
  [swiss/matching]="tests/unit/test_swiss_matching.py tests/unit/test_swiss_matching_cases.py"
  [swiss/c046]="tests/unit/test_swiss_matching.py tests/unit/test_swiss_c046_goldens.py tests/unit/test_swiss_c046_colours.py tests/unit/test_swiss_c046_brackets.py"
  [swiss/replay]="tests/unit/test_swiss_olympiad_replay.py tests/unit/test_swiss_olympiad_replay_rounds.py tests/unit/test_swiss_replay_rules.py"
  [swiss/halves]="tests/unit/test_swiss_score_group_halves.py tests/unit/test_swiss_halves_rules.py"
  [swiss/score_group_halves]="tests/unit/test_swiss_score_group_halves.py"
  [swiss/systems]="tests/unit/test_swiss_systems_domain.py"
  [trf/teams]="tests/unit/test_tiebreaks_requested_byes.py tests/unit/test_trf_teams_rules.py"
  [trf/records]="tests/unit/test_tiebreaks_requested_byes.py tests/unit/test_trf_teams_rules.py tests/unit/test_trf_players_rules.py tests/unit/test_trf_records_rules.py"
  [trf/players]="tests/unit/test_trf_players_rules.py"
  [trf/swiss]="tests/unit/test_trf_swiss_read_rounds.py tests/unit/test_trf_swiss_rules.py"
  [game_model]="tests/unit/test_game_model_rules.py"
  [round_robin]="tests/unit/test_round_robin_rules.py"
  [swiss/simulate]="tests/unit/test_swiss_simulate_rules.py"
  [scoring]="tests/unit/test_tiebreaks_requested_byes.py tests/unit/test_scoring_rules.py"
  [tiebreaks]="tests/unit/test_tiebreaks_requested_byes.py tests/unit/test_tiebreaks_adjustments.py"
)
declare -A EXTRA_FIXTURES=([swiss/olympiad2022]="tests/fixtures/olympiads" [trf/event_read]="tests/fixtures/olympiads" [needs]="tests/support/needs_pools.py")
EXTRA_FIXTURES+=([swiss/replay]="tests/fixtures/olympiads" [swiss/c046]="tests/fixtures/swiss")

if ! "$VENV/bin/python" -c "import sys, mutmut; sys.exit(mutmut.__version__ != '$MUTMUT_VERSION')" 2>/dev/null; then
  "$VENV/bin/python" -m pip install --quiet "mutmut==$MUTMUT_VERSION"
fi

scratch() { # $1 = module; a fresh copy of the domain and its tests with a setup.cfg naming the target
  local module=$1 dir="$OUT/$1"
  rm -rf "$dir"
  mkdir -p "$dir/orchestrator" "$dir/tests/unit" "$dir/tests/support"
  cp "$ROOT/orchestrator/__init__.py" "$dir/orchestrator/" 2>/dev/null || touch "$dir/orchestrator/__init__.py"
  cp -r "$ROOT/orchestrator/domain" "$dir/orchestrator/domain"
  find "$dir" -name __pycache__ -prune -exec rm -rf {} +
  cp "$ROOT/pyproject.toml" "$dir/"
  cp "$ROOT/tests/__init__.py" "$ROOT/tests/conftest.py" "$dir/tests/"
  cp "$ROOT/tests/support/__init__.py" "$ROOT/tests/support/ci.py" "$ROOT/tests/support/trf_files.py" \
    "$ROOT/tests/support/swiss_systems.py" "$ROOT/tests/support/swiss_groups.py" \
    "$ROOT/tests/support/matchings.py" "$dir/tests/support/"
  cp "$ROOT/tests/unit/__init__.py" "$ROOT/tests/unit/builders.py" "${DOMAIN_TESTS[@]/#/$ROOT/}" "$dir/tests/unit/"
  mkdir -p "$dir/tests/fixtures" && cp -r "$ROOT/tests/fixtures/trf" "$dir/tests/fixtures/" # read by the TRF tests
  local extra=(${EXTRA_TESTS[$module]:-})
  [ ${#extra[@]} -eq 0 ] || cp "${extra[@]/#/$ROOT/}" "$dir/tests/unit/"
  if [ -n "${EXTRA_FIXTURES[$module]:-}" ]; then
    mkdir -p "$dir/$(dirname "${EXTRA_FIXTURES[$module]}")"
    cp -r "$ROOT/${EXTRA_FIXTURES[$module]}" "$dir/${EXTRA_FIXTURES[$module]}"
  fi
  {
    echo "[mutmut]"
    echo "source_paths = orchestrator"
    echo "only_mutate = orchestrator/domain/$module.py"
    echo "use_git_change_detection = false"
    echo "pytest_add_cli_args_test_selection ="
    printf '    %s\n' "${DOMAIN_TESTS[@]}" "${extra[@]}"
  } >"$dir/setup.cfg"
}

score() { # $1 = module, $2 = seconds; reads mutmut's own result file
  "$VENV/bin/python" - "$OUT/$1" "orchestrator/domain/$1.py" "$2" <<'PY'
import json, sys
from pathlib import Path
from mutmut.stats import status_by_exit_code

work, source, seconds = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
exit_codes = json.loads((work / "mutants" / (source + ".meta")).read_text())["exit_code_by_key"]
status = {name: status_by_exit_code[code] for name, code in exit_codes.items()}
killed = sum(s in ("killed", "timeout") for s in status.values())
survived = sorted(name for name, s in status.items() if s == "survived")
other = len(status) - killed - len(survived)
(work / "survivors.txt").write_text("".join(f"{name}\n" for name in survived))
share = 100 * killed / len(status) if status else 100.0
print(f"{source:38} {len(status):5} {killed:6} {len(survived):8} {other:5} {share:6.1f} % {seconds:6} s")
PY
}

mkdir -p "$OUT"
rows=()
for module in "${MODULES[@]}"; do
  [ -f "$ROOT/orchestrator/domain/$module.py" ] || { echo "no module orchestrator/domain/$module.py" >&2; exit 2; }
  scratch "$module"
  start=$(date +%s)
  (cd "$OUT/$module" && "$VENV/bin/mutmut" run --max-children "$MAX_CHILDREN" >"$OUT/$module/run.log" 2>&1) ||
    { echo "mutmut failed on $module: see $OUT/$module/run.log" >&2; tail -20 "$OUT/$module/run.log" >&2; exit 1; }
  rows+=("$(score "$module" $(($(date +%s) - start)))")
done

echo "mutmut $MUTMUT_VERSION, --max-children $MAX_CHILDREN, $(date -u +%Y-%m-%d)"
printf '%-38s %5s %6s %8s %5s %8s %8s\n' module mutants killed survived other score time
printf '%s\n' "${rows[@]}"
