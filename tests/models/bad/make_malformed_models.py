#!/usr/bin/python3
"""Makes the malformed ONNX models of the malformed-model suite (tests/e2e/test_malformed.cc):
each is a small model broken in one way a damaged or hostile file can be, and aotc must
answer each with `error: ...` naming the node or tensor, exit status 1, and no output.
Run with Debian's python3-onnx: /usr/bin/python3 make_malformed_models.py
(onnx.checker is not run: these models are invalid on purpose)."""
import onnx
from onnx import TensorProto, helper, numpy_helper
import numpy as np

OPSET = [helper.make_opsetid("", 13)]


def save(graph, name, opset=OPSET):
    onnx.save(helper.make_model(graph, opset_imports=opset), "malformed_" + name + ".onnx")


def io(name, shape, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


# Dimensions whose product overflows int64 (2^40 * 2^40).
save(helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")], "overflow",
                       [io("x", [1 << 40, 1 << 40])], [io("y", [1 << 40, 1 << 40])]), "dims_overflow")

# A negative dimension.
save(helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")], "negative",
                       [io("x", [1, -3])], [io("y", [1, 3])]), "negative_dim")

# An initializer with a negative dimension.
w = helper.make_tensor("w", TensorProto.FLOAT, [4], [1.0, 2.0, 3.0, 4.0])
w.dims[0] = -4
save(helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"], name="add")], "negative_init",
                       [io("x", [1, 4])], [io("y", [1, 4])], [w]), "negative_initializer_dim")

# A cycle: a reads b, b reads a.
save(helper.make_graph([helper.make_node("Add", ["x", "b"], ["a"], name="first"),
                        helper.make_node("Relu", ["a"], ["b"], name="second"),
                        helper.make_node("Relu", ["a"], ["y"], name="out")], "cycle",
                       [io("x", [1, 4])], [io("y", [1, 4])]), "cycle")

# A node that reads a tensor nothing defines.
save(helper.make_graph([helper.make_node("Mul", ["x", "nowhere"], ["y"], name="mul")], "dangling",
                       [io("x", [1, 4])], [io("y", [1, 4])]), "dangling_input")

# A graph output nothing produces.
save(helper.make_graph([helper.make_node("Relu", ["x"], ["r"], name="relu")], "dangling_out",
                       [io("x", [1, 4])], [io("y", [1, 4])]), "dangling_output")

# Two nodes that write the same tensor.
save(helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="one"),
                        helper.make_node("Neg", ["x"], ["y"], name="two")], "twice",
                       [io("x", [1, 4])], [io("y", [1, 4])]), "tensor_written_twice")

# An initializer whose raw bytes are fewer than its shape needs (3 floats for [1, 4]).
short = numpy_helper.from_array(np.ones([1, 4], np.float32), "w")
short.raw_data = short.raw_data[:12]
save(helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"], name="add")], "short",
                       [io("x", [1, 4])], [io("y", [1, 4])], [short]), "short_initializer")

# An initializer with more typed values than its shape holds.
long_init = helper.make_tensor("w", TensorProto.FLOAT, [1, 4], [1.0] * 4)
long_init.float_data.extend([1.0] * 5)
save(helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"], name="add")], "long",
                       [io("x", [1, 4])], [io("y", [1, 4])], [long_init]), "long_initializer")

# Huge attribute values: a convolution kernel and a stride of 2^62, pads of 2^62.
wc = numpy_helper.from_array(np.ones([1, 1, 3, 3], np.float32), "w")
save(helper.make_graph([helper.make_node("Conv", ["x", "w"], ["y"], name="conv", strides=[1 << 62, 1 << 62])],
                       "huge_stride", [io("x", [1, 1, 8, 8])], [io("y", [1, 1, 1, 1])], [wc]), "huge_stride")
save(helper.make_graph([helper.make_node("Conv", ["x", "w"], ["y"], name="conv", pads=[1 << 62] * 4)],
                       "huge_pads", [io("x", [1, 1, 8, 8])], [io("y", [1, 1, 1, 1])], [wc]), "huge_pads")
