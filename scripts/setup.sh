#!/usr/bin/env bash
# Installs everything the suite needs on a machine that has nothing but Python 3.11, pip and apt:
# the main virtual environment (.venv: the suite on NumPy 2, torch, pypto), an environment of its own for
# each framework whose pinned release cannot run there (.venv-mindspore: mindspore 2.10.0 on NumPy 1.x) or
# pins NumPy on its own schedule (.venv-jax: jax 0.10.2 CPU),
# Debian's chromium for the browser test, and pypto's calculator (built once into a cache folder outside
# the repository). The adapters find their environment by themselves (adapters/environments.py).
# Idempotent: a second run only checks.
# SETUP_ONLY=jax builds (or checks) only .venv-jax: the jax adapter's environment, without the rest.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
say() { printf '[setup] %s\n' "$*" >&2; }

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

# jax, tensorflow and paddle each get an environment of their own (pyproject.toml's extra of the same name),
# where their adapters' workers run.  uv (from PyPI, installed into .venv by pip) makes and fills them: measured
# on fresh environments here, jax 8 s (607 MB), tensorflow 6 s (1.5 GB), paddle 6 s (0.8 GB), against pip's
# 17 s, 25 s and 24 s; a second run only checks (2-4 s each).
uv_install() {      # VENV EXTRA
    local venv=$1 extra=$2 log start=$SECONDS
    log=$(mktemp)
    if ! { [ -x .venv/bin/uv ] || .venv/bin/python -m pip install -q uv; } >"$log" 2>&1 \
        || ! { [ -x "$venv/bin/python" ] || .venv/bin/uv venv -q --python "$PY" "$venv"; } >>"$log" 2>&1 \
        || ! .venv/bin/uv pip install -q --python "$venv/bin/python" -e ".[$extra]" >>"$log" 2>&1; then
        cat "$log" >&2
        rm -f "$log"
        say "uv install into $venv failed (above)"
        exit 1
    fi
    rm -f "$log"
    say "$venv: $(( SECONDS - start )) s, $(du -sh "$venv" | cut -f1)"
}

if [ "${SETUP_ONLY:-}" = jax ]; then
    venv .venv
    say "installing jax 0.10.2 and tensor-conformance into .venv-jax"
    uv_install .venv-jax jax
    say "done (SETUP_ONLY=jax)"
    exit 0
elif [ -n "${SETUP_ONLY:-}" ]; then
    say "SETUP_ONLY=$SETUP_ONLY: the one section it can name is jax"
    exit 2
fi

venv .venv
say "installing tensor-conformance into .venv on NumPy 2 (torch 2.13.0 CPU, pypto 0.2.0)"
# numpy>=2 also moves a .venv made before the main environment left NumPy 1 (and mindspore) behind.
pip_install .venv -e '.[main]' 'numpy>=2,<3'
if .venv/bin/python -m pip show -q mindspore >/dev/null 2>&1; then
    say "removing mindspore from .venv (it runs in .venv-mindspore now)"
    .venv/bin/python -m pip uninstall -q -y mindspore >/dev/null
fi

# mindspore 2.10.0 is compiled against NumPy 1.x: it gets an environment of its own, where its adapters'
# workers run (and CI runs the oracle's tests under NumPy 1).
venv .venv-mindspore
say "installing mindspore 2.10.0 and tensor-conformance into .venv-mindspore on NumPy 1.x"
pip_install .venv-mindspore -e '.[mindspore]'

say "installing jax 0.10.2 and tensor-conformance into .venv-jax"
uv_install .venv-jax jax
say "installing tensorflow-cpu 2.21.0 and tensor-conformance into .venv-tensorflow"
uv_install .venv-tensorflow tensorflow
say "installing paddlepaddle 3.3.1 and tensor-conformance into .venv-paddle"
uv_install .venv-paddle paddle

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
