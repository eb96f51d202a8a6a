#!/usr/bin/env bash
# Fails when a source file under src/ is not named in docs/architecture.md (as `stem`, its file
# name without the extension), so the document keeps saying where every file lives.
set -euo pipefail
cd "$(dirname "$0")/.."
missing=0
for file in $(find src -name '*.cpp' -o -name '*.hpp' | sort); do
  stem=$(basename "${file%.*}")
  if ! grep -qF "\`$stem\`" docs/architecture.md; then
    echo "docs/architecture.md does not name $file (\`$stem\`)"
    missing=1
  fi
done
exit $missing
