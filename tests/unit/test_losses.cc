// Tests of NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (lowering/ops/onnx/losses.cc).
//
// Each kernel runs in the IR interpreter (as lowered and after Simplify) and is compared
// with a reference computed here by plain loops from the ONNX definitions: per label
// position, -input[n, label, d...] times the label's weight (0 and no weight for
// ignore_index), then the reduction; SoftmaxCrossEntropyLoss first takes the log-softmax
// over the classes (axis 1). Labels are run-time inputs: a label outside [0, C) that is
// not ignore_index makes the kernel return an error.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "tests/unit/one_node.h"
#include "tests/unit/reference_checks.h"

namespace aotc::test {
namespace {

struct LossCase {
  Shape shape;  // of the input, [N, C, d...]
  std::vector<float> x;
  std::vector<int64_t> labels;
  std::vector<float> weights;  // empty: none
  std::string reduction = "mean";
  std::optional<int64_t> ignore_index;
};

int64_t positions_per_sample(const Shape& shape) { return element_count(shape) / (shape[0] * shape[1]); }

// log_softmax over axis 1 of x (for SoftmaxCrossEntropyLoss), or x itself.
std::vector<double> log_probabilities(const LossCase& c, bool softmax) {
  std::vector<double> p(c.x.begin(), c.x.end());
  if (!softmax) return p;
  int64_t classes = c.shape[1], inner = positions_per_sample(c.shape);
  for (int64_t n = 0; n < c.shape[0]; ++n) {
    for (int64_t d = 0; d < inner; ++d) {
      auto at = [&](int64_t k) { return static_cast<size_t>((n * classes + k) * inner + d); };
      double largest = -INFINITY, sum = 0;
      for (int64_t k = 0; k < classes; ++k) largest = std::max(largest, p[at(k)]);
      for (int64_t k = 0; k < classes; ++k) sum += std::exp(p[at(k)] - largest);
      double log_sum = std::log(sum) + largest;
      for (int64_t k = 0; k < classes; ++k) p[at(k)] = c.x[at(k)] - log_sum;
    }
  }
  return p;
}

// The loss per position (reduction "none") or its reduction.
std::vector<double> reference_loss(const LossCase& c, bool softmax) {
  std::vector<double> log_p = log_probabilities(c, softmax);
  int64_t classes = c.shape[1], inner = positions_per_sample(c.shape);
  std::vector<double> losses;
  double sum = 0, weight_sum = 0;
  for (size_t p = 0; p < c.labels.size(); ++p) {
    int64_t n = static_cast<int64_t>(p) / inner, d = static_cast<int64_t>(p) % inner, label = c.labels[p];
    if (c.ignore_index && label == *c.ignore_index) {
      losses.push_back(0.0);
      continue;
    }
    double weight = c.weights.empty() ? 1.0 : c.weights[static_cast<size_t>(label)];
    double loss = -log_p[static_cast<size_t>((n * classes + label) * inner + d)] * weight;
    losses.push_back(loss);
    sum += loss;
    weight_sum += weight;
  }
  if (c.reduction == "none") return losses;
  if (c.reduction == "sum") return {sum};
  return {sum / weight_sum};  // with neither weights nor ignored labels, weight_sum counts the positions
}

Shape label_shape(const Shape& shape) {
  Shape labels = {shape.at(0)};
  labels.insert(labels.end(), shape.begin() + 2, shape.end());
  return labels;
}

// Builds the node for `c`: labels as run-time int64 (or int32) input, weights a constant.
template <typename Label = int64_t>
OneNode loss_node(const std::string& op, const LossCase& c, bool log_prob_output = false) {
  OneNode node(op, 13);
  node.input(c.shape, c.x).input(label_shape(c.shape), std::vector<Label>(c.labels.begin(), c.labels.end()));
  if (!c.weights.empty()) node.constant({c.shape[1]}, c.weights);
  node.attr("reduction", c.reduction);
  if (c.ignore_index) node.attr("ignore_index", *c.ignore_index);
  if (log_prob_output) node.extra_output(true);
  return node;
}

void expect_error_contains(const std::string& message, const std::string& text) {
  EXPECT_NE(message.find(text), std::string::npos) << "error was: '" << message << "'";
}

LossCase random_case(const Shape& shape, uint32_t seed) {
  LossCase c;
  c.shape = shape;
  c.x = random_floats(static_cast<size_t>(element_count(shape)), seed, 3.0f);
  c.labels = random_ints<int64_t>(static_cast<size_t>(element_count(label_shape(shape))), 0,
                                  static_cast<int>(shape[1] - 1), seed + 1);
  return c;
}

// ---------------------------------------------------------------- NegativeLogLikelihoodLoss

TEST(NegativeLogLikelihoodLoss, EachReductionWithAndWithoutWeights) {
  for (bool weighted : {false, true}) {
    for (std::string reduction : {"none", "sum", "mean"}) {
      SCOPED_TRACE(reduction + (weighted ? " weighted" : ""));
      LossCase c = random_case({3, 5, 2, 2}, 41);
      c.reduction = reduction;
      if (weighted) c.weights = {0.5f, 1.0f, 2.0f, 0.0f, 3.0f};
      OneNode node = loss_node("NegativeLogLikelihoodLoss", c);
      std::vector<float> loss = node.run();
      EXPECT_EQ(node.output_shape(0), reduction == "none" ? (Shape{3, 2, 2}) : Shape{});
      expect_near_all(loss, reference_loss(c, false));
    }
  }
}

TEST(NegativeLogLikelihoodLoss, IgnoreIndexInsideAndOutsideTheClasses) {
  for (int64_t ignored : {1, -1, 10}) {
    for (std::string reduction : {"none", "sum", "mean"}) {
      for (bool weighted : {false, true}) {
        SCOPED_TRACE(reduction + " ignore_index " + std::to_string(ignored) + (weighted ? " weighted" : ""));
        LossCase c = random_case({4, 3, 3}, 42);
        c.labels[0] = ignored;
        c.labels[5] = ignored;
        c.labels[7] = ignored;
        c.reduction = reduction;
        c.ignore_index = ignored;
        if (weighted) c.weights = {0.25f, 2.0f, 1.5f};
        OneNode node = loss_node("NegativeLogLikelihoodLoss", c);
        expect_near_all(node.run(), reference_loss(c, false));
      }
    }
  }
}

TEST(NegativeLogLikelihoodLoss, RankTwoInputAndInt32Labels) {
  LossCase c = random_case({6, 4}, 43);
  c.reduction = "none";
  OneNode node = loss_node<int32_t>("NegativeLogLikelihoodLoss", c);
  std::vector<float> loss = node.run();
  EXPECT_EQ(node.output_shape(0), (Shape{6}));
  expect_near_all(loss, reference_loss(c, false));
}

TEST(NegativeLogLikelihoodLoss, MeanOverOnlyIgnoredLabelsIsNaN) {
  LossCase c = random_case({2, 3}, 44);
  c.labels = {2, 2};
  c.ignore_index = 2;
  OneNode node = loss_node("NegativeLogLikelihoodLoss", c);
  EXPECT_TRUE(std::isnan(node.run()[0]));
}

TEST(NegativeLogLikelihoodLoss, LabelsOutsideTheClassesAreARunTimeError) {
  for (int64_t bad : {-1, 3, 100}) {
    SCOPED_TRACE("label " + std::to_string(bad));
    LossCase c = random_case({2, 3, 2}, 45);
    c.labels[3] = bad;
    EXPECT_EQ(loss_node("NegativeLogLikelihoodLoss", c).kernel_status(), 1);  // AOTC_ERR_INVALID_ARGUMENT
    c.ignore_index = bad;  // the same label, ignored: no error
    EXPECT_EQ(loss_node("NegativeLogLikelihoodLoss", c).kernel_status(), 0);
  }
}

// ---------------------------------------------------------------- SoftmaxCrossEntropyLoss

TEST(SoftmaxCrossEntropyLoss, EachReductionWithLogProbOutput) {
  for (bool weighted : {false, true}) {
    for (std::string reduction : {"none", "sum", "mean"}) {
      SCOPED_TRACE(reduction + (weighted ? " weighted" : ""));
      LossCase c = random_case({2, 4, 3}, 46);
      c.reduction = reduction;
      if (weighted) c.weights = {1.0f, 0.5f, 2.0f, 1.5f};
      OneNode node = loss_node("SoftmaxCrossEntropyLoss", c, true);
      expect_near_all(node.run(), reference_loss(c, true));
      EXPECT_EQ(node.output_shape(1), c.shape);
      expect_near_all(node.run_output(1), log_probabilities(c, true));
    }
  }
}

TEST(SoftmaxCrossEntropyLoss, IgnoreIndexAndHigherRank) {
  for (int64_t ignored : {0, -5}) {
    SCOPED_TRACE("ignore_index " + std::to_string(ignored));
    LossCase c = random_case({2, 3, 2, 3, 2}, 47);
    c.labels[1] = ignored;
    c.labels[10] = ignored;
    c.ignore_index = ignored;
    c.weights = {0.3f, 1.0f, 2.5f};
    OneNode node = loss_node("SoftmaxCrossEntropyLoss", c);
    expect_near_all(node.run(), reference_loss(c, true));
  }
}

TEST(SoftmaxCrossEntropyLoss, LargeLogitsStayFinite) {
  LossCase c;
  c.shape = {2, 3};
  c.x = {1000.0f, 1001.0f, 999.0f, -800.0f, 50.0f, 51.0f};
  c.labels = {0, 2};
  c.reduction = "none";
  OneNode node = loss_node("SoftmaxCrossEntropyLoss", c);
  std::vector<float> loss = node.run();
  for (float v : loss) EXPECT_TRUE(std::isfinite(v));
  expect_near_all(loss, reference_loss(c, true));
}

TEST(SoftmaxCrossEntropyLoss, LabelOutsideTheClassesIsARunTimeError) {
  LossCase c = random_case({3, 4}, 48);
  c.labels[2] = 4;
  EXPECT_EQ(loss_node("SoftmaxCrossEntropyLoss", c, true).kernel_status(), 1);
}

// ---------------------------------------------------------------- errors

TEST(Losses, Errors) {
  for (std::string op : {"NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"}) {
    SCOPED_TRACE(op);
    LossCase c = random_case({2, 3, 4}, 49);
    OneNode float_labels(op, 13);
    float_labels.input(c.shape, c.x).input({2, 4}, random_floats(8, 1));
    expect_error_contains(float_labels.error(), "are float32; int32 or int64 are required");

    OneNode wrong_labels(op, 13);
    wrong_labels.input(c.shape, c.x).input<int64_t>({2, 3}, {0, 0, 0, 0, 0, 0});
    expect_error_contains(wrong_labels.error(), "must have shape [2, 4] (the input's without axis 1), got [2, 3]");

    OneNode wrong_weights(op, 13);
    wrong_weights.input(c.shape, c.x).input(label_shape(c.shape), c.labels).constant({4}, {1.0f, 1.0f, 1.0f, 1.0f});
    expect_error_contains(wrong_weights.error(), "must be float32 of shape [3], got float32 [4]");

    LossCase bad_reduction = c;
    bad_reduction.reduction = "average";
    expect_error_contains(loss_node(op, bad_reduction).error(), "reduction must be none, sum or mean, got 'average'");

    OneNode rank1(op, 13);
    rank1.input({3}, random_floats(3, 1)).input<int64_t>({3}, {0, 0, 0});
    expect_error_contains(rank1.error(), "must have rank >= 2");

    LossCase wide_ignore = c;
    wide_ignore.ignore_index = int64_t{1} << 40;
    expect_error_contains(loss_node<int32_t>(op, wide_ignore).error(), "does not fit the int32 labels");
  }
  LossCase c = random_case({2, 3}, 50);
  expect_error_contains(loss_node("NegativeLogLikelihoodLoss", c, true).error(), "has at most 1 output");
}

}  // namespace
}  // namespace aotc::test
