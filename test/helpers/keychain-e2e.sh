#!/usr/bin/env bash
# npm run test:keychain — the keychain test (both halves: with a real,
# throw-away Secret Service — gnome-keyring under a private D-Bus session —
# and with none) when this machine can start one; otherwise it says what to
# install and runs nothing. CI installs the packages, so CI always runs it.
set -euo pipefail
cd "$(dirname "$0")/../.."
for tool in dbus-run-session gnome-keyring-daemon gdbus; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "keychain end-to-end test not run: $tool is missing (apt-get install gnome-keyring dbus libglib2.0-bin; CI installs them)"
    exit 0
  fi
done
exec test/helpers/with-keyring.sh node --test test/keychain/keychain.test.ts
