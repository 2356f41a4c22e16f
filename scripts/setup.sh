#!/usr/bin/env bash
# Installs everything the suite needs on a machine that has nothing but Python 3.11, pip and apt:
# the main virtual environment (.venv: the suite on NumPy 2 and the frameworks that run there), an environment
# of its own for each framework that declares one (a pinned release that cannot share NumPy 2 or the main
# environment's resolution), Debian's chromium for the browser test, and pypto's calculator (built once into a
# cache folder outside the repository).  What goes where is read from the frameworks' declarations
# (adapters/<name>_framework.toml, through `python3 adapters/frameworks.py`, which needs nothing but Python);
# the adapters find their environment by themselves (adapters/environments.py).
# Idempotent: a second run only checks.
# SETUP_ONLY=NAME builds (or checks) only the environment of framework NAME (e.g. jax), without the rest.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
say() { printf '[setup] %s\n' "$*" >&2; }

# An environment's requirement lines, from the declarations ("" for the main environment), into REQS.
requirements() {    # NAME
    local lines
    lines=$("$PY" -I adapters/frameworks.py requirements "$1")
    REQS=()
    [ -z "$lines" ] || mapfile -t REQS <<<"$lines"
}

# pip's output goes to a log shown only on failure: a clean install says nothing.
pip_install() {     # VENV ARGS...
    local venv=$1 log start=$SECONDS
    shift
    log=$(mktemp)
    if ! { "$venv/bin/python" -m pip install -q --upgrade pip && "$venv/bin/python" -m pip install -q "$@"; } >"$log" 2>&1; then
        cat "$log" >&2
        rm -f "$log"
        say "pip install into $venv failed (above)"
        exit 1
    fi
    rm -f "$log"
    say "$venv: $(( SECONDS - start )) s, $(du -sh "$venv" | cut -f1)"
}

venv() {            # VENV
    if [ ! -x "$1/bin/python" ]; then
        say "creating $1 with $($PY --version)"
        "$PY" -m venv "$1"
    fi
}

# Each framework that declares an environment gets it, with the suite and its requirement lines, and its
# adapters' workers run there.  uv (from PyPI, installed into .venv by pip) makes and fills them: measured on
# fresh environments here, jax 8 s (607 MB), tensorflow 6 s (1.5 GB), paddle 6 s (0.8 GB), against pip's 17 s,
# 25 s and 24 s; a second run only checks (2-4 s each).
uv_install() {      # VENV NAME
    local venv=$1 log start=$SECONDS
    requirements "$2"
    say "installing ${REQS[*]} and tensor-conformance into $venv"
    log=$(mktemp)
    if ! { [ -x .venv/bin/uv ] || .venv/bin/python -m pip install -q uv; } >"$log" 2>&1 \
        || ! { [ -x "$venv/bin/python" ] || .venv/bin/uv venv -q --python "$PY" "$venv"; } >>"$log" 2>&1 \
        || ! .venv/bin/uv pip install -q --python "$venv/bin/python" -e . "${REQS[@]}" >>"$log" 2>&1; then
        cat "$log" >&2
        rm -f "$log"
        say "uv install into $venv failed (above)"
        exit 1
    fi
    rm -f "$log"
    say "$venv: $(( SECONDS - start )) s, $(du -sh "$venv" | cut -f1)"
}

# NAME FOLDER of each framework's own environment
ENVIRONMENTS=$("$PY" -I adapters/frameworks.py environments)

if [ -n "${SETUP_ONLY:-}" ]; then
    folder=$(awk -v n="$SETUP_ONLY" '$1 == n { print $2 }' <<<"$ENVIRONMENTS")
    if [ -z "$folder" ]; then
        say "SETUP_ONLY=$SETUP_ONLY: the sections it can name are $(cut -d' ' -f1 <<<"$ENVIRONMENTS" | paste -sd' ')"
        exit 2
    fi
    venv .venv
    uv_install "$folder" "$SETUP_ONLY"
    say "done (SETUP_ONLY=$SETUP_ONLY)"
    exit 0
fi

venv .venv
requirements ""
say "installing tensor-conformance into .venv on NumPy 2 (${REQS[*]})"
# numpy>=2 also moves a .venv made before the main environment left NumPy 1 behind.
pip_install .venv -e '.[main]' 'numpy>=2,<3' "${REQS[@]}"

while read -r name folder; do
    [ -z "$name" ] || uv_install "$folder" "$name" </dev/null
done <<<"$ENVIRONMENTS"

# Debian packages for what pip cannot bring; false where there is no root apt-get to install them with.
apt_updated=
apt_install() {     # PACKAGE...
    [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 || return 1
    say "installing Debian $*"
    if [ -z "$apt_updated" ]; then
        apt-get update -qq
        apt_updated=1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# The browser test drives a real chromium; only Debian's package works here (no browser downloads).
if ! command -v chromium >/dev/null 2>&1 && ! apt_install chromium; then
    say "chromium missing and no root apt-get: the browser test will be skipped"
fi

# Workers run under bubblewrap, which keeps a candidate from writing the harness's files (adapters/sandbox.py);
# without it they run unsandboxed, and the results header says so.
if ! command -v bwrap >/dev/null 2>&1 && ! apt_install bubblewrap; then
    say "bubblewrap missing and no root apt-get: workers will run unsandboxed (docs/CERTIFY.md, Isolation and limits)"
fi

# pypto's CPU values come from its interpreter, which needs a calculator built against torch.
if ! { command -v cmake >/dev/null 2>&1 && command -v g++ >/dev/null 2>&1; }; then
    apt_install cmake g++ make || true
fi
if command -v cmake >/dev/null 2>&1 && command -v g++ >/dev/null 2>&1; then
    say "building pypto's calculator (once; cached outside the repository)"
    .venv/bin/python -m adapters.pypto_runtime.calculator
else
    say "cmake or g++ missing: the pypto adapter will report itself unavailable"
fi
say "done"
