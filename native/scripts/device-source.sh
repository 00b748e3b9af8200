# Sourced by the device-*.sh scripts: the pinned llama.cpp source (the node-llama-cpp bundle)
# cloned and patched with native/patches in order, once per patch series (a stamp of their hash).
# A new series is patched in a fresh clone and only the files whose content changed are copied
# over the old tree, so that a warm machine's build recompiles what the patches changed and no
# more (a whole ggml-cuda build takes minutes).
#   prepare_source SRC PATCH_DIR BUNDLE   returns non-zero (having said why) when a step fails
prepare_source() {
  local src=$1 patches=$2 bundle=$3 stamp p f fresh=$1.fresh
  stamp=$(cat "$patches"/*.patch | sha256sum | cut -c1-12)
  [ "$(cat "$src/.hone-stamp" 2>/dev/null)" = "$stamp" ] && return 0
  rm -rf "$fresh" && mkdir -p "$(dirname "$src")" && git clone -q "$bundle" "$fresh" || { echo "cloning $bundle failed"; return 1; }
  for p in "$patches"/*.patch; do git -C "$fresh" apply "$p" || { echo "patch $p failed"; return 1; }; done
  if [ -f "$src/.hone-stamp" ]; then
    (cd "$fresh" && git ls-files -co --exclude-standard -z) | while IFS= read -r -d '' f; do
      cmp -s "$fresh/$f" "$src/$f" || { mkdir -p "$(dirname "$src/$f")" && cp "$fresh/$f" "$src/$f"; }
    done
    rm -rf "$fresh"
  else
    rm -rf "$src" && mv "$fresh" "$src"
  fi
  echo "$stamp" > "$src/.hone-stamp"
}
