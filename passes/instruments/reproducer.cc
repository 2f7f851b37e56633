// The reproducer instrument and the reproducer header format. Values in the
// header are single-quoted with \' and \\ escapes, since pipeline text may hold
// double-quoted option values.
#include "passes/instruments/reproducer.h"

#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "ir/printer.h"
#include "passes/pass.h"
#include "passes/pass_context.h"

namespace tessel::passes {

namespace {

std::string Quote(absl::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'' || c == '\\') out.push_back('\\');
    if (c == '\n') {
      out += " ";  // Pipeline text and arguments are one line; keep the header one line.
      continue;
    }
    out.push_back(c);
  }
  out.push_back('\'');
  return out;
}

class ReproducerInstrument : public PassInstrument {
 public:
  ReproducerInstrument(ReproducerOptions o, std::ostream* diag) : o_(std::move(o)), diag_(diag) {}
  std::string name() const override { return "reproducer"; }

  absl::Status BeforePipeline(const ir::IRModule& mod, PassContext& ctx) override {
    pipeline_input_ = mod;
    return absl::OkStatus();
  }

  void OnFailure(const PassFailure& failure, PassContext& ctx) override {
    ir::IRModule mod = pipeline_input_;
    std::string pipeline = ctx.pipeline_text();
    bool local = !o_.full && failure.pass != nullptr && !failure.pass->is_pipeline();
    if (local || !mod) {
      mod = failure.input;
      if (failure.pass != nullptr) pipeline = failure.pass->ToString();
    }
    if (!mod) return;
    std::string text = FormatReproducer(pipeline, o_.args, std::string(failure.error.message()),
                                        ir::PrintModule(mod));
    std::ofstream f(o_.path, std::ios::binary | std::ios::trunc);
    f << text;
    f.close();
    if (!f) {
      *diag_ << "tessel: could not write the reproducer to '" << o_.path << "'\n";
      return;
    }
    *diag_ << "tessel: reproducer written to " << o_.path
           << "; re-run it with: tessel-opt --run-reproducer " << o_.path << "\n";
  }

 private:
  ReproducerOptions o_;
  std::ostream* diag_;
  ir::IRModule pipeline_input_;
};

// Reads name='value' pairs from the header line.
absl::Status ParseHeader(absl::string_view line, Reproducer* out) {
  size_t i = 0;
  bool have_pipeline = false;
  auto skip_spaces = [&] {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
  };
  while (true) {
    skip_spaces();
    if (i >= line.size()) break;
    size_t start = i;
    while (i < line.size() && line[i] != '=' && line[i] != ' ') ++i;
    std::string key(line.substr(start, i - start));
    if (i >= line.size() || line[i] != '=' || i + 1 >= line.size() || line[i + 1] != '\'') {
      return absl::InvalidArgumentError(
          absl::StrCat("reproducer header: expected name='value' at column ",
                       start + 1 + sizeof(kReproducerMarker) - 1));
    }
    i += 2;
    std::string value;
    bool closed = false;
    while (i < line.size()) {
      char c = line[i++];
      if (c == '\\' && i < line.size()) {
        value.push_back(line[i++]);
      } else if (c == '\'') {
        closed = true;
        break;
      } else {
        value.push_back(c);
      }
    }
    if (!closed) {
      return absl::InvalidArgumentError(
          absl::StrCat("reproducer header: unterminated value of '", key, "'"));
    }
    if (key == "pipeline") {
      out->pipeline = value;
      have_pipeline = true;
    } else if (key == "arg") {
      out->args.push_back(value);
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("reproducer header: unknown field '", key, "' (expected pipeline or arg)"));
    }
  }
  if (!have_pipeline) {
    return absl::InvalidArgumentError("reproducer header: no pipeline='...' field");
  }
  return absl::OkStatus();
}

}  // namespace

std::shared_ptr<PassInstrument> MakeReproducerInstrument(ReproducerOptions options,
                                                         std::ostream* diag) {
  return std::make_shared<ReproducerInstrument>(std::move(options), diag);
}

std::string FormatReproducer(const std::string& pipeline, const std::vector<std::string>& args,
                             const std::string& error, const std::string& module_text) {
  std::string out = absl::StrCat(kReproducerMarker, " pipeline=", Quote(pipeline));
  for (const std::string& a : args) absl::StrAppend(&out, " arg=", Quote(a));
  absl::StrAppend(&out, "\n");
  for (absl::string_view line : absl::StrSplit(error, '\n')) {
    absl::StrAppend(&out, "// error: ", line, "\n");
  }
  absl::StrAppend(&out, module_text);
  if (!module_text.empty() && module_text.back() != '\n') out.push_back('\n');
  return out;
}

absl::StatusOr<Reproducer> ParseReproducer(absl::string_view text) {
  absl::string_view marker = kReproducerMarker;
  // The header is the first line that is not blank.
  size_t start = 0;
  while (start < text.size() &&
         (text[start] == '\n' || text[start] == '\r' || text[start] == ' ')) {
    ++start;
  }
  size_t end = text.find('\n', start);
  absl::string_view first =
      text.substr(start, end == absl::string_view::npos ? absl::string_view::npos : end - start);
  if (first.substr(0, marker.size()) != marker) {
    return absl::InvalidArgumentError(
        absl::StrCat("not a reproducer: the first line must start with '", marker, "'"));
  }
  Reproducer r;
  absl::Status s = ParseHeader(first.substr(marker.size()), &r);
  if (!s.ok()) return s;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (line.substr(0, 10) == "// error: ") {
      absl::StrAppend(&r.error, r.error.empty() ? "" : "\n", line.substr(10));
    }
  }
  r.module_text = std::string(text);
  return r;
}

}  // namespace tessel::passes
