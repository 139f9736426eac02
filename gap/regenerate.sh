#!/usr/bin/env bash
# Regenerate tests/data/gap_reference.json from gap/reference.g.
# Requires GAP >= 4.11 on PATH (Debian/Ubuntu: apt-get install gap).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:-$ROOT/tests/data/gap_reference.json}"
mkdir -p "$(dirname "$OUT")"
TMP="$(mktemp "${OUT}.XXXXXX")"
trap 'rm -f "$TMP"' EXIT
gap -q -c "OUTFILE := \"$TMP\";" "$ROOT/gap/reference.g" </dev/null
# Validate the JSON before replacing the old file.
python3 -m json.tool "$TMP" >/dev/null
chmod 644 "$TMP"
mv "$TMP" "$OUT"
trap - EXIT
echo "wrote $OUT ($(wc -c <"$OUT") bytes)"
