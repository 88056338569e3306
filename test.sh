#!/usr/bin/env bash
# Sets up .venv (created on first use), installs statki with its test tools,
# then lints, type-checks and runs the tests.  Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")"
# The tests start hundreds of Python processes: where the environment asks Python not to
# keep compiled modules (PYTHONDONTWRITEBYTECODE, as some images do), each of them would
# compile statki from source again (a third of a second each), and each pytest worker
# would rewrite every test's asserts again.
unset PYTHONDONTWRITEBYTECODE
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
# Debian's packages some tests use, installed when missing and we may (root), in one apt
# call: chromium checks the tournament page in a real headless browser (skipped without
# it, saying why); miniupnpd (a real home router's UPnP), miniupnpc, nftables (the routers'
# masquerade) and iproute2 (ip netns) build tests/net/test_nat.py's small internet;
# fonts-dejavu-core has the PDFs' fonts (Polish letters: README, "Dependencies").
wanted=()
command -v chromium >/dev/null || wanted+=(chromium)
command -v miniupnpd >/dev/null || wanted+=(miniupnpd)
command -v upnpc >/dev/null || wanted+=(miniupnpc)
command -v nft >/dev/null || wanted+=(nftables)
command -v ip >/dev/null || wanted+=(iproute2)
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || wanted+=(fonts-dejavu-core)
[ ${#wanted[@]} = 0 ] || { [ "$(id -u)" = 0 ] && { apt-get update -qq && \
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${wanted[@]}" >/dev/null; } \
    || echo "test.sh: could not install ${wanted[*]}"; }
# mypy checks client/ as statki_client through this link (see [tool.mypy] in pyproject.toml).
mkdir -p .venv/typecheck && ln -sfn ../../client .venv/typecheck/statki_client
.venv/bin/python -m ruff check .
.venv/bin/python -m mypy
# On a fresh checkout every worker would compile statki and rewrite every test's asserts
# for itself (7 s of CPU each, before any test runs): done once here instead, on both
# cores (pytest rewrites when it collects: two halves of the tests side by side).
.venv/bin/python -m compileall -q -j 0 statki_net client
.venv/bin/python -m pytest -q --collect-only -p no:cacheprovider tests/cli tests/net tests/client \
    >/dev/null & first=$!
.venv/bin/python -m pytest -q --collect-only -p no:cacheprovider \
    tests/ai tests/protocol tests/referee tests/game tests/store tests/conformance tests/e2e \
    tests/test_*.py >/dev/null || true
wait "$first" || true  # what fails to collect, the run below reports
# Two workers a core: a third of the tests' time is spent waiting (on a socket, a process,
# a game's clock), which the other worker on the core fills (on 2 cores: 221 s with four
# workers, 243 s with three).  A worker that runs out takes tests from another
# (worksteal), so a long test late in a file costs less.
.venv/bin/python -m pytest -q -n "$(($(nproc) * 2))" --dist worksteal "$@"
