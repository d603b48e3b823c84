#!/usr/bin/env bash
# npm run test:keychain — the keychain test against a real, throw-away
# Secret Service (gnome-keyring under a private D-Bus session), when this
# machine has one to start; otherwise says what to install and passes, since
# `npm run test:integration` already covers the no-Secret-Service half.
set -euo pipefail
cd "$(dirname "$0")/../.."
for tool in dbus-run-session gnome-keyring-daemon gdbus; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "keychain end-to-end test not run: $tool is missing (apt-get install gnome-keyring dbus libglib2.0-bin; CI installs them)"
    exit 0
  fi
done
exec test/helpers/with-keyring.sh node --test test/integration/keychain.test.ts
