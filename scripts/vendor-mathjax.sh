#!/usr/bin/env bash
# Re-vendor MathJax 3 from npm into vendor/mathjax (served as assets/vendor/mathjax by
# docs_build/hooks.py): the site must not use a CDN.
# Only what a page needs: tex-chtml.js and the woff-v2 fonts (about 1.5 MB).
set -euo pipefail
version=${1:-3.2.2}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm install --silent --no-audit --no-fund "mathjax@$version" >/dev/null)
src="$tmp/node_modules/mathjax"
dst="$root/vendor/mathjax"
rm -rf "$dst"
mkdir -p "$dst/output/chtml/fonts"
cp "$src/es5/tex-chtml.js" "$src/LICENSE" "$dst/"
cp -r "$src/es5/output/chtml/fonts/woff-v2" "$dst/output/chtml/fonts/"
echo "mathjax@$version" > "$dst/VERSION"
echo "vendored mathjax@$version into ${dst#"$root"/} ($(du -sh "$dst" | cut -f1))"
