"""Turns the int8 export of all-MiniLM-L6-v2 into a model for onnxruntime's integer kernels.

The export stores each weight as int8 with a Cast and a Mul, so onnxruntime folds them back
into float32 when it loads the model (+175 MiB for the session, float matrix products). This
writes that float32 graph out (basic optimisations only: constant folding, no fusion tied to
one machine) and quantises it dynamically, per channel, to int8 weights that stay int8
(MatMulInteger; activations quantised per call): +62 MiB and about twice as fast on 2 cores
(docs/benchmarks.md "An int8 model for onnxruntime's integer kernels").

Deterministic for the pinned packages of scripts/models/fetch-minilm.sh, which checks the
output's sha256. Usage: python quantize-minilm.py <int8 export> <output>
"""

import logging
import os
import sys
import tempfile

import onnxruntime as ort
from onnxruntime.quantization import QuantType, quantize_dynamic


def main(source: str, output: str) -> None:
    # The quantiser advises a pre-processing pass on the root logger; the output is pinned as is.
    logging.getLogger().setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory() as tmp:
        folded = os.path.join(tmp, 'float32.onnx')
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
        options.optimized_model_filepath = folded
        options.intra_op_num_threads = 1
        ort.InferenceSession(source, options, providers=['CPUExecutionProvider'])
        quantize_dynamic(folded, output, weight_type=QuantType.QInt8, per_channel=True)


if __name__ == '__main__':
    main(*sys.argv[1:3])
