#!/usr/bin/python3
"""Cuts a .tflite model to localize a difference between aotc and TFLM (README.md).

  cut_model.py <out-dir> model.tflite --list
  cut_model.py <out-dir> model.tflite --upto K cut.tflite    # output = operator K's output
  cut_model.py <out-dir> model.tflite --only K cut.tflite    # operator K alone

<out-dir> is scripts/build_tflm_oracle.sh's, whose pyschema/ holds the Python object API that
flatc generated from the snapshot's schema. Subgraph 0 only; --upto keeps every operator
(TFLM runs them all, aotc drops the dead ones); --only makes K's non-constant inputs the
model's inputs. Run both runtimes on the cut model (sweep.py --filter, or by hand) and bisect
over K with --upto, then --only on the first operator whose output differs.
"""
import sys

if len(sys.argv) < 4:
    sys.exit(__doc__)
sys.path.insert(0, sys.argv[1] + "/pyschema")
import flatbuffers  # noqa: E402
from tflite.Model import Model, ModelT  # noqa: E402

model = ModelT.InitFromObj(Model.GetRootAsModel(open(sys.argv[2], "rb").read(), 0))
graph = model.subgraphs[0]
if sys.argv[3] == "--list":
    for k, op in enumerate(graph.operators):
        code = model.operatorCodes[op.opcodeIndex]
        out = graph.tensors[op.outputs[0]]
        print(k, max(code.builtinCode, code.deprecatedBuiltinCode), out.name.decode(), list(out.shape))
    sys.exit(0)
mode, k, path = sys.argv[3], int(sys.argv[4]), sys.argv[5]
op = graph.operators[k]
graph.outputs = list(op.outputs)
if mode == "--only":
    def constant(t):
        data = model.buffers[graph.tensors[t].buffer].data
        return data is not None and len(data) > 0
    graph.operators = [op]
    graph.inputs = [t for t in op.inputs if t >= 0 and not constant(t)]
elif mode != "--upto":
    sys.exit(__doc__)
builder = flatbuffers.Builder(1024)
builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
open(path, "wb").write(builder.Output())
