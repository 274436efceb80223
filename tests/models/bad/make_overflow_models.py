#!/usr/bin/python3
"""Makes the models of the malformed-model suite (tests/e2e/test_malformed.cc) whose values
overflow aotc's integer arithmetic: an audit after fuzz_compile's overflow findings replayed
each through the sanitized harness, where each was undefined behaviour (UBSan) or a
division by zero (SIGFPE in aotc itself).
- malformed_*: refused with `error: ...` naming the node or tensor, exit 1;
- edge_*: legal, and compiled (exit 0) with defined, wrapping arithmetic.
All are seeds of fuzz_compile_bounded, which replays them under ASan and UBSan.
Run in this folder with Debian's python3-onnx, python3-flatbuffers and numpy:
/usr/bin/python3 make_overflow_models.py"""
import onnx
from onnx import helper, numpy_helper, TensorProto
import numpy as np

from tflite_writer import M, F32, I32, I64, I8

I64MAX = np.iinfo(np.int64).max
I64MIN = np.iinfo(np.int64).min


def io(name, shape, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


def c(name, vals, dt=np.int64):
    return numpy_helper.from_array(np.array(vals, dtype=dt), name)


def save(name, nodes, inputs, outputs, inits=(), opset=13):
    g = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)]), name + ".onnx")


def empty_init(name, dims):  # a float constant without elements whose other dimensions are huge
    t = c(name, np.zeros([0], np.float32), np.float32)
    del t.dims[:]
    t.dims.extend(dims)
    return t


# ---------------------------------------------------------------- ONNX, refused
save("malformed_split_sum", [helper.make_node("Split", ["x", "s"], ["a", "b"], name="split", axis=0)],
     [io("x", [4, 2])], [io("a", None), io("b", None)], [c("s", [I64MAX, I64MAX])])
save("malformed_split_no_outputs", [helper.make_node("Split", ["x"], [], name="sp", axis=0),
                                    helper.make_node("Relu", ["x"], ["y"], name="r")],
     [io("x", [4, 2])], [io("y", None)])
save("malformed_depth_to_space_block", [helper.make_node("DepthToSpace", ["x"], ["y"], name="d2s", blocksize=1 << 32)],
     [io("x", [1, 4, 2, 2])], [io("y", None)])
save("malformed_concat_empty_huge", [helper.make_node("Concat", ["a", "b"], ["y"], name="cat", axis=1)],
     [], [io("y", None)], [empty_init("a", [0, 1 << 62]), empty_init("b", [0, 1 << 62])])
save("malformed_slice_empty_huge", [helper.make_node("Slice", ["a", "st", "en", "ax"], ["y"], name="sl")], [], [io("y", None)],
     [empty_init("a", [0, I64MAX]), c("st", [0]), c("en", [5]), c("ax", [1])])
save("malformed_maxunpool_stride", [helper.make_node("MaxUnpool", ["x", "i"], ["y"], name="unpool", kernel_shape=[2],
                                                     strides=[1 << 62])],
     [io("x", [1, 1, 4])], [io("y", None)], [c("i", np.zeros([1, 1, 4], np.int64))], opset=11)
save("malformed_maxunpool_pads", [helper.make_node("MaxUnpool", ["x", "i"], ["y"], name="unpool", kernel_shape=[2],
                                                   pads=[I64MIN, 5])],
     [io("x", [1, 1, 4])], [io("y", None)], [c("i", np.zeros([1, 1, 4], np.int64))], opset=11)
save("malformed_lstm_hidden_size", [helper.make_node("LSTM", ["x", "w", "r"], ["y"], name="lstm", hidden_size=1 << 62)],
     [io("x", [1, 1, 2])], [io("y", None)],
     [c("w", np.ones([1, 8, 2], np.float32), np.float32), c("r", np.ones([1, 8, 2], np.float32), np.float32)])
n = helper.make_node("Flatten", ["x"], ["y"], name="fl")
n.attribute.append(helper.make_attribute("axis", 1e30))  # a float where an integer belongs
save("malformed_float_axis", [n], [io("x", [2, 3])], [io("y", None)])
save("malformed_resize_roi", [helper.make_node("Resize", ["x", "roi", "", "sz"], ["y"], name="rs", mode="linear",
                                               coordinate_transformation_mode="tf_crop_and_resize")],
     [io("x", [1, 1, 4, 4])], [io("y", None)],
     [c("roi", [0, 0, 0, 0, 1, 1, 3e38, 3e38], np.float32), c("sz", [1, 1, 3, 3])])
save("malformed_pad_fill_value", [helper.make_node("Pad", ["x"], ["y"], name="pad", pads=[1, 1], value=1e30)],
     [io("x", [4], TensorProto.INT32)], [io("y", None)], opset=2)
save("malformed_roi_align_sampling", [helper.make_node("RoiAlign", ["x", "rois", "bi"], ["y"], name="roi",
                                                       sampling_ratio=I64MAX, output_height=1, output_width=1)],
     [io("x", [1, 1, 4, 4])], [io("y", None)],
     [c("rois", [[0, 0, 2, 2]], np.float32), c("bi", [0])], opset=16)

# ---------------------------------------------------------------- ONNX, legal
save("edge_add_int64_min", [helper.make_node("Add", ["x", "c1"], ["y"], name="a1")],
     [io("x", [4], TensorProto.INT64)], [io("y", None)], [c("c1", I64MIN)])
