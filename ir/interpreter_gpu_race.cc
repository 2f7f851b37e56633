// The race detector of the reference interpreter's GPU kernels (the rules are in
// interpreter_gpu.cc's header comment).
//
//   S[tx] = A[tx]            thread 1 stores S[1] in phase 0
//   B[tx] = S[tx - 1]        thread 2 loads S[1] in phase 0 -> "data race on 'S' index
//                            [1] (...): thread (threadIdx.x=2) of block (blockIdx.x=0)
//                            loads it and thread (threadIdx.x=1) ... stored to it with
//                            no sync_threads() between"
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/interpreter_gpu_internal.h"

namespace tessel::ir::interp {

std::string GpuRun::Who(const Access& a) const {
  auto axes = [&](int first, int64_t linear) {
    std::vector<std::string> parts;
    for (int k = first; k < first + 3; ++k) {
      int64_t v = linear % extent[k];
      linear /= extent[k];
      if (extent[k] > 1 || k == first) parts.push_back(absl::StrCat(LaunchAxisName(k), "=", v));
    }
    return absl::StrJoin(parts, ", ");
  };
  return absl::StrCat("thread (", axes(3, a.thread), ") of block (", axes(0, a.block), ")");
}

void RecordGpuAccess(Ctx& c, const BufState& b, const BufferNode* node, int64_t off, int elem_bytes,
                     const int64_t* idx, bool is_store, const StmtNode* where) {
  GpuRun& r = *c.gpu;
  if (r.banks != nullptr) {
    const BufferNode* storage = b.storage_of != nullptr ? b.storage_of : node;
    if (storage->scope == "shared") {
      r.banks->Record(r, c.steps, where, storage, b.data + off * elem_bytes, elem_bytes, is_store);
    }
  }
  GpuRun::Shadow& s = r.shadow[b.data + off * elem_bytes];
  GpuRun::Access now{r.block, r.thread, r.phase};
  const GpuRun::Access* other = nullptr;
  bool other_stored = false;
  if (r.Unordered(s.store)) {
    other = &s.store;
    other_stored = true;
  } else if (is_store &&
             (r.Unordered(s.load) ||
              (s.loads_unordered && (s.load.block != r.block || s.load.phase == r.phase)))) {
    other = &s.load;
  }
  if (other != nullptr) {
    std::vector<int64_t> index(idx, idx + b.shape.size());
    c.Fail(absl::StatusCode::kFailedPrecondition, where,
           absl::StrCat("data race on '", node->name, "' index [", absl::StrJoin(index, ", "),
                        "] (", b.storage_of ? b.storage_of->scope : node->scope, " storage of '",
                        b.storage_of ? b.storage_of->name : node->name, "'): ", r.Who(now),
                        is_store ? " stores to" : " loads", " it and ", r.Who(*other),
                        other_stored ? " stored to" : " loaded",
                        " it with no sync_threads() between"));
    return;
  }
  if (is_store) {
    s.store = now;
    return;
  }
  if (s.load.block == r.block && s.load.phase == r.phase) {
    if (s.load.thread != r.thread) s.loads_unordered = true;
  } else {
    s.loads_unordered = s.load.block >= 0 && s.load.block != r.block;
    s.load = now;
  }
}

}  // namespace tessel::ir::interp
