# Sourced by the device-*.sh scripts: the pinned llama.cpp source (the node-llama-cpp bundle)
# cloned and patched with native/patches in order, once per patch series (a stamp of their hash).
#   prepare_source SRC PATCH_DIR BUNDLE   returns non-zero (having said why) when a step fails
prepare_source() {
  local src=$1 patches=$2 bundle=$3 stamp p
  stamp=$(cat "$patches"/*.patch | sha256sum | cut -c1-12)
  [ "$(cat "$src/.hone-stamp" 2>/dev/null)" = "$stamp" ] && return 0
  rm -rf "$src" && mkdir -p "$(dirname "$src")" && git clone -q "$bundle" "$src" || { echo "cloning $bundle failed"; return 1; }
  for p in "$patches"/*.patch; do git -C "$src" apply "$p" || { echo "patch $p failed"; return 1; }; done
  echo "$stamp" > "$src/.hone-stamp"
}
