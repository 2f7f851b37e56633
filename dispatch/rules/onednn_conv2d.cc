// The convolution part of the onednn rule: 2-D convolutions in any layout (by
// strides), with stride, dilation, padding (a pad stage before it is absorbed),
// groups and depthwise, and their epilogue as post-ops, through
// tessel_onednn_conv2d (dispatch/runtime/onednn_conv_shim.cc). f32 only.
//
//   conv2d_pad = pad(data, 1); conv2d = conv(conv2d_pad, kernel); relu
//     -> @tessel_onednn_conv2d(1, 64, 56, 56, 64, 3, 3, 56, 56, 1,  N C H W, OC KH KW OH OW, groups
//                              1, 1, 1, 1, 1, 1, 1, 1,              strides, dilations, pads
//                              address_of(data[0, 0, 0, 0]), 200704, 3136, 56, 1, ...,
//                              1, 0, 0.0, 0.0, 0, 0, 0, 0, 0): packed   relu
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "dispatch/convolution.h"
#include "dispatch/rules/onednn_sites.h"

namespace tessel::dispatch {
namespace {

constexpr int kMaxPostOps = 8;

std::variant<SiteRewrite, std::string> Site(const ir::PrimFunc& func, const StageList& list,
                                            size_t s) {
  std::variant<Conv2d, std::string> m = MatchConv2d(func, list, s);
  if (auto* why = std::get_if<std::string>(&m)) return *why;
  const Conv2d& cv = std::get<Conv2d>(m);
  if (cv.dst->dtype != ir::DataType::Float(32)) {
    return absl::StrCat("dtype ", cv.dst->dtype.ToString(), " (the oneDNN rule takes f32)");
  }
  EpilogueChain chain = ChainEpilogue(func, list, s, cv.dst, kMaxPostOps);
  std::variant<std::vector<int64_t>, std::string> os = ElementStrides(chain.out);
  if (auto* why = std::get_if<std::string>(&os)) return *why;
  int64_t dst_strides[4] = {0, 0, 0, 0};
  for (size_t d = 0; d < cv.out_dims.size(); ++d) {
    dst_strides[cv.out_dims[d]] = std::get<std::vector<int64_t>>(os)[d];
  }
  std::vector<ir::Expr> args;
  for (int64_t v : {cv.n, cv.c, cv.h, cv.w, cv.oc, cv.kh, cv.kw, cv.oh, cv.ow, cv.groups,
                    cv.stride[0], cv.stride[1], cv.dilation[0], cv.dilation[1], cv.pad_lo[0],
                    cv.pad_lo[1], cv.pad_hi[0], cv.pad_hi[1]}) {
    args.push_back(I64(v));
  }
  args.push_back(ir::AddressOf(cv.src));
  for (int64_t v : cv.src_strides) args.push_back(I64(v));
  args.push_back(ir::AddressOf(cv.weights));
  for (int64_t v : cv.weight_strides) args.push_back(I64(v));
  args.push_back(ir::AddressOf(chain.out));
  for (int64_t v : dst_strides) args.push_back(I64(v));
  args.push_back(I64(static_cast<int64_t>(chain.ops.size())));
  std::vector<std::string> ops;
  for (const EpilogueOp& e : chain.ops) {
    args.push_back(I64(static_cast<int64_t>(e.kind)));
    args.push_back(F32Bits(e.alpha));
    args.push_back(F32Bits(e.beta));
    args.push_back(e.operand ? ir::AddressOf(e.operand) : I64(0));
    int64_t strides[4] = {0, 0, 0, 0};
    for (size_t d = 0; d < e.out_strides.size() && d < cv.out_dims.size(); ++d) {
      strides[cv.out_dims[d]] = e.out_strides[d];
    }
    for (int64_t v : strides) args.push_back(I64(v));
    ops.push_back(e.ToString());
  }
  std::variant<ir::Stmt, std::string> call =
      PackedCallStmt("tessel_onednn_conv2d", std::move(args));
  if (auto* why = std::get_if<std::string>(&call)) return *why;
  SiteRewrite r{std::get<ir::Stmt>(call), chain.stages, {}, ""};
  if (cv.pad_stage >= 0) {
    r.absorbed.push_back(static_cast<size_t>(cv.pad_stage));
    r.dropped.push_back(list.stages[cv.pad_stage].block->writes[0].buffer.get());
  }
  for (size_t i = 0; i < chain.ops.size(); ++i) {
    r.dropped.push_back(i == 0 ? cv.dst.get() : chain.ops[i - 1].out.get());
  }
  r.summary = absl::StrCat("block '", list.stages[s].block->name, "' (conv2d ", cv.ToString(), ")");
  if (!ops.empty()) absl::StrAppend(&r.summary, " + ", absl::StrJoin(ops, ", "));
  if (!chain.stop.empty()) absl::StrAppend(&r.summary, "; epilogue stops: ", chain.stop);
  return r;
}

}  // namespace

SiteMatcher OneDnnConv2dSites() { return Site; }

}  // namespace tessel::dispatch
