#!/usr/bin/env bash
# Installs what is missing (Debian packages, as root), builds clstream in
# build/ and runs the examples.  Usage, from anywhere: bash ci/examples.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# shellcheck source=ci/setup.sh
source ci/setup.sh

cmake -S . -B build
cmake --build build -j"$(nproc)"
cd build
ctest -L example --output-on-failure -V
