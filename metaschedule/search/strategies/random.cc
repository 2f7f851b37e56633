// random: independent draws of the design space, none measured before.
//
//   Propose(history, 4) -> 4 draws, seeds 0x9e37..., 0x3c6e..., ... from the strategy's seed
//
// The baseline every other strategy is compared with; what the others use to fill
// a batch when they have nothing better to propose.
#include "ir/schedule/sampling.h"
#include "metaschedule/search/search_strategy.h"

namespace tessel::metaschedule {
namespace {

class RandomSearch : public SearchStrategy {
 public:
  std::string name() const override { return "random"; }
  absl::Status Init(const SearchContext& ctx) override {
    ctx_ = ctx;
    rng_ = ir::schedule::RandomEngine(ctx.seed);
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<ir::schedule::Trace>> Propose(const SearchHistory& history,
                                                           int n) override {
    absl::flat_hash_set<std::string> taken;
    return FreshDraws(*ctx_.space, history, n, &rng_, &taken);
  }

 private:
  SearchContext ctx_;
  ir::schedule::RandomEngine rng_;
};

TESSEL_REGISTER_SEARCH_STRATEGY("random", RandomSearch);

}  // namespace
}  // namespace tessel::metaschedule
