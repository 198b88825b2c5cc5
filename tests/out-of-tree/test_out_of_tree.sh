#!/bin/sh
# The out-of-tree plugin promise (ARCHITECTURE.md, "Plugin ABI rules"): a plugin built only
# against the INSTALLED headers, through pkg-config, loads into the installed program.
#
#  1. stages an install of this build into a temporary folder (meson install --destdir),
#  2. builds tests/out-of-tree/ground.c (docs/plugin-guide.md's worked example, checked to be
#     the same text) with plain cc and the staged pkg-config file, in a folder of its own,
#  3. runs the staged contact-workbench: --list-plugins must list "ground" as loaded, and a
#     headless run of the default scene with --set contact.model=ground must succeed, with
#     the bodies resting on the ground instead of falling through.
#
# Environment (set by tests/out-of-tree/meson.build): CWB_BUILD_DIR, CWB_SOURCE_DIR, MESON
# (the meson that configured the build), CC (the C compiler; plain cc when unset).
set -eu

fail () {
  echo "FAIL: $*" >&2
  exit 1
}

build=${CWB_BUILD_DIR:?}
src=${CWB_SOURCE_DIR:?}
meson=${MESON:-meson}
cc=${CC:-cc}
here=$src/tests/out-of-tree

# Outside the build tree on purpose: a program inside it also searches the build's own plugin
# folder, and the staged copies of the same plugins would then be refused as duplicates.
stage=$(mktemp -d "${TMPDIR:-/tmp}/cwb-out-of-tree.XXXXXX")
trap 'rm -rf "$stage"' EXIT
case "$stage" in
  "$build"/*) fail "the stage $stage is inside the build tree $build" ;;
esac

echo "# staging the install into $stage/root"
"$meson" install -C "$build" --destdir "$stage/root" --no-rebuild --quiet \
  || fail "meson install --destdir failed"

pc=$(find "$stage/root" -name contact-workbench-plugin.pc)
[ -n "$pc" ] && [ "$(printf '%s\n' "$pc" | wc -l)" -eq 1 ] \
  || fail "expected one staged contact-workbench-plugin.pc, found: '$pc'"
pcdir=$(dirname "$pc")

# Point the staged .pc file at the stage, as if installed there. Not pkg-config's
# --define-prefix or --define-variable=prefix=: both apply to every package of the query, so
# glib-2.0 (a requirement) would be looked for inside the stage too, and --define-prefix also
# guesses the prefix wrongly under a multiarch libdir (lib/x86_64-linux-gnu/pkgconfig).
prefix=$(PKG_CONFIG_PATH=$pcdir pkg-config --variable=prefix contact-workbench-plugin)
staged_prefix=$stage/root$prefix
sed "s|^prefix=.*|prefix=$staged_prefix|" "$pc" > "$pc.new" && mv "$pc.new" "$pc"
PKG_CONFIG_PATH=$pcdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
export PKG_CONFIG_PATH

cflags=$(pkg-config --cflags --libs contact-workbench-plugin) \
  || fail "pkg-config does not know contact-workbench-plugin"
case "$cflags" in
  *"-I$staged_prefix/include"*) ;;
  *) fail "pkg-config flags do not point into the stage: $cflags" ;;
esac
[ -f "$staged_prefix/include/cwb/cwb.h" ] || fail "cwb/cwb.h was not installed"
plugindir=$(pkg-config --variable=plugindir contact-workbench-plugin)
[ -d "$plugindir" ] || fail "the staged plugin folder $plugindir does not exist"

# The plugin source is the guide's worked example, word for word (after its file comment).
awk '/^## Worked example/ { f = 1 } f && /^```c$/ { p = 1; next } p && /^```$/ { exit } p' \
  "$src/docs/plugin-guide.md" > "$stage/guide-example.c"
sed '1,/^$/d' "$here/ground.c" | diff -u "$stage/guide-example.c" - \
  || fail "tests/out-of-tree/ground.c differs from docs/plugin-guide.md's worked example"

# Built away from the source tree, so that no project header can be picked up by accident.
mkdir "$stage/ground"
cp "$here/ground.c" "$stage/ground/ground.c"
echo "# $cc -shared -fPIC -fvisibility=hidden -Wall -Werror -o ground.so ground.c $cflags"
# shellcheck disable=SC2086 # the compiler command and the flags are word lists
( cd "$stage/ground" && $cc -shared -fPIC -fvisibility=hidden -Wall -Werror \
    -o ground.so ground.c $cflags ) || fail "the out-of-tree plugin does not build"
exported=$(nm -D --defined-only "$stage/ground/ground.so" | awk '{ print $3 }')
[ "$exported" = cwb_plugin_entry ] \
  || fail "ground.so must export cwb_plugin_entry only, exports: $exported"

bin=$staged_prefix/bin/contact-workbench
[ -x "$bin" ] || fail "the staged program $bin is missing"

echo "# $bin --plugin-path $plugindir --plugin-path $stage/ground --list-plugins"
list=$("$bin" --plugin-path "$plugindir" --plugin-path "$stage/ground" --list-plugins) \
  || fail "--list-plugins failed"
printf '%s\n' "$list"
# The plugin carries the ABI of the staged headers, whatever its minor version is.
printf '%s\n' "$list" | grep -Eq '^ground +contact-model +version 1\.0 +ABI 1\.[0-9]+$' \
  || fail "ground is not listed as a loaded contact model"
printf '%s\n' "$list" | grep -Fqx "  file: $stage/ground/ground.so" \
  || fail "ground is not listed from $stage/ground/ground.so"
printf '%s\n' "$list" | grep -Fqx "refused: 0" || fail "a plugin was refused"
# The installed program does not look into the build tree.
case "$list" in
  *"$build/plugins"*) fail "the installed program searched the build tree's plugins" ;;
esac

echo "# a headless run with --set contact.model=ground"
"$bin" --headless "$src/scenes/tennis-racket.yaml" --plugin-path "$plugindir" \
  --plugin-path "$stage/ground" --set contact.model=ground --set 'world.gravity=[0,0,-9.81]' \
  --steps 200 --report "$stage/run.json" || fail "the headless run failed (exit $?)"

# The bodies start 0.5 m up and fall for 1 s: without the ground they would end 4 m below it.
python3 - "$stage/run.json" <<'EOF' || fail "the report does not show the ground working"
import json, sys
report = json.load(open(sys.argv[1]))
assert report["contact_model"] == "ground", report["contact_model"]
assert report["steps"] == 200, report["steps"]
contacts = max(step["contacts"] or 0 for step in report["per_step"])
assert contacts > 0, "no contact in any step"
for body in report["bodies"]:
    z = body["centroid"][2]
    print(f"# {body['name']}: centroid z = {z:.4f} m")
    assert -0.01 < z < 0.5, f"{body['name']} is at z = {z}"
EOF
echo "# ok"
