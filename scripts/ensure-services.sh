#!/usr/bin/env bash
# Start PostgreSQL and Redis on 127.0.0.1 if they are not answering (commands from the machine's notes).
set -u
pg_up() { pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; }
redis_up() { redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; }

if ! pg_up; then
  echo "starting PostgreSQL" >&2
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start 2>&1 || true
  for _ in $(seq 1 30); do pg_up && break; sleep 1; done
fi
if ! redis_up; then
  echo "starting Redis" >&2
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log 2>&1 || true
  for _ in $(seq 1 30); do redis_up && break; sleep 1; done
fi
status=0
pg_up || { echo "PostgreSQL is not reachable on 127.0.0.1:5432" >&2; status=1; }
redis_up || { echo "Redis is not reachable on 127.0.0.1:6379" >&2; status=1; }
exit $status
