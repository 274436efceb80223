// Reads a TensorFlow Lite flatbuffer (.tflite) into aotc's operator Graph.
//
// TFLite files come from converters and from strangers, so the importer treats the
// file as untrusted: it runs the flatbuffers verifier over the whole file first,
// then checks every index, size and enum value it uses before using it. Anything
// aotc cannot compile faithfully (dynamic shapes not given by --input-shape, sparse
// tensors, hybrid float/int8 models, custom operators, CALL) is rejected with a
// CompileError that names the offending tensor or operator; nothing is silently
// approximated. All messages start with "<path>: ".
//
// What the Graph looks like:
//   - source_format = "tflite"; tensors are subgraph 0's tensors, same order and
//     index (TensorId i = TFLite tensor i); inputs/outputs are subgraph 0's. The
//     subgraphs that IF, WHILE and CALL_ONCE run, and resource variables, are placed
//     after them as tflite_subgraphs.h describes (If and Loop nodes, variable tensors).
//   - Tensor: shape from `shape` (shape_known = true). `shape_signature` marks the
//     dimensions TFLite's interpreter may resize (-1); there `shape` holds only the
//     converter's placeholder. --input-shape NAME=D0,D1,... (ShapeBindings) gives a
//     graph input the shape TFLite's ResizeInputTensor would: it may change only the
//     dimensions marked -1. Without it an input's dimension 0 (the batch) keeps its
//     stored size, and any other -1 in an input is an error asking for --input-shape.
//     Every other tensor whose signature has a -1 beyond dimension 0, and with
//     --input-shape every tensor whose signature has a -1 at all, gets
//     shape_known = false: shape inference recomputes it from the inputs, as TFLite's
//     interpreter does. A tensor with no elements that no operator writes (converters
//     give it no buffer: RESHAPE's shape [] of a scalar) is a constant with empty
//     `data`. A tensor with a non-empty buffer is a constant whose `data` holds
//     exactly num_elements() * dtype.bytes() bytes. Unnamed tensors are called
//     "tensor_<index>".
//   - Quantization: scale / zero_point as stored, except that a single zero point
//     shared by several scales is repeated, so zero_point.size() ==
//     scale.size() always. axis = quantized_dimension when there is more than one
//     scale, else -1; a 1-D tensor with one scale per element has axis 0 whatever
//     quantized_dimension says (converters copy a filter's 3 into its bias, and TFLite
//     Micro never reads it). Scales are finite and >= 0 (pruned channels have scale 0).
//   - Variable tensors (SVDF and LSTM state): is_variable, no data, and initial_value
//     where TFLite Micro's ResetVariableTensors puts them (every byte 0, or for int8 the
//     zero point; the buffer, if any, is ignored as TFLite ignores it). They may not be
//     graph inputs or outputs: the compiled model keeps them between runs.
//   - Node: op = "tfl." + the TFLite builtin name ("tfl.CONV_2D"), name = the
//     name of its first output, inputs with TFLite's -1 mapped to kNoTensor.
//     Nodes are in the file's order, which is checked to be an execution order.
//
// Operators: those aotc has lowerings for (the table in aot/import/tflite_operators.cc);
// any other operator is an error that names it.
//
// Node attributes (snake_case; booleans are int64 0/1; set only for the operators
// whose TFLite options carry them, with the schema's default when the operator
// has no options table):
//   padding            string  "SAME" | "VALID"     CONV_2D, DEPTHWISE_CONV_2D, *_POOL_2D,
//                                                   TRANSPOSE_CONV
//   stride_h, stride_w int     >= 1                 same operators
//   dilation_h, dilation_w int >= 1                 CONV_2D, DEPTHWISE_CONV_2D
//   depth_multiplier   int     as stored (newer converters leave it stale;
//                              derive it from the shapes)  DEPTHWISE_CONV_2D
//   filter_h, filter_w int     >= 1                 AVERAGE_POOL_2D, MAX_POOL_2D
//   fused_activation   string  "NONE" | "RELU" | "RELU_N1_TO_1" | "RELU6" |
//                              "TANH" | "SIGN_BIT"  convolutions, pools,
//                              FULLY_CONNECTED, ADD, SUB, MUL
//                              (and CONCATENATION, L2_NORMALIZATION, SVDF,
//                              TRANSPOSE_CONV, UNIDIRECTIONAL_SEQUENCE_LSTM)
//   keep_num_dims      bool                         FULLY_CONNECTED
//   pot_scale_int16    bool                         ADD, SUB
//   beta               double                       SOFTMAX
//   new_shape          ints    only when present    RESHAPE
//   axis               int                          CONCATENATION, PACK, UNPACK, GATHER
//   begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask  int
//                                                   STRIDED_SLICE
//   offset             bool                         STRIDED_SLICE
//   num_splits         int     >= 1                 SPLIT, SPLIT_V
//   values_count       int     >= 1                 PACK
//   num                int     >= 1                 UNPACK
//   squeeze_dims       ints                         SQUEEZE
//   keep_dims          bool                         MEAN, SUM, REDUCE_MAX
//   alpha              double                       LEAKY_RELU
//   align_corners, half_pixel_centers  bool         RESIZE_BILINEAR, RESIZE_NEAREST_NEIGHBOR
//   block_size         int     >= 1                 DEPTH_TO_SPACE, SPACE_TO_DEPTH
//   batch_dims         int                          GATHER
//   output_type        string  "INT32" | "INT64"    ARG_MAX, ARG_MIN
//   out_type           string  a tensor type, only when present  SHAPE
//   adj_x, adj_y       bool                         BATCH_MATMUL
//   rank               int     >= 1                 SVDF
//   cell_clip, proj_clip  double >= 0 (0: none)     UNIDIRECTIONAL_SEQUENCE_LSTM
//   time_major         bool                         UNIDIRECTIONAL_SEQUENCE_LSTM
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "aot/graph/graph.h"
#include "aot/import/shape_bindings.h"

namespace aotc {

// Imports subgraph 0 of the .tflite file at `path`, with the subgraphs it runs, its
// inputs resized as `bindings.input_shapes` says (`bindings.dims` must be empty: TFLite
// dimensions have no names). Throws CompileError.
Graph import_tflite(const std::string& path, const ShapeBindings& bindings = {});

// The same for a file already in memory (tests, fuzzing). `source_name` stands
// for the path in error messages. Buffers with an external `offset` are looked
// up in `bytes`, which must therefore be the whole file.
Graph import_tflite_bytes(const uint8_t* bytes, size_t size, const std::string& source_name,
                          const ShapeBindings& bindings = {});

}  // namespace aotc
