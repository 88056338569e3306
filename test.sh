#!/usr/bin/env bash
# Sets up .venv (created on first use), installs statki with its test tools,
# then lints, type-checks and runs the tests.  Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")"
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
# The tournament page is checked in a real headless browser: Debian's chromium, installed
# when missing and we may (root); without it that one test is skipped, saying why.
command -v chromium >/dev/null || { [ "$(id -u)" = 0 ] && { apt-get update -qq \
    && apt-get install -y -qq chromium >/dev/null; } || echo "test.sh: no chromium"; }
# mypy checks client/ as statki_client through this link (see [tool.mypy] in pyproject.toml).
mkdir -p .venv/typecheck && ln -sfn ../../client .venv/typecheck/statki_client
.venv/bin/python -m ruff check .
.venv/bin/python -m mypy
# Both cores: most tests wait on a socket or a subprocess, one at a time.
.venv/bin/python -m pytest -q -n auto "$@"
