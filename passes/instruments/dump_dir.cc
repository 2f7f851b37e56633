// The dump-directory instrument.
#include "passes/instruments/dump_dir.h"

#include <filesystem>
#include <fstream>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ir/printer.h"
#include "passes/pass.h"

namespace tessel::passes {

namespace {

class DumpDir : public PassInstrument {
 public:
  explicit DumpDir(std::string dir) : dir_(std::move(dir)) {}
  std::string name() const override { return "dump-dir"; }

  absl::Status BeforePipeline(const ir::IRModule& mod, PassContext&) override {
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec) {
      return absl::InvalidArgumentError(
          absl::StrCat("dump-dir: cannot create directory '", dir_, "': ", ec.message()));
    }
    return Write("input", mod);
  }

  absl::Status AfterPass(const Pass& pass, const ir::IRModule&, const ir::IRModule& after,
                         PassContext&) override {
    if (pass.is_pipeline()) return absl::OkStatus();
    return Write(pass.name(), after);
  }

 private:
  absl::Status Write(const std::string& step, const ir::IRModule& mod) {
    std::string path =
        (std::filesystem::path(dir_) / absl::StrFormat("%03d_%s.tsl", counter_++, step)).string();
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    std::string text = ir::PrintModule(mod);
    if (!text.empty() && text.back() != '\n') text.push_back('\n');
    f << text;
    f.close();
    if (!f) return absl::InternalError(absl::StrCat("dump-dir: cannot write '", path, "'"));
    return absl::OkStatus();
  }

  std::string dir_;
  int counter_ = 0;
};

}  // namespace

std::shared_ptr<PassInstrument> MakeDumpDirInstrument(std::string dir) {
  return std::make_shared<DumpDir>(std::move(dir));
}

}  // namespace tessel::passes
