// Shared-memory bank conflicts of the reference interpreter's GPU kernels, tallied
// when RunOptions::bank_conflicts is set.
//
// The model is the one NVIDIA GPUs since Volta follow: shared memory is 32 banks of
// 4-byte words, word w in bank w % 32. A warp's request (one load or store
// instruction of its lanes) takes one wavefront per distinct word of its busiest
// bank; lanes reading one word share it (a broadcast). A request whose lanes touch
// D distinct words cannot take fewer than ceil(D / 32) wavefronts; more is a conflict.
//
//   S: f32[1024] shared, 32 lanes of one warp
//   S[tx]            words 0..31, one per bank        1 wavefront
//   S[tx * 2]        words 0, 2, .., 62: two a bank     2 wavefronts (2-way)
//   S[tx * 32]       words 0, 32, ..: all in bank 0     32 wavefronts
//   S[tx // 4]       8 words, 4 lanes each            1 wavefront
//
// Threads run one after another here, so a request is reassembled: the n-th
// execution of a statement by each lane of a warp (threads 32 w .. 32 w + 31 of
// the block, threadIdx.x fastest) is one request, and every element the
// statement touches in a buffer belongs to it (a vector access's lanes too). A
// statement that reads one buffer twice is counted as one request of both reads,
// which is never counted as a conflict where the two apart are not.
#include <algorithm>
#include <array>
#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

#include "ir/interpreter_gpu_internal.h"

namespace tessel::ir::interp {

namespace {

constexpr int64_t kWarpSize = 32;
constexpr int64_t kBanks = 32;
constexpr int64_t kWordBytes = 4;

}  // namespace

void BankTally::Record(const GpuRun& r, int64_t step, const StmtNode* where,
                       const BufferNode* storage, const uint8_t* addr, int bytes, bool is_store) {
  if (r.block != block_) {
    // Blocks run one after another: the previous one's requests are complete.
    Flush();
    block_ = r.block;
  }
  auto [it, added] = site_of_.try_emplace(std::make_tuple(where, storage, is_store), sites_.size());
  if (added) sites_.push_back(Site{where, storage, is_store});
  const size_t site = it->second;
  Execution& e = executions_[std::make_pair(r.thread, site)];
  if (e.step != step) {
    e.step = step;
    ++e.count;
  }
  std::vector<int64_t>& words = requests_[std::make_tuple(site, r.thread / kWarpSize, e.count)];
  const auto at = static_cast<int64_t>(reinterpret_cast<uintptr_t>(addr));
  for (int64_t w = at / kWordBytes; w <= (at + bytes - 1) / kWordBytes; ++w) words.push_back(w);
}

void BankTally::Flush() {
  for (auto& [key, words] : requests_) {
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
    std::array<int64_t, kBanks> per_bank{};
    for (int64_t w : words) ++per_bank[static_cast<size_t>(w % kBanks)];
    Site& s = sites_[std::get<0>(key)];
    ++s.requests;
    s.wavefronts += *std::max_element(per_bank.begin(), per_bank.end());
    s.ideal += (static_cast<int64_t>(words.size()) + kBanks - 1) / kBanks;
  }
  requests_.clear();
  executions_.clear();
  // Merge into the output: a kernel run again (under a host loop) adds to its sites.
  // A site is looked up (its statement printed) once per kernel run, not per block.
  for (Site& s : sites_) {
    if (s.requests == 0) continue;
    if (s.out < 0) {
      const std::string statement = StmtSummary(s.where);
      auto same = [&](const BankConflictSite& o) {
        return o.buffer == s.storage->name && o.statement == statement && o.store == s.store;
      };
      auto found = std::find_if(out_->sites.begin(), out_->sites.end(), same);
      if (found == out_->sites.end()) {
        out_->sites.push_back(BankConflictSite{s.storage->name, statement, s.store});
        found = out_->sites.end() - 1;
      }
      s.out = found - out_->sites.begin();
    }
    BankConflictSite& o = out_->sites[static_cast<size_t>(s.out)];
    o.requests += s.requests;
    o.wavefronts += s.wavefronts;
    o.ideal += s.ideal;
    s.requests = s.wavefronts = s.ideal = 0;
  }
}

}  // namespace tessel::ir::interp
