#!/usr/bin/python3
"""Makes the small, deliberately broken ONNX models that tests/e2e use to check aotc's
error messages. Run with Debian's python3-onnx: /usr/bin/python3 make_bad_models.py"""
import onnx
from onnx import TensorProto, helper

x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])

# An operator aotc does not implement (a made-up one, so the test never goes stale).
unsupported = helper.make_graph([helper.make_node("Relu", ["x"], ["r"], name="relu_ok"),
                                 helper.make_node("FrobnicateTensor", ["r"], ["y"], name="frob")],
                                "unsupported_op", [x], [y])
onnx.save(helper.make_model(unsupported, opset_imports=[helper.make_opsetid("", 13)]), "unsupported_op.onnx")

# An Add whose second operand names an initializer that is not in the file.
missing = helper.make_graph([helper.make_node("Add", ["x", "bias"], ["y"], name="add_bias")],
                            "missing_initializer", [x], [y])
onnx.save(helper.make_model(missing, opset_imports=[helper.make_opsetid("", 13)]), "missing_initializer.onnx")

# A dynamic batch dimension.
xd = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])
yd = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])
dynamic = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")], "dynamic", [xd], [yd])
onnx.save(helper.make_model(dynamic, opset_imports=[helper.make_opsetid("", 13)]), "dynamic_shape.onnx")

# Names of any bytes: invalid UTF-8, a newline, a terminal escape, "*/" (which would end a C
# comment), XML's special characters. ONNX names are protobuf strings, which the C++ and
# Python libraries read without checking, so such files exist. Written as a valid model with
# same-length placeholders, then the bytes swapped in.
weird = b"n\xff\xfe*/\n\x1b[31m??/<&>\xe2\x82"
weird_too = b"t\x1b]0;title\x07*/\xc0\xaf<>"
placeholders = {b"P" * len(weird): weird, b"Q" * len(weird_too): weird_too}
p_name, q_name = (p.decode() for p in placeholders)
xw = helper.make_tensor_value_info(p_name, TensorProto.FLOAT, [2, 3])
yw = helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 2])
# Relu -> Transpose keeps the Relu's output (named weird_too) as a planned tensor (a
# transpose of [1, 4] would only be a view of it).
names = helper.make_graph([helper.make_node("Relu", [p_name], [q_name], name=p_name),
                           helper.make_node("Transpose", [q_name], ["y"], name="transpose", perm=[1, 0])],
                          "names", [xw], [yw])
data = helper.make_model(names, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()
for placeholder, name in placeholders.items():
    data = data.replace(placeholder, name)
with open("untrusted_names.onnx", "wb") as f:
    f.write(data)
