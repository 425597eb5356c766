#!/usr/bin/env bash
# Interleaved A/B of bench/whole_event.py: an earlier commit against the working tree, run after run.
#
#   bench/ab_whole_event.sh <commit> [pairs=3] [extra whole_event.py options...]
#
# This 2-core machine changes speed by 1.5-2x within an hour, so two figures taken an hour apart say little;
# runs that alternate (A, B, A, B, ...) share the machine's mood. The commit is checked out in a temporary
# git worktree and run with PYTHONPATH pointing at it (same venv, same PostgreSQL and stand-in settings).
# Prints one line per run: which side, the event's wall clock, its play-off's (empty for an event without one),
# the machine reference of that run and the turnaround's p50 and p95 (bench/whole_event.py's first turnaround
# line).
# With AB_WORKER_LOGS=DIR (and --celery), each run keeps its worker logs in DIR/<side>-<n>/, to compare the
# job time per job name of the two sides: .venv/bin/python bench/worker_log_jobs.py DIR/<side>-<n>/*.log
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
base="${1:?usage: bench/ab_whole_event.sh <commit> [pairs] [whole_event.py options]}"
pairs="${2:-3}"
shift $(( $# >= 2 ? 2 : 1 ))
python="$root/.venv/bin/python"
tree="$(mktemp -d)/base"
git -C "$root" worktree add --detach -q "$tree" "$base"
trap 'git -C "$root" worktree remove --force "$tree"' EXIT

run() {  # $1: label, $2: source tree, $3: run number, then whole_event.py options
  local label="$1" src="$2" n="$3" out logs=()
  shift 3
  if [ -n "${AB_WORKER_LOGS:-}" ]; then
    mkdir -p "$AB_WORKER_LOGS/$label-$n"
    logs=(--worker-log "$AB_WORKER_LOGS/$label-$n")
  fi
  out="$(cd "$src" && PYTHONPATH="$src" "$python" bench/whole_event.py --runs 1 "${logs[@]}" "$@" 2>&1)" || {
    echo "$label: run failed"; echo "$out" | tail -5; return 1; }
  printf '%-8s event %6s s   play-off %5s s   machine reference %s s   turnaround %s\n' "$label" \
    "$(echo "$out" | sed -nE 's/.*event ([0-9.]+) s.*/\1/p' | head -1)" \
    "$(echo "$out" | sed -nE 's/^  Play-off +([0-9.]+) s.*/\1/p' | head -1)" \
    "$(echo "$out" | sed -nE 's/.*best of 3\): ([0-9.]+) s.*/\1/p' | head -1)" \
    "$(echo "$out" | sed -nE 's/.*rounds, last result.s pull to the next round.s games\): [0-9]+ rounds, (p50 [0-9.]+ s, p95 [0-9.]+ s).*/\1/p' | head -1)"
}

for n in $(seq "$pairs"); do
  run "$(git -C "$tree" rev-parse --short HEAD)" "$tree" "$n" "$@"
  run "tree" "$root" "$n" "$@"
done