save("edge_sub_int64_min", [helper.make_node("Sub", ["x", "c1"], ["y"], name="a1")],
     [io("x", [4], TensorProto.INT64)], [io("y", None)], [c("c1", I64MIN)])
save("edge_sub_chain_wraps", [helper.make_node("Sub", ["x", "c1"], ["t"], name="a1"),
                              helper.make_node("Sub", ["t", "c2"], ["y"], name="a2")],
     [io("x", [4], TensorProto.INT64)], [io("y", None)], [c("c1", I64MIN), c("c2", I64MAX)])
save("edge_range_wraps", [helper.make_node("Range", ["s", "l", "d"], ["y"], name="rg")], [], [io("y", None)],
     [c("s", I64MIN), c("l", I64MAX), c("d", I64MAX)])
n = helper.make_node("LpPool", ["x"], ["y"], name="lp", kernel_shape=[2])
n.attribute.append(helper.make_attribute("p", 1e30))
save("edge_lppool_huge_p", [n], [io("x", [1, 1, 4])], [io("y", None)], opset=1)
save("edge_lrn_huge_size", [helper.make_node("LRN", ["x"], ["y"], name="lrn", size=I64MAX)],
     [io("x", [1, 3, 2, 2])], [io("y", None)])

# ---------------------------------------------------------------- TFLite, refused
SPLIT_V, SLICE, STRIDED_SLICE, TRANSPOSE_CONV, RELU, QUANTIZE, MEAN, LOGISTIC = 102, 65, 45, 67, 19, 114, 40, 14

m = M()
x = m.t("x", F32, [4, 2], inp=True)
s = m.const("s", np.array([I64MAX, I64MAX, -1], np.int64), I64)
a = m.const("a", np.array(0, np.int32), I32)
m.op(SPLIT_V, [x, s, a], [m.t("o%d" % i, F32, [1, 2], out=True) for i in range(3)], 79, [(0, 'i', 3)])
m.build("malformed_split_v_sizes.tflite")

m = M()
x = m.t("x", F32, [4, 2], inp=True)
begin = m.const("b", np.array([I64MAX, 0], np.int64), I64)
size = m.const("s", np.array([I64MAX, 1], np.int64), I64)
m.op(SLICE, [x, begin, size], [m.t("y", F32, [1, 1], out=True)])
m.build("malformed_slice_begin_size.tflite")

m = M()
x = m.t("x", F32, [1] * 70, inp=True)
begin = m.const("b", np.array([0], np.int32), I32)
end = m.const("e", np.array([1], np.int32), I32)
strides = m.const("st", np.array([1], np.int32), I32)
m.op(STRIDED_SLICE, [x, begin, end, strides], [m.t("y", F32, [1] * 70, out=True)])
m.build("malformed_strided_slice_rank.tflite")

m = M()
shape = m.const("osh", np.array([1, I64MAX, 4, 1], np.int64), I64)
w = m.const("w", np.ones([1, 3, 3, 1], np.float32), F32)
x = m.t("x", F32, [1, 4, 4, 1], inp=True)
m.op(TRANSPOSE_CONV, [shape, w, x], [m.t("y", F32, [1, 4, 4, 1], out=True)], 49, [(0, 'b', 0), (1, 'i', 2), (2, 'i', 2)])
m.build("malformed_transpose_conv_shape.tflite")

for name, op, out_scale, in_scale in [("relu_scale_0", RELU, 0.0, 0.5), ("quantize_scale_0", QUANTIZE, 0.0, 0.5),
                                      ("relu_scale_ratio", RELU, 1e-38, 3e38)]:
    m = M()
    x = m.t("x", I8, [1, 4], scale=[in_scale], zp=[0], inp=True)
    m.op(op, [x], [m.t("y", I8, [1, 4], scale=[out_scale], zp=[0], out=True)])
    m.build("malformed_" + name + ".tflite")

m = M()
x = m.t("x", I8, [1, 4], scale=[0.5], zp=[0], inp=True)
axis = m.const("ax", np.array([1], np.int32), I32)
m.op(MEAN, [x, axis], [m.t("y", I8, [1], scale=[0.0], zp=[0], out=True)])
m.build("malformed_mean_scale_0.tflite")

# ---------------------------------------------------------------- TFLite, legal
m = M()
x = m.t("x", F32, [4, 2], inp=True)
begin = m.const("b", np.array([1, 0], np.int64), I64)
end = m.const("e", np.array([I64MAX, 2], np.int64), I64)
strides = m.const("st", np.array([1, 1], np.int64), I64)
m.op(STRIDED_SLICE, [x, begin, end, strides], [m.t("y", F32, [3, 2], out=True)], 32, [(5, 'b', 1)])  # offset
m.build("edge_strided_slice_offset_end.tflite")

m = M()
x = m.t("x", F32, [1, 4, 2], inp=True)
begin = m.const("b", np.array([0, 0], np.int32), I32)
end = m.const("e", np.array([4, 2], np.int32), I32)
strides = m.const("st", np.array([1, 1], np.int32), I32)
m.op(STRIDED_SLICE, [x, begin, end, strides], [m.t("y", F32, [1, 4, 2], out=True)], 32, [(0, 'i', -1), (1, 'i', -1)])
m.build("edge_strided_slice_negative_masks.tflite")

m = M()
x = m.t("x", I8, [1, 4], scale=[1e-9], zp=[0], inp=True)
m.op(LOGISTIC, [x], [m.t("y", I8, [1, 4], scale=[1 / 256], zp=[-128], out=True)])
m.build("edge_logistic_tiny_scale.tflite")
