#!/usr/bin/env bash
# PostgreSQL's own time per statement for one benchmark run, from pg_stat_statements.
#
#   bench/pg_statements.sh [--top N] <command...>
#   e.g. bench/pg_statements.sh .venv/bin/python bench/whole_event.py --runs 1
#
# Resets pg_stat_statements, runs the command, then prints the server's execution time summed over every
# statement (CREATE/DROP DATABASE of the bench's scratch database left out) and the N statements that took
# longest. The server's time does not drift with the Python side's, so it compares two commits better than
# the event's wall clock on this machine (docs/performance.md, "Arrays as parameters").
# Needs the extension loaded once on the server (a restart):
#   psql -h 127.0.0.1 -U postgres -c "ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'"
#   pg_ctlcluster 15 main restart   # or: service postgresql restart
#   psql -h 127.0.0.1 -U postgres -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements"
set -euo pipefail
top=10
if [ "${1:-}" = "--top" ]; then top="$2"; shift 2; fi
[ $# -gt 0 ] || { echo "usage: bench/pg_statements.sh [--top N] <command...>" >&2; exit 2; }
psql_() { psql -h "${PGHOST:-127.0.0.1}" -U "${PGUSER:-postgres}" -d postgres -X "$@"; }
psql_ -qAtc "SELECT pg_stat_statements_reset()" >/dev/null || {
  echo "pg_stat_statements is not loaded: see the comment at the top of $0" >&2; exit 1; }
"$@"
filter="query NOT LIKE 'CREATE DATABASE%' AND query NOT LIKE 'DROP DATABASE%'"
psql_ -Atc "SELECT 'PostgreSQL execution time: ' || round(sum(total_exec_time)::numeric) || ' ms in '
  || sum(calls) || ' statements' FROM pg_stat_statements WHERE $filter"
psql_ -c "SELECT calls, round(total_exec_time::numeric, 1) AS ms, round(mean_exec_time::numeric, 2) AS ms_each,
  rows, left(regexp_replace(query, '\s+', ' ', 'g'), 110) AS statement FROM pg_stat_statements
  WHERE $filter ORDER BY total_exec_time DESC LIMIT $top"
