// The verify-each instrument. An unchanged module needs no second look.
#include "passes/instruments/verify_each.h"

#include "absl/strings/str_cat.h"
#include "ir/verifier.h"
#include "passes/pass.h"

namespace tessel::passes {

namespace {

class VerifyEach : public PassInstrument {
 public:
  std::string name() const override { return "verify-each"; }

  absl::Status AfterPass(const Pass& pass, const ir::IRModule& before, const ir::IRModule& after,
                         PassContext&) override {
    if (pass.is_pipeline() || after.same_as(before)) return absl::OkStatus();
    absl::Status s = ir::VerifyModule(after);
    if (s.ok()) return s;
    return absl::Status(s.code(), absl::StrCat("verify-each: the IR is invalid after pass '",
                                               pass.ToString(), "': ", s.message()));
  }
};

}  // namespace

std::shared_ptr<PassInstrument> MakeVerifyEachInstrument() {
  return std::make_shared<VerifyEach>();
}

}  // namespace tessel::passes
