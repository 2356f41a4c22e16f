#!/usr/bin/env bash
# Build the suite as an sdist and a wheel, install the wheel into a clean environment, and certify the example
# vendor adapter (examples/vendor_adapter) with that install only, then verify the certificate: the install a
# vendor follows in docs/CERTIFY.md, "1. Install the suite" (.ci/run runs it).  Everything is built and written
# under a scratch folder from a copy of the tracked files: nothing lands in the checkout.  Needs .venv's uv
# (scripts/setup.sh); the wheel's dependencies come from uv's cache or the package index.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/src"
git ls-files -z | tar --null -T - -cf - | tar -xf - -C "$tmp/src"      # the tracked files as they are now
uv=.venv/bin/uv
"$uv" build -q --out-dir "$tmp/dist" "$tmp/src"
ls "$tmp/dist"/tensor_conformance-*.tar.gz "$tmp/dist"/tensor_conformance-*-py3-none-any.whl >/dev/null
echo "[package] built $(cd "$tmp/dist" && echo *) in $(( SECONDS - start )) s" >&2
"$uv" venv -q --python "$(.venv/bin/python -c 'import sys; print(sys.executable)')" "$tmp/env"
"$uv" pip install -q --python "$tmp/env/bin/python" "$tmp/dist"/tensor_conformance-*-py3-none-any.whl
echo "[package] installed the wheel into a clean environment at $(( SECONDS - start )) s" >&2
# from a folder outside the checkout, with only the vendor's package on PYTHONPATH: the suite is the wheel's
cd "$tmp"
export PYTHONPATH="$tmp/src/examples/vendor_adapter"
"$tmp/env/bin/python" -c 'import adapters, sys; assert sys.prefix in adapters.__file__, adapters.__file__'
set +e
"$tmp/env/bin/conform" certify --adapter vendor_clip.adapter:VendorClipAdapter --op clip --out cert --jobs 2
rc=$?
set -e
[ "$rc" -eq 1 ] || { echo "[package] certify exited $rc; expected 1 (the example's known clip bug)" >&2; exit 1; }
"$tmp/env/bin/conform" verify cert --sample 20 --seed 1 --jobs 2
echo "[package] sdist + wheel built, installed, example certified and verified: $(( SECONDS - start )) s" >&2
