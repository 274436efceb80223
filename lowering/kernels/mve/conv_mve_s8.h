// int8 CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED for cores with Helium (the target's
// `mve` feature: Cortex-M55), on the runtime's vector kernels (runtime-c/aotc_mve.h).
//
// The runtime computes a whole output pixel (convolution, fully connected row) or output
// row (depthwise) per call, requantization included, four channels per vector; this
// lowering prepares everything it can at compile time and leaves the geometry to loops:
//   - the input's zero point moves into the bias (bias - zp * sum of the channel's
//     weights, wrapped to int32 like the kernel's sums: the same bits as TFLite's sum of
//     (x - zp) * w);
//   - windows read a band of the kernel's KH input rows padded left and right and above
//     and below with the zero point (aotc_mve_band_row_s8): a tap in the padding adds
//     zp * w, which cancels its share of the folded bias, as a skipped tap would; so every
//     window lies inside the band and no kernel checks a bound. From one output row to
//     the next the band moves down: its rows still needed are moved up, the new ones
//     copied in;
//   - weights are packed: for aotc_mve_conv_s8 in blocks of four output channels, sixteen
//     values of each per chunk, runs padded to whole chunks; for aotc_mve_depthwise_s8 in
//     blocks of four channels, tap by tap. A convolution's window is summed as
//     KH runs of KW * C values straight from the band, or, when such runs are short (KW * C
//     not a multiple of 16 and below 64: first layers with 1 or 3 channels), gathered
//     first into one contiguous run;
//   - requantization tables per channel (bias, multiplier, left and right shifts), padded
//     to a multiple of four channels; TFLite's arithmetic exactly (see aotc_mve.h).
// In place: a 1x1 convolution whose output may take its input's memory copies each input
// pixel first; a depthwise convolution of stride 1 reads only the band, which holds every
// input row the later output rows still need before the output overwrites it. With a
// fused epilogue the kernel writes its results to a small scratch buffer first; a residual
// ADD (the problem's FusedResidualAdd: an int8 ADD with a tensor of the output's shape) is
// then computed four elements per vector (aotc_mve_add_s8), any other epilogue element by
// element.
#pragma once

#include <optional>

#include "lowering/compute/convolution.h"

namespace aotc {

// NHWC with two spatial axes and no dilation: a convolution of one group, or a depthwise
// convolution with a depth multiplier of 1.
bool mve_conv_s8_applies(const ConvGeometry& geometry);

// The kernel body of a convolution or depthwise convolution. `operands.filter` and
// `operands.bias` are not read (packed weights and folded tables replace them).
// With `residual_add` (the whole fused epilogue) the ADD is computed four elements per vector.
ir::Stmt lower_mve_conv_s8(KernelBuilder& kb, const ConvGeometry& geometry, const ChannelRequantization& requantization,
                           const ConvOperands& operands, const FoldedConvConstants& constants,
                           const std::optional<FusedResidualAdd>& residual_add);

// A fully connected layer: y[b, u] for input rows x[b, :] of `depth` values and the filter
// [units, depth]; folded_bias: bias - zp * sum of the unit's weights, per unit.
ir::Stmt lower_mve_fully_connected_s8(const ir::Buffer& x, const ir::Buffer& y, const Tensor& filter,
                                      const std::vector<int32_t>& folded_bias, const ChannelRequantization& requantization);

}  // namespace aotc
