// oneDNN references for tessel-bench (onednn_reference.h).
#include "tools/bench/onednn_reference.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "oneapi/dnnl/dnnl.h"
#include "oneapi/dnnl/dnnl.hpp"

extern "C" void omp_set_num_threads(int num_threads);

namespace tessel::bench {

void SetOneDnnThreads(int threads) { omp_set_num_threads(threads); }

absl::Status OneDnnSgemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
                         const float* a, const float* b, float* c) {
  dnnl_status_t s = dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, 1.0f, a,
                               trans_a ? m : k, b, trans_b ? k : n, 0.0f, c, n);
  if (s != dnnl_success) return absl::InternalError(absl::StrCat("dnnl_sgemm failed: ", s));
  return absl::OkStatus();
}

absl::StatusOr<std::function<void()>> OneDnnMatmul(int64_t m, int64_t n, int64_t k,
                                                   const float* a, const float* b, float* c) {
  using dnnl::memory;
  try {
    auto engine = std::make_shared<dnnl::engine>(dnnl::engine::kind::cpu, 0);
    auto stream = std::make_shared<dnnl::stream>(*engine);
    const auto f32 = memory::data_type::f32;
    memory::desc a_md({m, k}, f32, memory::format_tag::ab);
    memory::desc b_md({k, n}, f32, memory::format_tag::ab);
    memory::desc c_md({m, n}, f32, memory::format_tag::ab);
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_md, c_md), *engine);
    auto mm = std::make_shared<dnnl::matmul>(pd);
    auto ma = std::make_shared<memory>(a_md, *engine, const_cast<float*>(a));
    auto mb = std::make_shared<memory>(b_md, *engine, const_cast<float*>(b));
    auto mc = std::make_shared<memory>(c_md, *engine, c);
    return std::function<void()>([=] {
      mm->execute(*stream, {{DNNL_ARG_SRC, *ma}, {DNNL_ARG_WEIGHTS, *mb}, {DNNL_ARG_DST, *mc}});
      stream->wait();
    });
  } catch (const dnnl::error& e) {
    return absl::InternalError(absl::StrCat("oneDNN matmul: ", e.what()));
  }
}

absl::StatusOr<std::function<void()>> OneDnnConv2dNchw(std::array<int64_t, 4> data,
                                                       std::array<int64_t, 4> weights,
                                                       int64_t stride, int64_t pad,
                                                       const float* x, const float* w, float* y) {
  using dnnl::memory;
  try {
    auto engine = std::make_shared<dnnl::engine>(dnnl::engine::kind::cpu, 0);
    auto stream = std::make_shared<dnnl::stream>(*engine);
    const int64_t oh = (data[2] + 2 * pad - weights[2]) / stride + 1;
    const int64_t ow = (data[3] + 2 * pad - weights[3]) / stride + 1;
    memory::dims src_dims = {data[0], data[1], data[2], data[3]};
    memory::dims w_dims = {weights[0], weights[1], weights[2], weights[3]};
    memory::dims dst_dims = {data[0], weights[0], oh, ow};
    const auto f32 = memory::data_type::f32;
    memory::desc src_any(src_dims, f32, memory::format_tag::any);
    memory::desc w_any(w_dims, f32, memory::format_tag::any);
    memory::desc dst_any(dst_dims, f32, memory::format_tag::any);
    dnnl::convolution_forward::desc desc(
        dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src_any, w_any,
        dst_any, {stride, stride}, {pad, pad}, {pad, pad});
    dnnl::convolution_forward::primitive_desc pd(desc, *engine);
    memory user_src({src_dims, f32, memory::format_tag::nchw}, *engine, const_cast<float*>(x));
    memory user_w({w_dims, f32, memory::format_tag::oihw}, *engine, const_cast<float*>(w));
    memory user_dst({dst_dims, f32, memory::format_tag::nchw}, *engine, y);
    auto src = std::make_shared<memory>(pd.src_desc(), *engine);
    auto wt = std::make_shared<memory>(pd.weights_desc(), *engine);
    auto dst = std::make_shared<memory>(pd.dst_desc(), *engine);
    dnnl::reorder(user_src, *src).execute(*stream, user_src, *src);
    dnnl::reorder(user_w, *wt).execute(*stream, user_w, *wt);
    stream->wait();
    auto conv = std::make_shared<dnnl::convolution_forward>(pd);
    auto back = std::make_shared<dnnl::reorder>(*dst, user_dst);
    auto out = std::make_shared<memory>(user_dst);
    return std::function<void()>([=] {
      conv->execute(*stream, {{DNNL_ARG_SRC, *src}, {DNNL_ARG_WEIGHTS, *wt}, {DNNL_ARG_DST, *dst}});
      back->execute(*stream, *dst, *out);
      stream->wait();
    });
  } catch (const dnnl::error& e) {
    return absl::InternalError(absl::StrCat("oneDNN convolution: ", e.what()));
  }
}

absl::StatusOr<std::function<void()>> OneDnnDepthwiseNhwc(std::array<int64_t, 4> data, int64_t k,
                                                          int64_t stride, int64_t pad,
                                                          const float* x, const float* w,
                                                          float* y) {
  using dnnl::memory;
  try {
    auto engine = std::make_shared<dnnl::engine>(dnnl::engine::kind::cpu, 0);
    auto stream = std::make_shared<dnnl::stream>(*engine);
    const int64_t c = data[3];
    const int64_t oh = (data[1] + 2 * pad - k) / stride + 1;
    const int64_t ow = (data[2] + 2 * pad - k) / stride + 1;
    // oneDNN's logical dims are NCHW and GOIHW whatever the memory order.
    memory::dims src_dims = {data[0], c, data[1], data[2]};
    memory::dims w_dims = {c, 1, 1, k, k};
    memory::dims dst_dims = {data[0], c, oh, ow};
    const auto f32 = memory::data_type::f32;
    // HWIO with I = 1 per group and O = the groups: kh, kw, i, g, o in memory.
    // The weights go to the blocked layout oneDNN's depthwise kernel picks
    // (reordered once, outside the timing); given as they are, it falls back to
    // a GEMM-based convolution several times slower.
    memory::desc src_md(src_dims, f32, memory::format_tag::nhwc);
    memory::desc w_md(w_dims, f32, memory::format_tag::hwigo);
    memory::desc dst_md(dst_dims, f32, memory::format_tag::nhwc);
    memory::desc w_any(w_dims, f32, memory::format_tag::any);
    dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference,
                                         dnnl::algorithm::convolution_direct, src_md, w_any, dst_md,
                                         {stride, stride}, {pad, pad}, {pad, pad});
    dnnl::convolution_forward::primitive_desc pd(desc, *engine);
    auto src = std::make_shared<memory>(src_md, *engine, const_cast<float*>(x));
    memory user_w(w_md, *engine, const_cast<float*>(w));
    auto wt = std::make_shared<memory>(pd.weights_desc(), *engine);
    dnnl::reorder(user_w, *wt).execute(*stream, user_w, *wt);
    stream->wait();
    auto dst = std::make_shared<memory>(dst_md, *engine, y);
    auto conv = std::make_shared<dnnl::convolution_forward>(pd);
    return std::function<void()>([=] {
      conv->execute(*stream, {{DNNL_ARG_SRC, *src}, {DNNL_ARG_WEIGHTS, *wt}, {DNNL_ARG_DST, *dst}});
      stream->wait();
    });
  } catch (const dnnl::error& e) {
    return absl::InternalError(absl::StrCat("oneDNN depthwise convolution: ", e.what()));
  }
}

}  // namespace tessel::bench
