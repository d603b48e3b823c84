#!/usr/bin/env bash
# npm run test:keychain — the keychain test (both halves: with a real,
# throw-away Secret Service — gnome-keyring under a private D-Bus session —
# and with none). Where gnome-keyring, dbus or gdbus is missing it prints one
# line naming the apt packages and runs nothing; under AIRLOCK_REQUIRE_ALL=1
# (.ci/run sets it) that is a failure instead (see test/helpers/systemTools.ts).
# The whole tier has a hard deadline, so it can never hang.
set -euo pipefail
cd "$(dirname "$0")/../.."
status=0
node test/helpers/systemTools.ts keyring || status=$?
case "$status" in
  0) ;;
  3) exit 0 ;;
  *) exit 1 ;;
esac
# timeout signals the whole process group (dbus-run-session, the daemon, node) at the deadline.
exec timeout --kill-after=10 600 test/helpers/with-keyring.sh node --test --test-timeout=120000 --test-force-exit test/keychain/keychain.test.ts
