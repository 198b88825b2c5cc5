#!/usr/bin/env bash
# Installs what is missing, builds, and starts the workbench on its default scene. Without a
# display it runs headless and writes the run report to default-report.json.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install-deps.sh"
"$top/scripts/build.sh" "$top/build"
bin="$top/build/workbench/cli/contact-workbench"
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  exec "$bin" "$top/scenes/default.yaml" "$@"
fi
"$bin" --headless "$top/scenes/default.yaml" --report "$top/default-report.json" "$@"
echo "headless run done; report: $top/default-report.json"
