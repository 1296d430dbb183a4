#!/bin/sh
# The system programs birdie's sandbox and tests use, installed where they are missing (README command 1, .ci/run):
#   bwrap   (bubblewrap) the sandbox for bash:/python: tools; its tests fail without it
#   openssl              makes the certificate of the grpc: TLS test
#   chromium             the headless browser the web app's tests drive (playwright-core with its executablePath)
# Debian and Ubuntu: installed with apt-get (as root, or through sudo). Elsewhere: says what to install, and goes on;
# birdie itself runs without them (a sandboxed tool then fails with an error that says how to install bubblewrap).
missing=""
command -v bwrap >/dev/null 2>&1 || missing="$missing bubblewrap"
command -v openssl >/dev/null 2>&1 || missing="$missing openssl"
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || missing="$missing chromium"
[ -z "$missing" ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
  echo "system-packages: please install:$missing (your distribution's packages); continuing without them" >&2
  exit 0
fi
if [ "$(id -u)" = 0 ]; then sudo=""; elif command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
  echo "system-packages: not root and no sudo: run 'apt-get install -y$missing' as root; continuing without them" >&2
  exit 0
fi
echo "system-packages: installing$missing" >&2
# shellcheck disable=SC2086 # one word per package
$sudo apt-get update -qq && $sudo apt-get install -y -qq $missing >/dev/null
