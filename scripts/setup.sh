#!/usr/bin/env bash
# Installs everything the suite needs on a machine that has nothing but Python 3.11, pip and apt:
# the virtual environment with every adapter's framework, Debian's chromium for the browser test,
# and pypto's calculator (built once into a cache folder outside the repository).
# Idempotent: a second run only checks.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
say() { printf '[setup] %s\n' "$*" >&2; }

if [ ! -x .venv/bin/python ]; then
    say "creating .venv with $($PY --version)"
    "$PY" -m venv .venv
fi
say "installing tensor-conformance and the frameworks (torch 2.13.0 CPU, mindspore 2.10.0, pypto 0.2.0)"
log=$(mktemp)
# pip's output goes to a log shown only on failure: a clean install says nothing.
if ! { .venv/bin/python -m pip install -q --upgrade pip && .venv/bin/python -m pip install -q -e '.[all]'; } >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    say "pip install failed (above)"
    exit 1
fi
rm -f "$log"

# The browser test drives a real chromium; only Debian's package works here (no browser downloads).
if ! command -v chromium >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        say "installing Debian chromium"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    else
        say "chromium missing and no root apt-get: the browser test will be skipped"
    fi
fi

# pypto's CPU values come from its interpreter, which needs a calculator built against torch.
if command -v cmake >/dev/null 2>&1 && command -v g++ >/dev/null 2>&1; then
    say "building pypto's calculator (once; cached outside the repository)"
    .venv/bin/python -m adapters.pypto_runtime.calculator
else
    say "cmake or g++ missing: the pypto adapter will report itself unavailable"
fi
say "done"
