#!/usr/bin/env bash
# The accelerator check (scripts/accelerator_check.py): a fresh venv with the GPU extra, then
# every step on the GPU; the report in accelerator-check/ (JSON and markdown).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv-gpu
.venv-gpu/bin/pip install -q -e '.[gpu,test]'
.venv-gpu/bin/python scripts/accelerator_check.py --out accelerator-check "$@"
