// The timing instrument: a stack of open nodes while the pipeline runs, a tree
// printed at the end. The time other instruments spend in their hooks (the
// pass manager tallies it in PassContext::instrument_seconds) is taken out of
// the passes it falls inside and shown as one row per instrument:
//
//      time (ms)    share  pass
//        210.412   100.0%  total
//          1.204     0.6%  lower
//          0.311     0.1%    flatten-buffer
//        208.650    99.2%  (instrument check-semantics)
//          0.558     0.3%  (pass manager)
#include "passes/instruments/timing.h"

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "passes/pass.h"
#include "passes/pass_context.h"

namespace tessel::passes {

namespace {

using Clock = std::chrono::steady_clock;

struct Node {
  std::string name;
  double seconds = 0;
  int count = 0;
  std::vector<std::unique_ptr<Node>> children;

  Node* Child(const std::string& n) {
    for (auto& c : children) {
      if (c->name == n) return c.get();
    }
    children.push_back(std::make_unique<Node>());
    children.back()->name = n;
    return children.back().get();
  }
};

class Timing : public PassInstrument {
 public:
  explicit Timing(std::ostream* out) : out_(out) {}
  std::string name() const override { return "timing"; }

  absl::Status BeforePipeline(const ir::IRModule&, PassContext& ctx) override {
    root_ = std::make_unique<Node>();
    root_->name = "total";
    stack_.clear();
    // Instruments before this one in the list have run their BeforePipeline
    // already (check-semantics' reference runs): the total includes them.
    before_start_ = Others(ctx);
    stack_.push_back({root_.get(), Clock::now(), before_start_});
    return absl::OkStatus();
  }

  absl::Status BeforePass(const Pass& pass, const ir::IRModule&, PassContext& ctx) override {
    if (stack_.empty()) return absl::OkStatus();  // A pass run outside RunPipeline.
    Node* n = stack_.back().node->Child(pass.name());
    stack_.push_back({n, Clock::now(), Others(ctx)});
    return absl::OkStatus();
  }

  absl::Status AfterPass(const Pass&, const ir::IRModule&, const ir::IRModule&,
                         PassContext& ctx) override {
    if (stack_.size() < 2) return absl::OkStatus();
    Close(ctx);
    return absl::OkStatus();
  }

  void OnFailure(const PassFailure&, PassContext& ctx) override {
    // The failing pass never gets AfterPass; report what ran so far.
    while (!stack_.empty()) Close(ctx);
    Report(ctx, "(pipeline failed)");
  }

  absl::Status AfterPipeline(const ir::IRModule&, PassContext& ctx) override {
    while (!stack_.empty()) Close(ctx);
    Report(ctx, "");
    return absl::OkStatus();
  }

 private:
  struct Open {
    Node* node;
    Clock::time_point start;
    double others_at_start;  // Others(ctx) when the node opened.
  };

  // Seconds spent so far in the hooks of every instrument but this one.
  double Others(const PassContext& ctx) const {
    double sum = 0;
    for (const auto& [inst, seconds] : ctx.instrument_seconds()) {
      if (inst != name()) sum += seconds;
    }
    return sum;
  }

  // A node's time is its wall time less what other instruments spent inside it;
  // the root keeps its wall time (plus what they spent before it opened): it is
  // the total the rows add up to.
  void Close(const PassContext& ctx) {
    Open o = stack_.back();
    stack_.pop_back();
    double wall = std::chrono::duration<double>(Clock::now() - o.start).count();
    double inside = Others(ctx) - o.others_at_start;
    o.node->seconds += o.node == root_.get() ? wall + before_start_ : wall - inside;
    ++o.node->count;
  }

  void Row(double seconds, double total, const std::string& label) {
    *out_ << absl::StrFormat("  %10.3f  %6.1f%%  %s\n", seconds * 1e3,
                             total > 0 ? 100.0 * seconds / total : 0.0, label);
  }

  void Print(const Node& n, int depth, double total) {
    std::string label = std::string(2 * depth, ' ') + n.name;
    if (n.count > 1) label += absl::StrFormat(" (x%d)", n.count);
    Row(n.seconds, total, label);
    for (const auto& c : n.children) Print(*c, depth + 1, total);
  }

  void Report(const PassContext& ctx, const std::string& note) {
    if (!root_) return;
    double total = root_->seconds;
    *out_ << "===== tessel pass timing (wall clock) =====" << (note.empty() ? "" : " ") << note
          << "\n"
          << "   time (ms)    share  pass\n";
    *out_ << absl::StrFormat("  %10.3f  %6.1f%%  %s\n", total * 1e3, 100.0, "total");
    double sum = 0;
    for (const auto& c : root_->children) {
      Print(*c, 0, total);
      sum += c->seconds;
    }
    for (const auto& [inst, seconds] : ctx.instrument_seconds()) {
      if (inst == name()) continue;
      Row(seconds, total, absl::StrCat("(instrument ", inst, ")"));
      sum += seconds;
    }
    double other = total - sum;
    if (other < 0) other = 0;
    Row(other, total, "(pass manager)");
    out_->flush();
    root_.reset();
  }

  std::ostream* out_;
  std::unique_ptr<Node> root_;
  std::vector<Open> stack_;
  double before_start_ = 0;
};

}  // namespace

std::shared_ptr<PassInstrument> MakeTimingInstrument(std::ostream* out) {
  return std::make_shared<Timing>(out);
}

}  // namespace tessel::passes
