#!/usr/bin/env bash
# Runs a command against a real, throw-away Secret Service, so the keychain
# tests exercise @napi-rs/keyring end to end on Linux CI:
#   test/helpers/with-keyring.sh node --test test/keychain/keychain.test.ts
# It starts a private D-Bus session (dbus-run-session) and, inside it, a fresh
# gnome-keyring-daemon whose login keyring is created and unlocked with a
# throw-away password. HOME, XDG_DATA_HOME, XDG_RUNTIME_DIR and XDG_CONFIG_HOME
# point into a temporary directory, so the user's real keyring is never read
# or written; the daemon is stopped and the directory removed on exit.
# The command's exit code is passed through.
# Debian packages: gnome-keyring, dbus (dbus-run-session), libglib2.0-bin (gdbus).
set -euo pipefail

if [ "$#" -eq 0 ]; then
  echo "usage: $0 COMMAND [ARG...]" >&2
  exit 2
fi

if [ "${AIRLOCK_WITH_KEYRING_INSIDE:-}" != "1" ]; then
  missing=""
  for tool in dbus-run-session gnome-keyring-daemon gdbus; do
    command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
  done
  if [ -n "$missing" ]; then
    echo "with-keyring.sh: missing$missing (apt-get install gnome-keyring dbus libglib2.0-bin)" >&2
    exit 127
  fi
  AIRLOCK_WITH_KEYRING_INSIDE=1 exec dbus-run-session -- bash "$0" "$@"
fi
unset AIRLOCK_WITH_KEYRING_INSIDE

# Inside the private session bus from here on.
scratch="$(mktemp -d "${TMPDIR:-/tmp}/airlock-keyring.XXXXXX")"
export HOME="$scratch/home"
export XDG_DATA_HOME="$HOME/.local/share"
export XDG_CONFIG_HOME="$HOME/.config"
export XDG_RUNTIME_DIR="$scratch/run"
mkdir -p "$XDG_DATA_HOME" "$XDG_CONFIG_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$scratch" "$XDG_RUNTIME_DIR"

daemon_pid=""
cleanup() {
  if [ -n "$daemon_pid" ]; then
    kill "$daemon_pid" 2>/dev/null || true
    # Wait for it to go, but not forever: SIGKILL after 5 s.
    for _ in $(seq 50); do
      kill -0 "$daemon_pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$daemon_pid" 2>/dev/null || true
    wait "$daemon_pid" 2>/dev/null || true
  fi
  rm -rf "$scratch"
}
trap cleanup EXIT

# --foreground keeps the daemon a child of this shell (so it can be stopped
# here). --unlock reads the login keyring's password from stdin: a throw-away
# one, because an empty password leaves no default collection and every write
# then fails with "no result found".
printf 'airlock-test' | gnome-keyring-daemon --foreground --unlock --components=secrets \
  --control-directory="$XDG_RUNTIME_DIR/keyring" >"$scratch/daemon.log" 2>&1 &
daemon_pid=$!

# Block until the daemon owns the Secret Service name (event driven, bounded).
if ! gdbus wait --session --timeout 20 org.freedesktop.secrets; then
  echo "with-keyring.sh: gnome-keyring-daemon did not register org.freedesktop.secrets" >&2
  cat "$scratch/daemon.log" >&2 || true
  exit 1
fi

# Tells tests this keyring is disposable (they may lock it, for instance).
export AIRLOCK_TEST_KEYRING=throwaway
status=0
"$@" || status=$?
exit "$status"
