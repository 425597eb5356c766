#!/usr/bin/env bash
# Debian packages the tests use: Chromium for browser tests (Playwright cannot download its own browser
# here) and docker-compose to validate docker-compose.yml (there is no Docker engine on CI machines).
set -u
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/bin/chromedriver ] || missing+=(chromium-driver)
command -v docker-compose >/dev/null 2>&1 || missing+=(docker-compose)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing ${missing[*]}" >&2
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}") >/dev/null 2>&1 \
    || { echo "could not install ${missing[*]}" >&2; exit 1; }
fi
