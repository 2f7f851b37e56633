#include "tools/examples_runner/references.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"

namespace tessel::examples {
namespace {

using ir::Arg;
using ir::HostBuffer;

// A float view of one buffer argument, checked for the expected shape.
class View {
 public:
  static absl::StatusOr<View> Of(std::vector<Arg>& args, size_t i, std::vector<int64_t> shape) {
    if (i >= args.size() || !std::holds_alternative<HostBuffer>(args[i])) {
      return absl::InvalidArgumentError(absl::StrCat("argument ", i, " is not a buffer"));
    }
    HostBuffer& b = std::get<HostBuffer>(args[i]);
    if (b.shape() != shape || !b.dtype().is_float() || b.dtype().bits() != 32) {
      return absl::InvalidArgumentError(
          absl::StrCat("argument ", i, " does not have the reference's f32 shape"));
    }
    return View(b);
  }
  float get(int64_t flat) const { return static_cast<float>(b_.GetFloat(flat)); }
  void set(int64_t flat, float v) { b_.SetFloat(flat, v); }

 private:
  explicit View(HostBuffer b) : b_(std::move(b)) {}
  HostBuffer b_;
};

#define ASSIGN_VIEW(name, args, i, ...)                                 \
  absl::StatusOr<View> name##_or = View::Of(args, i, {__VA_ARGS__});   \
  if (!name##_or.ok()) return name##_or.status();                      \
  View& name = *name##_or

// C[64, 64] = A[64, 64] @ B[64, 64].
absl::Status Matmul(std::vector<Arg>& args) {
  constexpr int n = 64;
  ASSIGN_VIEW(a, args, 0, n, n);
  ASSIGN_VIEW(b, args, 1, n, n);
  ASSIGN_VIEW(c, args, 2, n, n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int k = 0; k < n; ++k) acc += a.get(i * n + k) * b.get(k * n + j);
      c.set(i * n + j, acc);
    }
  }
  return absl::OkStatus();
}

// D[64, 64] = max(A @ B + bias[j], 0).
absl::Status MatmulBiasRelu(std::vector<Arg>& args) {
  constexpr int n = 64;
  ASSIGN_VIEW(a, args, 0, n, n);
  ASSIGN_VIEW(b, args, 1, n, n);
  ASSIGN_VIEW(bias, args, 2, n);
  ASSIGN_VIEW(d, args, 3, n, n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int k = 0; k < n; ++k) acc += a.get(i * n + k) * b.get(k * n + j);
      d.set(i * n + j, std::max(acc + bias.get(j), 0.0f));
    }
  }
  return absl::OkStatus();
}

// O[1, 16, 16, 16] = conv2d(I[1, 8, 16, 16], W[16, 8, 3, 3]), stride 1, padding 1, NCHW.
absl::Status Conv2dNchw(std::vector<Arg>& args) {
  constexpr int c_in = 8, c_out = 16, h = 16, w = 16, r = 3, s = 3;
  ASSIGN_VIEW(in, args, 0, 1, c_in, h, w);
  ASSIGN_VIEW(wt, args, 1, c_out, c_in, r, s);
  ASSIGN_VIEW(out, args, 2, 1, c_out, h, w);
  for (int f = 0; f < c_out; ++f) {
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) {
        float acc = 0.0f;
        for (int c = 0; c < c_in; ++c) {
          for (int ry = 0; ry < r; ++ry) {
            for (int rx = 0; rx < s; ++rx) {
              int iy = y + ry - 1, ix = x + rx - 1;
              float v = (iy >= 0 && iy < h && ix >= 0 && ix < w) ? in.get((c * h + iy) * w + ix) : 0.0f;
              acc += v * wt.get(((f * c_in + c) * r + ry) * s + rx);
            }
          }
        }
        out.set((f * h + y) * w + x, acc);
      }
    }
  }
  return absl::OkStatus();
}

// Y[32, 128] = softmax over the last axis of X[32, 128].
absl::Status Softmax(std::vector<Arg>& args) {
  constexpr int rows = 32, cols = 128;
  ASSIGN_VIEW(x, args, 0, rows, cols);
  ASSIGN_VIEW(y, args, 1, rows, cols);
  for (int i = 0; i < rows; ++i) {
    float m = -INFINITY;
    for (int j = 0; j < cols; ++j) m = std::max(m, x.get(i * cols + j));
    float sum = 0.0f;
    for (int j = 0; j < cols; ++j) sum += std::exp(x.get(i * cols + j) - m);
    for (int j = 0; j < cols; ++j) y.set(i * cols + j, std::exp(x.get(i * cols + j) - m) / sum);
  }
  return absl::OkStatus();
}

// Y[32, 256] = (X - mean) / sqrt(var + 1e-5) * gamma + beta, over the last axis.
absl::Status LayerNorm(std::vector<Arg>& args) {
  constexpr int rows = 32, cols = 256;
  ASSIGN_VIEW(x, args, 0, rows, cols);
  ASSIGN_VIEW(gamma, args, 1, cols);
  ASSIGN_VIEW(beta, args, 2, cols);
  ASSIGN_VIEW(y, args, 3, rows, cols);
  for (int i = 0; i < rows; ++i) {
    float sum = 0.0f, sq = 0.0f;
    for (int j = 0; j < cols; ++j) {
      float v = x.get(i * cols + j);
      sum += v;
      sq += v * v;
    }
    float mean = sum / cols;
    float var = sq / cols - mean * mean;
    float inv = 1.0f / std::sqrt(var + 1e-5f);
    for (int j = 0; j < cols; ++j) {
      y.set(i * cols + j, (x.get(i * cols + j) - mean) * inv * gamma.get(j) + beta.get(j));
    }
  }
  return absl::OkStatus();
}

// C[1000] = A[1000] + B[1000] (the lowered, vectorized form).
absl::Status VectorAdd(std::vector<Arg>& args) {
  constexpr int n = 1000;
  ASSIGN_VIEW(a, args, 0, n);
  ASSIGN_VIEW(b, args, 1, n);
  ASSIGN_VIEW(c, args, 2, n);
  for (int i = 0; i < n; ++i) c.set(i, a.get(i) + b.get(i));
  return absl::OkStatus();
}

const std::vector<Reference>& AllReferences() {
  static const std::vector<Reference>* refs = new std::vector<Reference>{
      {"matmul", "C = A @ B (64x64x64)", Matmul},
      {"matmul_bias_relu", "D = relu(A @ B + bias)", MatmulBiasRelu},
      {"conv2d_nchw", "3x3 conv, pad 1, 8->16 ch, 16x16", Conv2dNchw},
      {"softmax", "row softmax 32x128", Softmax},
      {"layernorm", "row layernorm 32x256", LayerNorm},
      {"vector_add", "C = A + B, 16 lanes (lowered)", VectorAdd},
  };
  return *refs;
}

}  // namespace

const Reference* FindReference(const std::string& function) {
  for (const Reference& r : AllReferences()) {
    if (r.function == function) return &r;
  }
  return nullptr;
}

}  // namespace tessel::examples
