#!/usr/bin/env bash
# Configures (once) and builds one build folder. Usage: build.sh BUILD_DIR [meson options...]
set -euo pipefail
dir=$1; shift
top=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -f "$dir/build.ninja" ]; then
  meson setup "$dir" "$top" "$@" >/dev/null
fi
meson compile -C "$dir"
