#!/bin/sh
# ONNX Runtime's dumps, the references of tests/e2e/test_dump_tensors.cc: the three models
# of make_dump_tensors_models.py on input.npy, and ../qdq/conv_chain on its input_0.bin
# (as input_qdq_conv_chain.npy). Needs node and onnxruntime-node (1.30 made the committed
# ones):  ONNXRUNTIME_NODE=/path/to/node_modules/onnxruntime-node ./make_references.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dump="node $here/../../../scripts/ort_dump_tensors.js"
rm -rf "$here/ort" "$here/ort_relu_altered" "$here/ort_weight_altered" "$here/ort_qdq_conv_chain"
$dump "$here/model.onnx" "$here/ort" "$here/input.npy"
$dump "$here/model_relu_altered.onnx" "$here/ort_relu_altered" "$here/input.npy"
$dump "$here/model_weight_altered.onnx" "$here/ort_weight_altered" "$here/input.npy"
$dump "$here/../qdq/conv_chain/model.onnx" "$here/ort_qdq_conv_chain" "$here/input_qdq_conv_chain.npy"
