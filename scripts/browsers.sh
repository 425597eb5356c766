#!/usr/bin/env bash
# Browser tests use Debian's Chromium (Playwright cannot download its own browser here).
set -u
if [ ! -x /usr/bin/chromium ]; then
  echo "installing chromium and chromium-driver" >&2
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver) >/dev/null 2>&1 \
    || { echo "could not install chromium" >&2; exit 1; }
fi
