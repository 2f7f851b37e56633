// The print-IR instrument.
#include "passes/instruments/print_ir.h"

#include <algorithm>

#include "ir/printer.h"
#include "ir/structural_equal.h"
#include "passes/pass.h"

namespace tessel::passes {

bool ModuleChanged(const ir::IRModule& before, const ir::IRModule& after) {
  if (after.same_as(before)) return false;
  return !ir::StructuralEqual(before, after);
}

namespace {

bool Named(const std::vector<std::string>& names, const Pass& pass) {
  return std::find(names.begin(), names.end(), pass.name()) != names.end();
}

class PrintIR : public PassInstrument {
 public:
  PrintIR(PrintIROptions o, std::ostream* out) : o_(std::move(o)), out_(out) {
    if (o_.after_change && !o_.after_all && o_.after.empty()) o_.after_all = true;
  }

  std::string name() const override { return "print-ir"; }

  absl::Status BeforePass(const Pass& pass, const ir::IRModule& mod, PassContext&) override {
    if (pass.is_pipeline()) return absl::OkStatus();
    if (o_.before_all || Named(o_.before, pass)) Dump("before", pass, mod);
    return absl::OkStatus();
  }

  absl::Status AfterPass(const Pass& pass, const ir::IRModule& before, const ir::IRModule& after,
                         PassContext&) override {
    if (pass.is_pipeline()) return absl::OkStatus();
    if (!(o_.after_all || Named(o_.after, pass))) return absl::OkStatus();
    if (o_.after_change && !ModuleChanged(before, after)) return absl::OkStatus();
    Dump("after", pass, after);
    return absl::OkStatus();
  }

 private:
  void Dump(const char* when, const Pass& pass, const ir::IRModule& mod) {
    std::string text = ir::PrintModule(mod);
    if (!text.empty() && text.back() != '\n') text.push_back('\n');
    *out_ << "// ----- IR " << when << " " << pass.ToString() << " ----- //\n" << text;
    out_->flush();
  }

  PrintIROptions o_;
  std::ostream* out_;
};

}  // namespace

std::shared_ptr<PassInstrument> MakePrintIRInstrument(PrintIROptions options, std::ostream* out) {
  return std::make_shared<PrintIR>(std::move(options), out);
}

}  // namespace tessel::passes
