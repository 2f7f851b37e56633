// Writes the library the C ABI test loads: the signatures of a .tsl file, the
// hand-written kernel object that implements them, through ExportLibrary.
//
//   export_kernels kernels.tsl out/kernels.so kernels.c.o   -> out/kernels.so, out/kernels.h
#include <fstream>
#include <iostream>
#include <sstream>

#include "codegen/runtime/export_library.h"
#include "codegen/runtime/func_signature.h"
#include "ir/parser.h"

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: export_kernels <functions.tsl> <library.so> <object>...\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) {
    std::cerr << "cannot read " << argv[1] << "\n";
    return 1;
  }
  absl::StatusOr<tessel::ir::IRModule> mod = tessel::ir::ParseModule(text.str(), argv[1]);
  if (!mod.ok()) {
    std::cerr << mod.status().message() << "\n";
    return 1;
  }
  absl::StatusOr<std::vector<tessel::runtime::FunctionSignature>> sigs =
      tessel::runtime::SignaturesOf(*mod);
  if (!sigs.ok()) {
    std::cerr << sigs.status().message() << "\n";
    return 1;
  }
  std::vector<std::string> objects(argv + 3, argv + argc);
  absl::Status s = tessel::runtime::ExportLibrary(objects, *sigs, argv[2]);
  if (!s.ok()) {
    std::cerr << s.message() << "\n";
    return 1;
  }
  return 0;
}
