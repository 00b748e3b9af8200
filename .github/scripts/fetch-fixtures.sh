#!/usr/bin/env bash
# Downloads the test fixtures (the files test/helpers/fixtures.ts reads) into $1 and checks each
# against the SHA-256 its source note gives; a file that does not match fails the job.
set -euo pipefail
dir=${1:?usage: fetch-fixtures.sh DIR}
mkdir -p "$dir"
fetch() { # name url sha256
  local out="$dir/$1"
  [ -f "$out" ] || curl -fsSL --retry 3 -o "$out" "$2"
  echo "$3  $out" | sha256sum -c - >/dev/null || { echo "$1: checksum mismatch (from $2)"; exit 1; }
}
fetch stories260K.gguf \
  https://huggingface.co/ggml-org/models/resolve/main/tinyllamas/stories260K.gguf \
  270cba1bd5109f42d03350f60406024560464db173c0e387d91f0426d3bd256d
fetch chat_elements_limericks.jsonl \
  https://raw.githubusercontent.com/microsoft/generative-ai-for-beginners/3873b2c9171afd1a8329a6849faf13b04e0a6809/18-fine-tuning/python/openai/training-data.jsonl \
  5ec088effa7995abc22ec4bef18decbdfd80b2d4dbcafe9b972ba7a698eedc85
fetch tinyshakespeare.txt \
  https://raw.githubusercontent.com/karpathy/char-rnn/6f9487a6fe5b420b7ca9afb0d7c078e37c1d1b4e/data/tinyshakespeare/input.txt \
  86c4e6aa9db7c042ec79f339dcb96d42b0075e16b8fc2e86bf0ca57e2dc565ed
echo "fixtures in $dir"
