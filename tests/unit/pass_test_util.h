// Helpers shared by the pass-infrastructure units (tests/unit/pass_*_test.cc).
//
//   ir::IRModule m = ParseOrDie("func @f(A: i32[4]) { A[0] = 1 }");
//   std::vector<std::string> calls;   // filled by RecordingInstrument
#ifndef TESSEL_TESTS_UNIT_PASS_TEST_UTIL_H_
#define TESSEL_TESTS_UNIT_PASS_TEST_UTIL_H_

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/parser.h"
#include "passes/instrument.h"
#include "passes/pass.h"

namespace tessel::passes::testing {

// Test inputs are written by hand: a parse error is a bug in the test.
inline ir::IRModule ParseOrDie(const std::string& text) {
  absl::StatusOr<ir::IRModule> m = ir::ParseModule(text, "<test>");
  if (!m.ok()) {
    std::fprintf(stderr, "test input does not parse: %s\n",
                 std::string(m.status().message()).c_str());
    std::abort();
  }
  return *m;
}

// Records every hook call as "<tag>:<hook>[ <pass>]".
class RecordingInstrument : public PassInstrument {
 public:
  RecordingInstrument(std::string tag, std::vector<std::string>* calls)
      : tag_(std::move(tag)), calls_(calls) {}
  std::string name() const override { return tag_; }
  absl::Status BeforePipeline(const ir::IRModule&, PassContext&) override {
    return Record("before-pipeline", "");
  }
  absl::Status AfterPipeline(const ir::IRModule&, PassContext&) override {
    return Record("after-pipeline", "");
  }
  absl::Status BeforePass(const Pass& p, const ir::IRModule&, PassContext&) override {
    return Record("before", p.name());
  }
  absl::Status AfterPass(const Pass& p, const ir::IRModule& before, const ir::IRModule& after,
                         PassContext&) override {
    last_changed = !after.same_as(before);
    if (!fail_after.empty() && p.name() == fail_after) {
      calls_->push_back(absl::StrCat(tag_, ":after ", p.name()));
      return absl::FailedPreconditionError(absl::StrCat(tag_, " rejects ", p.name()));
    }
    return Record("after", p.name());
  }
  void OnFailure(const PassFailure& f, PassContext&) override {
    calls_->push_back(absl::StrCat(tag_, ":failure ", f.pass ? f.pass->name() : "<none>"));
    failures.push_back(f);
  }

  std::string fail_after;  // AfterPass of this pass returns an error.
  bool last_changed = false;
  std::vector<PassFailure> failures;

 private:
  absl::Status Record(const char* hook, const std::string& pass) {
    calls_->push_back(pass.empty() ? absl::StrCat(tag_, ":", hook)
                                   : absl::StrCat(tag_, ":", hook, " ", pass));
    return absl::OkStatus();
  }
  std::string tag_;
  std::vector<std::string>* calls_;
};

}  // namespace tessel::passes::testing

#endif  // TESSEL_TESTS_UNIT_PASS_TEST_UTIL_H_
