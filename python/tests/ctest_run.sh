#!/usr/bin/env bash
# CTest's driver for the Python package (cmake/ClsPython.cmake): runs
# pytest on python/tests, or one example of examples/python, with the
# build's libclstream (CLSTREAM_LIBRARY) and the source tree's package
# (PYTHONPATH), so no install is needed.  Exit 77 (CTest's SKIP_RETURN_CODE)
# where the interpreter lacks what the run needs, with the reason.
#   ctest_run.sh PYTHON LIBRARY SOURCE_DIR pytest [pytest args...]
#   ctest_run.sh PYTHON LIBRARY SOURCE_DIR example NAME
set -uo pipefail
py=$1 lib=$2 src=$3 what=$4
shift 4
export CLSTREAM_LIBRARY=$lib
export PYTHONPATH=$src/python${PYTHONPATH:+:$PYTHONPATH}
export PYTHONDONTWRITEBYTECODE=1
if [[ $what == pytest ]]; then
  if ! "$py" -c 'import pytest' 2>/dev/null; then
    echo "skipped: $py has no pytest (Debian: apt-get install python3-pytest)"
    exit 77
  fi
  "$py" -m pytest -q -rs -p no:cacheprovider "$@" "$src/python/tests"
  rc=$?
  case $rc in
    0) exit 0 ;;
    5) echo "ctest_run.sh: pytest collected no tests"; exit 1 ;;
    *) echo "ctest_run.sh: pytest exit status $rc (1 failed tests, 2 interrupted, 3 internal error, 4 usage)"; exit "$rc" ;;
  esac
fi
exec "$py" "$src/examples/python/$1.py"
