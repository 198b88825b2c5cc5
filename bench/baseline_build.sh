# Sourced by the benchmarks that run this build against a baseline revision, after
# release_build.sh and with $base_rev and $base_name set: a worktree of $base_rev at
# $build/$base_name with its own release build, kept between runs and made again when the
# revision changes. Sets $base_tree and $base_bin (the baseline's contact-workbench).
base_tree="$build/$base_name"
if [ ! -d "$base_tree" ] \
   || [ "$(git -C "$base_tree" rev-parse HEAD)" != "$(git -C "$top" rev-parse "$base_rev")" ]; then
  rm -rf "$base_tree"
  git -C "$top" worktree prune
  git -C "$top" worktree add --detach "$base_tree" "$base_rev" >/dev/null
fi
"$base_tree/scripts/build.sh" "$base_tree/build" -Dbuildtype=release -Db_ndebug=true >/dev/null
base_bin="$base_tree/build/workbench/cli/contact-workbench"