save(helper.make_graph([helper.make_node("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[1 << 62, 1 << 62])],
                       "huge_kernel", [io("x", [1, 1, 8, 8])], [io("y", [1, 1, 1, 1])]), "huge_kernel")
save(helper.make_graph([helper.make_node("Concat", ["x", "x"], ["y"], name="concat", axis=1 << 40)],
                       "huge_axis", [io("x", [1, 4])], [io("y", [2, 4])]), "huge_axis")

# A Reshape to a shape whose element count overflows.
big = numpy_helper.from_array(np.array([1 << 62, 1 << 62], np.int64), "shape")
save(helper.make_graph([helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape")], "huge_reshape",
                       [io("x", [1, 4])], [io("y", [1, 4])], [big]), "huge_reshape")

# A Tile whose repeats make a tensor of 2^80 elements.
reps = numpy_helper.from_array(np.array([1 << 40, 1 << 40], np.int64), "reps")
save(helper.make_graph([helper.make_node("Tile", ["x", "reps"], ["y"], name="tile")], "huge_tile",
                       [io("x", [1, 4])], [io("y", [1, 4])], [reps]), "huge_tile")

# A Tile whose repeats overflow a 64-bit count on their own: 4 * 2^62.
reps = numpy_helper.from_array(np.array([1, 1 << 62], np.int64), "reps")
save(helper.make_graph([helper.make_node("Tile", ["x", "reps"], ["y"], name="tile")], "tile_overflow",
                       [io("x", [1, 4])], [io("y", [1, 4])], [reps]), "tile_repeats_overflow")

# A Pad (opset 13) whose constant pads overflow the output extent: 4 + 2^62 + 2^62
# (fuzz_compile found it in a damaged ONNX export).
pads = numpy_helper.from_array(np.array([0, 1 << 62, 0, 1 << 62], np.int64), "pads")
save(helper.make_graph([helper.make_node("Pad", ["x", "pads"], ["y"], name="pad")], "pad_overflow",
                       [io("x", [1, 4])], [io("y", [1, 4])], [pads]), "pads_overflow")

# An initializer that is also a graph input (allowed before IR version 4 as a default value:
# aotc takes the initializer as a constant, and the input leaves the C interface).
init_in = numpy_helper.from_array(np.full([1, 4], 2.0, np.float32), "w")
save(helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"], name="add")], "init_input",
                       [io("x", [1, 4]), io("w", [1, 4])], [io("y", [1, 4])], [init_in]), "initializer_is_input")

# A graph output listed twice (the ONNX checker and ONNX Runtime accept it; the generated C
# declared two struct members of one name and did not build: found by hand while narrowing
# down the differential test's output-aliasing findings).
save(helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")], "output_twice",
                       [io("x", [1, 4])], [io("y", [1, 4]), io("y", [1, 4])]), "output_listed_twice")

# An operator from a domain aotc does not know.
save(helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu", domain="com.example")], "domain",
                       [io("x", [1, 4])], [io("y", [1, 4])]), "unknown_domain",
     opset=OPSET + [helper.make_opsetid("com.example", 1)])

# A tensor type that is a sequence, not a tensor.
seq = helper.make_tensor_sequence_value_info("x", TensorProto.FLOAT, [1, 4])
save(helper.make_graph([helper.make_node("Identity", ["x"], ["y"], name="id")], "seq",
                       [seq], [io("y", [1, 4])]), "sequence_input")

# An opset from the future.
save(helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")], "future",
                       [io("x", [1, 4])], [io("y", [1, 4])]), "future_opset", opset=[helper.make_opsetid("", 99)])

# An axis of a scalar. A scalar has none, yet aotc took axis 0 (or -1) of rank 0 as valid
# and read its extent past the end of the empty shape (fuzz_compile found it in a Scan over
# a scalar scan input; these three did the same).
zero_axis = numpy_helper.from_array(np.array([0], np.int64), "axes")
save(helper.make_graph([helper.make_node("Squeeze", ["x", "axes"], ["y"], name="squeeze")], "squeeze_scalar",
                       [io("x", [])], [io("y", [])], [zero_axis]), "squeeze_scalar")
pads = numpy_helper.from_array(np.array([0, 0], np.int64), "pads")
save(helper.make_graph([helper.make_node("Pad", ["x", "pads", "", "axes"], ["y"], name="pad")], "pad_scalar",
                       [io("x", [])], [io("y", [])], [pads, zero_axis]), "pad_scalar",
     opset=[helper.make_opsetid("", 18)])
scales = numpy_helper.from_array(np.array([0.5, 0.25], np.float32), "scale")
zeros = numpy_helper.from_array(np.array([0, 0], np.int8), "zero")
save(helper.make_graph([helper.make_node("QuantizeLinear", ["x", "scale", "zero"], ["y"], name="quantize", axis=0)],
                       "quantize_scalar", [io("x", [])], [io("y", [], TensorProto.INT8)], [scales, zeros]),
     "quantize_scalar_per_axis")

# A kernel with an output without elements: weights [2, 0] make MatMul's output [1, 0], and
# the generated C declared arrays of size 0 (C99 has none; -Werror refused it). It must be
# aotc's error naming the node.
empty_weights = numpy_helper.from_array(np.zeros((2, 0), np.float32), "w")
save(helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"], name="matmul")], "matmul_empty",
                       [io("x", [1, 2])], [io("y", [1, 0])], [empty_weights]), "matmul_empty_weights")
