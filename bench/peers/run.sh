#!/usr/bin/env bash
# Peers: contact-workbench beside Bullet 3.24 and MuJoCo 2.2.2 (Debian's libbullet-dev and
# libmujoco-dev, installed here when missing, as root or through sudo) on the same scenes in
# one invocation: for each scene, for each repeat, ours then Bullet then MuJoCo. Prints the
# medians and, per peer, the median over the repeats of our steps/s divided by the peer's in
# the same repeat; writes bench/results/peers-MACHINE.csv. Details: bench/peers/peers.py and
# docs/benchmarks.md ("Peers").
#
# Usage: bench/peers/run.sh [--repeats N] [--steps N] [--timeout SECONDS]
#            [--scenes "pyramid-10 pyramid-20 pyramid-40 incline"] [--engines "ours bullet mujoco"]
#            [--set KEY=VALUE]... [--bullet-sleep] [--mujoco-option NAME=VALUE]... [--keep DIR]
#            [--tag TAG]
# REPEATS, STEPS and TIMEOUT may also come from the environment (defaults 5, 300, 600). --tag
# names a variant's CSV bench/results/peers-TAG-MACHINE.csv (e.g. --tag margin-2mm).
# Example, a short run: bench/peers/run.sh --repeats 3 --scenes "pyramid-10 incline"
#   --set contact.margin=0.002
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
repeats=${REPEATS:-5}
steps=${STEPS:-300}
timeout=${TIMEOUT:-600}
scenes="pyramid-10 pyramid-20 pyramid-40 incline"
engines="ours bullet mujoco"
tag=""
extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --repeats) repeats=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --timeout) timeout=$2; shift 2 ;;
    --scenes) scenes=$2; shift 2 ;;
    --engines) engines=$2; shift 2 ;;
    --set) extra+=(--set "$2"); shift 2 ;;
    --keep) extra+=(--keep "$2"); shift 2 ;;
    --tag) tag="$2-"; shift 2 ;;
    --bullet-sleep) extra+=(--bullet-sleep); shift ;;
    --mujoco-option) extra+=(--mujoco-option "$2"); shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "unknown argument: $1 (see --help)" >&2; exit 2 ;;
  esac
done

# The peers and what this script needs besides the project's own dependencies.
"$top/scripts/install-deps.sh"
packages=(libbullet-dev libmujoco-dev g++ python3-yaml)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  as_root=()
  [ "$(id -u)" -ne 0 ] && as_root=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${as_root[@]}" apt-get update -q
  "${as_root[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# The box lists the peers read are the scenes we run (no peer needed).
python3 "$top/bench/peers/test_scenes.py" -q

# Our release build, as bench/run.sh makes it, and the peers: -O2, one compiler call each,
# flags from pkg-config where the package ships a .pc file (Bullet does, MuJoCo 2.2.2 only a
# CMake config: its header and library are in the default paths).
build="$top/build-bench"
"$top/scripts/build.sh" "$build" -Dbuildtype=release -Db_ndebug=true >/dev/null
bin="$build/workbench/cli/contact-workbench"
peers="$build/peers"
mkdir -p "$peers"
src="$top/bench/peers"
bullet_flags=$(pkg-config --cflags --libs bullet 2>/dev/null ||
  echo "-I/usr/include/bullet -lBulletDynamics -lBulletCollision -lLinearMath")
mujoco_flags=$(pkg-config --cflags --libs mujoco 2>/dev/null || echo "-lmujoco")
# Each is rebuilt when it is older than its source or the shared header.
stale() { [ ! "$1" -nt "$2" ] || [ ! "$1" -nt "$src/peer_scene.h" ]; }
if stale "$peers/bullet_scene" "$src/bullet_scene.cpp"; then
  # shellcheck disable=SC2086 # the flags are words
  g++ -O2 -std=c++17 -Wall -Wextra -o "$peers/bullet_scene" "$src/bullet_scene.cpp" $bullet_flags
fi
if stale "$peers/mujoco_scene" "$src/mujoco_scene.c"; then
  # shellcheck disable=SC2086
  gcc -O2 -std=c17 -Wall -Wextra -o "$peers/mujoco_scene" "$src/mujoco_scene.c" $mujoco_flags -lm
fi

machine=$(python3 "$top/bench/machine_name.py")
cpu=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')
# shellcheck disable=SC2086 # scenes and engines are lists of words
python3 "$src/peers.py" --bin "$bin" --bullet "$peers/bullet_scene" --mujoco "$peers/mujoco_scene" \
  --repeats "$repeats" --steps "$steps" --timeout "$timeout" --scenes $scenes --engines $engines \
  --machine "$cpu, $(nproc) cores" --csv "$top/bench/results/peers-$tag$machine.csv" "${extra[@]}"
