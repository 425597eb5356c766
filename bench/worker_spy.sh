#!/usr/bin/env bash
# Sample the Celery worker processes of one bench/whole_event.py run with py-spy, then say where their CPU
# goes by job and by our innermost frame (bench/spy_jobs.py).
#
#   bench/worker_spy.sh OUT [whole_event.py options...]      e.g. bench/worker_spy.sh /tmp/spy --beat-every 30
#
# py-spy (MIT; `pip install -e '.[bench]'`) attaches to the main queue's worker (prefork, two processes) as
# soon as it is up and records its children at 100 Hz until the run ends: OUT.txt (raw stacks), OUT.run
# (the bench's own output). Only stacks inside a job (jobs.bodies.run_job) are counted, so the workers'
# idle loop and their start do not weigh; a sample is 10 ms of one process's CPU.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:?usage: bench/worker_spy.sh OUT [whole_event.py options]}"
shift
cd "$root"
.venv/bin/python bench/whole_event.py --runs 1 --celery --pool prefork "$@" >"$out.run" 2>&1 &
bench=$!
worker=""
for _ in $(seq 600); do
  worker="$(pgrep -f "celery -A workers.app worker --pool=prefork --concurrency=2" | head -1 || true)"
  [ -n "$worker" ] && break
  sleep 0.1
done
[ -n "$worker" ] || { echo "no worker started"; kill "$bench"; exit 1; }
.venv/bin/py-spy record -r 100 --subprocesses --pid "$worker" -f raw -o "$out.txt" >/dev/null 2>&1 &
wait "$bench"
sleep 2  # py-spy writes its file once the worker is gone
grep -E "^run|Play-off" "$out.run"
.venv/bin/python bench/spy_jobs.py "$out.txt"
