// The emission API (emit.h): each stage of the path to machine code.
#include "codegen/emit.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "codegen/llvm_module.h"
#include "ir/status_macros.h"
#include "llvm/Support/raw_ostream.h"

namespace tessel::codegen {

absl::StatusOr<std::string> EmitMLIR(const ir::IRModule& mod, const Target& target,
                                     bool llvm_dialect) {
  return TranslateToMLIRText(mod, target, llvm_dialect);
}

absl::StatusOr<std::string> EmitLLVMIR(const ir::IRModule& mod, const Target& target) {
  llvm::LLVMContext ctx;
  TESSEL_ASSIGN_OR_RETURN(std::unique_ptr<llvm::Module> m, CompileToOptimizedModule(mod, target, &ctx));
  std::string text;
  llvm::raw_string_ostream os(text);
  m->print(os, nullptr);
  os.flush();
  return text;
}

static absl::StatusOr<std::string> Emit(const ir::IRModule& mod, const Target& target,
                                        MachineCodeKind kind) {
  llvm::LLVMContext ctx;
  TESSEL_ASSIGN_OR_RETURN(std::unique_ptr<llvm::Module> m, LowerToLLVMModule(mod, target, &ctx));
  TESSEL_ASSIGN_OR_RETURN(std::unique_ptr<llvm::TargetMachine> tm, CreateTargetMachine(target));
  TESSEL_RETURN_IF_ERROR(OptimizeModule(m.get(), tm.get()));
  return EmitMachineCode(m.get(), tm.get(), kind);
}

absl::StatusOr<std::string> EmitAssembly(const ir::IRModule& mod, const Target& target) {
  return Emit(mod, target, MachineCodeKind::kAssembly);
}

absl::StatusOr<std::string> EmitObject(const ir::IRModule& mod, const Target& target) {
  return Emit(mod, target, MachineCodeKind::kObject);
}

absl::Status WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  f.close();
  if (!f) return absl::UnavailableError(absl::StrCat("cannot write '", path, "'"));
  return absl::OkStatus();
}

absl::Status WriteSharedLibrary(const ir::IRModule& mod, const Target& target,
                                const std::string& path) {
  TESSEL_ASSIGN_OR_RETURN(std::string object, EmitObject(mod, target));
  char tmpl[] = "/tmp/tessel-objXXXXXX";
  int fd = mkstemp(tmpl);
  if (fd < 0) return absl::UnavailableError("cannot create a temporary object file in /tmp");
  close(fd);
  std::string obj_path = tmpl;
  absl::Status s = WriteFile(obj_path, object);
  if (s.ok()) {
    // Single quotes keep the paths literal for the shell.
    auto quote = [](const std::string& p) {
      std::string q = "'";
      for (char c : p) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
      return q + "'";
    };
    std::string cmd = absl::StrCat("cc -shared -o ", quote(path), " ", quote(obj_path), " 2>&1");
    FILE* pipe = popen(cmd.c_str(), "r");
    std::string out;
    if (pipe == nullptr) {
      s = absl::UnavailableError("cannot run the C compiler 'cc' to link the shared library");
    } else {
      char buf[256];
      while (fgets(buf, sizeof buf, pipe) != nullptr) out += buf;
      int rc = pclose(pipe);
      if (rc != 0) s = absl::UnavailableError(absl::StrCat("linking '", path, "' failed: ", cmd, "\n", out));
    }
  }
  std::remove(obj_path.c_str());
  return s;
}

}  // namespace tessel::codegen
