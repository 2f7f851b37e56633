// Writes the library the C ABI test loads: the lowered functions of a .tsl file
// compiled by tessel for the host (codegen's EmitObject) and exported with their
// signatures (ExportModule), next to the generated header.
//
//   export_kernels kernels.tsl [more.tsl ...] out/kernels.so   -> out/kernels.so, out/kernels.h
//   export_kernels --pipeline=legalize,...,lower model.tsl out/model.so
//       (runs the pipeline first: a module with graph functions becomes a library
//       whose graphs C runs whole with tessel_graph_run)
#include <fstream>
#include <iostream>
#include <sstream>
#include <utility>
#include <vector>

#include "codegen/emit.h"
#include "codegen/runtime/export_library.h"
#include "codegen/target.h"
#include "ir/parser.h"
#include "passes/pass_manager.h"
#include "passes/pipeline.h"

namespace {

int Fail(const absl::Status& s) {
  std::cerr << "export_kernels: " << s.message() << "\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string pipeline;
  int first = 1;
  if (argc > 1 && std::string(argv[1]).rfind("--pipeline=", 0) == 0) {
    pipeline = std::string(argv[1]).substr(11);
    first = 2;
  }
  if (argc < first + 2) {
    std::cerr << "usage: export_kernels [--pipeline=P] <lowered.tsl>... <library.so>\n";
    return 2;
  }
  std::vector<std::pair<std::string, tessel::ir::PrimFunc>> functions;
  std::vector<std::pair<std::string, tessel::ir::GraphFunc>> graphs;
  std::vector<std::pair<std::string, tessel::ir::HostBuffer>> constants;
  for (int i = first; i + 1 < argc; ++i) {
    std::ifstream in(argv[i]);
    std::stringstream text;
    text << in.rdbuf();
    if (!in) return Fail(absl::NotFoundError(std::string("cannot read ") + argv[i]));
    absl::StatusOr<tessel::ir::IRModule> mod = tessel::ir::ParseModule(text.str(), argv[i]);
    if (!mod.ok()) return Fail(mod.status());
    for (const auto& f : (*mod)->functions) functions.push_back(f);
    for (const auto& g : (*mod)->graph_functions) graphs.push_back(g);
    for (const auto& c : (*mod)->constants) constants.push_back(c);
  }
  absl::StatusOr<tessel::ir::IRModule> mod = tessel::ir::MakeIRModuleChecked(
      std::move(functions), std::move(graphs), std::move(constants));
  if (!mod.ok()) return Fail(mod.status());
  if (!pipeline.empty()) {
    absl::StatusOr<tessel::passes::PassPtr> pass = tessel::passes::ParsePipeline(pipeline);
    if (!pass.ok()) return Fail(pass.status());
    mod = tessel::passes::RunPipeline(**pass, *mod);
    if (!mod.ok()) return Fail(mod.status());
  }
  absl::StatusOr<tessel::codegen::Target> target = tessel::codegen::Target::Parse("llvm");
  if (!target.ok()) return Fail(target.status());
  absl::StatusOr<std::string> object = tessel::codegen::EmitObject(*mod, *target);
  if (!object.ok()) return Fail(object.status());
  absl::Status s = tessel::runtime::ExportModule(*mod, *object, argv[argc - 1]);
  return s.ok() ? 0 : Fail(s);
}
