// The timing instrument: a stack of open nodes while the pipeline runs, a tree
// printed at the end.
#include "passes/instruments/timing.h"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "passes/pass.h"

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

  absl::Status BeforePipeline(const ir::IRModule&, PassContext&) override {
    root_ = std::make_unique<Node>();
    root_->name = "total";
    stack_.clear();
    stack_.push_back({root_.get(), Clock::now()});
    return absl::OkStatus();
  }

  absl::Status BeforePass(const Pass& pass, const ir::IRModule&, PassContext&) override {
    if (stack_.empty()) return absl::OkStatus();  // A pass run outside RunPipeline.
    Node* n = stack_.back().node->Child(pass.name());
    stack_.push_back({n, Clock::now()});
    return absl::OkStatus();
  }

  absl::Status AfterPass(const Pass&, const ir::IRModule&, const ir::IRModule&,
                         PassContext&) override {
    if (stack_.size() < 2) return absl::OkStatus();
    Close();
    return absl::OkStatus();
  }

  void OnFailure(const PassFailure&, PassContext&) override {
    // The failing pass never gets AfterPass; report what ran so far.
    while (!stack_.empty()) Close();
    Report("(pipeline failed)");
  }

  absl::Status AfterPipeline(const ir::IRModule&, PassContext&) override {
    while (!stack_.empty()) Close();
    Report("");
    return absl::OkStatus();
  }

 private:
  struct Open {
    Node* node;
    Clock::time_point start;
  };

  void Close() {
    Open o = stack_.back();
    stack_.pop_back();
    o.node->seconds += std::chrono::duration<double>(Clock::now() - o.start).count();
    ++o.node->count;
  }

  void Print(const Node& n, int depth, double total) {
    std::string label = std::string(2 * depth, ' ') + n.name;
    if (n.count > 1) label += absl::StrFormat(" (x%d)", n.count);
    *out_ << absl::StrFormat("  %10.3f  %6.1f%%  %s\n", n.seconds * 1e3,
                             total > 0 ? 100.0 * n.seconds / total : 100.0, label);
    for (const auto& c : n.children) Print(*c, depth + 1, total);
  }

  void Report(const std::string& note) {
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
    double other = total - sum;
    if (other < 0) other = 0;
    *out_ << absl::StrFormat("  %10.3f  %6.1f%%  %s\n", other * 1e3,
                             total > 0 ? 100.0 * other / total : 0.0,
                             "(instruments and pass manager)");
    out_->flush();
    root_.reset();
  }

  std::ostream* out_;
  std::unique_ptr<Node> root_;
  std::vector<Open> stack_;
};

}  // namespace

std::shared_ptr<PassInstrument> MakeTimingInstrument(std::ostream* out) {
  return std::make_shared<Timing>(out);
}

}  // namespace tessel::passes
