#!/usr/bin/env bash
# Installs the Debian 12 packages Contact Workbench needs to build and test, skipping those
# already present. Runs apt-get as root, or through sudo. With "fuzz": clang as well.
set -euo pipefail

packages=(
  build-essential meson ninja-build pkg-config
  libglib2.0-dev libyaml-dev libjson-glib-dev libassimp-dev
  liblapacke-dev libopenblas-dev libsuitesparse-dev
  libgtk-4-dev libepoxy-dev libcairo2-dev libpango1.0-dev libwebp-dev
  libegl1 libegl-mesa0 libgl1-mesa-dri libxtst-dev
  xvfb xauth
)
# scripts/fuzz.sh: libFuzzer and the sanitizers are clang's (runtimes in libclang-rt-14-dev,
# which apt only recommends).
[ "${1:-}" = fuzz ] && packages+=(clang libclang-rt-14-dev)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing: ${missing[*]}" >&2
as_root=()
[ "$(id -u)" -ne 0 ] && as_root=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -q
"${as_root[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
