// AOT export (see export_library.h).
#include "codegen/runtime/export_library.h"

#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codegen/runtime/cuda_program.h"
#include "codegen/runtime/func_signature.h"
#include "codegen/runtime/graph_executor.h"
#include "codegen/runtime/library_module.h"
#include "ir/visitor.h"

#ifndef TESSEL_RUNTIME_LIBRARY_DIR
#define TESSEL_RUNTIME_LIBRARY_DIR ""
#endif

namespace tessel::runtime {
namespace {

namespace fs = std::filesystem;

// A C identifier from a file stem: "my-kernels.v2" -> "my_kernels_v2".
std::string Identifier(std::string_view s) {
  std::string id;
  for (char c : s) id += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (id.empty() || std::isdigit(static_cast<unsigned char>(id[0]))) id = "lib_" + id;
  return id;
}

// Parameter names become C parameters; a keyword gets a trailing underscore.
std::string CName(const std::string& name) {
  static const std::set<std::string> kKeywords = {
      "auto",     "break",  "case",   "char",     "const",    "continue", "default",  "do",
      "double",   "else",   "enum",   "extern",   "float",    "for",      "goto",     "if",
      "inline",   "int",    "long",   "register", "restrict", "return",   "short",    "signed",
      "sizeof",   "static", "struct", "switch",   "typedef",  "union",    "unsigned", "void",
      "volatile", "while",  "bool",   "true",     "false"};
  return kKeywords.count(name) ? name + "_" : name;
}

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// Single-quoted for /bin/sh.
std::string ShellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string ParamDoc(const ParamSignature& p) {
  if (!p.is_buffer) {
    return absl::StrCat(" *   ", CName(p.name), ": a 0-d DLTensor holding one ",
                        DTypeToString(p.dtype), ".\n");
  }
  return absl::StrCat(" *   ", DescribeParam(p),
                      " on the CPU, dense row-major (strides NULL or compact),\n"
                      " *      data + byte_offset 64-byte aligned.\n");
}

absl::Status RunCommand(const std::string& command) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return absl::InternalError(absl::StrCat("cannot run: ", command));
  std::string output;
  char chunk[4096];
  size_t n;
  while ((n = fread(chunk, 1, sizeof(chunk), pipe)) > 0) output.append(chunk, n);
  int status = pclose(pipe);
  if (status == 0) return absl::OkStatus();
  std::string how = WIFEXITED(status) ? absl::StrCat("exit status ", WEXITSTATUS(status))
                                      : std::string("abnormal termination");
  return absl::InternalError(
      absl::StrCat("export_library: the link command failed (", how, "): ", command, "\n", output));
}

// A fresh directory under the system's temporary directory.
absl::StatusOr<fs::path> MakeTempDir() {
  std::string pattern = (fs::temp_directory_path() / "tessel_export_XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    return absl::InternalError("export_library: cannot create a temporary directory");
  }
  return fs::path(pattern);
}

// Whether two paths name one file: the same path once normalised, or, for files that
// exist, the same inode (a hard or symbolic link).
bool SameFile(const fs::path& a, const fs::path& b) {
  std::error_code ec1, ec2;
  fs::path ca = fs::weakly_canonical(fs::absolute(a, ec1), ec1);
  fs::path cb = fs::weakly_canonical(fs::absolute(b, ec2), ec2);
  if (!ec1 && !ec2 && ca == cb) return true;
  std::error_code ec;
  return fs::exists(a, ec) && fs::exists(b, ec) && fs::equivalent(a, b, ec) && !ec;
}

absl::Status WriteFile(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out)
    return absl::InternalError(absl::StrCat("export_library: cannot write ", path.string()));
  return absl::OkStatus();
}

// Copies lib<name>.so of each runtime library from `from` into the directory of
// `library` (through a temporary file renamed over the old one: a process that has
// the old copy mapped keeps its inode intact).
absl::Status BundleRuntime(const std::vector<std::string>& names, const std::string& from,
                           const fs::path& library) {
  fs::path dir = fs::absolute(library).parent_path();
  for (const std::string& name : names) {
    fs::path src = fs::path(from) / ("lib" + name + ".so");
    fs::path dst = dir / src.filename();
    if (SameFile(src, dst)) continue;
    // A name of its own: two exports into one directory may bundle at once.
    static std::atomic<uint64_t> counter{0};
    fs::path tmp = dir / absl::StrCat(".", src.filename().string(), ".", getpid(), ".",
                                      counter.fetch_add(1), ".tessel-tmp");
    std::error_code ec;
    fs::copy_file(src, tmp, fs::copy_options::overwrite_existing, ec);
    if (!ec) fs::rename(tmp, dst, ec);
    if (ec) {
      std::string why = ec.message();
      fs::remove(tmp, ec);
      return absl::InternalError(absl::StrCat("export_library: cannot copy ", src.string(),
                                              " beside the library (bundle_runtime): ", why));
    }
  }
  return absl::OkStatus();
}

// A file's bytes in read-only data as the hidden array `symbol`, 64-byte aligned, by
// .incbin (a C array initializer of megabytes of weights would be slow to compile).
std::string IncbinSource(const std::string& symbol, const std::string& file) {
  return absl::StrCat("__asm__(\".section .rodata.", symbol,
                      ",\\\"a\\\",@progbits\\n\"\n"
                      "        \".balign 64\\n\"\n"
                      "        \".globl ",
                      symbol,
                      "\\n\"\n"
                      "        \".hidden ",
                      symbol,
                      "\\n\"\n"
                      "        \"",
                      symbol,
                      ":\\n\"\n"
                      "        \".incbin \\\"",
                      file,
                      "\\\"\\n\"\n"
                      "        \".previous\\n\");\n"
                      "extern const unsigned char ",
                      symbol, "[] __attribute__((visibility(\"hidden\")));\n");
}

// The graphs' constants, read by tessel_module_load.
std::string ConstantsSource(const std::string& file, int64_t bytes) {
  return absl::StrCat("\n/* The graph constants (weights), read by tessel_module_load. */\n",
                      IncbinSource("tessel_constants_blob", file), "const void* ", kConstantsSymbol,
                      "(long long* size) {\n  *size = ", bytes,
                      "LL;\n  return tessel_constants_blob;\n}\n");
}

// The GPU program's PTX and launch manifest (files ending in a NUL), read by
// tessel_cuda_program_load.
std::string CudaSource(const std::string& ptx_file, const std::string& manifest_file) {
  return absl::StrCat(
      "\n/* The GPU program: PTX and launch manifest, read by tessel_cuda_program_load. */\n",
      IncbinSource("tessel_cuda_ptx_blob", ptx_file),
      IncbinSource("tessel_cuda_manifest_blob", manifest_file), "const char* ", kCudaPtxSymbol,
      "(void) { return (const char*)tessel_cuda_ptx_blob; }\n", "const char* ", kCudaManifestSymbol,
      "(void) { return (const char*)tessel_cuda_manifest_blob; }\n");
}

// `static inline int32_t fn(<handle>, DLTensor* A, ...)` calling `call(handle,
// "name", args, n)`: a header's wrapper of one function.
void WriteCallWrapper(std::ostream& os, const std::string& fn, const FunctionSignature& sig,
                      const std::string& handle, const std::string& call) {
  const size_t n = sig.params.size();
  const std::string handle_name = handle.substr(handle.rfind(' ') + 1);
  os << "static inline int32_t " << fn << "(" << handle;
  for (const ParamSignature& p : sig.params) os << ", DLTensor* " << CName(p.name);
  os << ") {\n";
  std::vector<std::string> names;
  for (const ParamSignature& p : sig.params) names.push_back(CName(p.name));
  os << "  DLTensor* tessel_args_[" << (n ? n : 1) << "] = {"
     << (n ? absl::StrJoin(names, ", ") : "0") << "};\n";
  os << "  return " << call << "(" << handle_name << ", \"" << sig.name << "\", tessel_args_, " << n
     << ");\n}\n";
}

}  // namespace

std::string DefaultRuntimeLibraryDir() {
  const std::string file = RuntimeLibraryFile();
  if (!file.empty() && file[0] == '/') {
    std::error_code ec;  // "/opt/tessel/bin/../lib/libtessel_runtime.so" -> "/opt/tessel/lib".
    fs::path dir = fs::weakly_canonical(fs::path(file).parent_path(), ec);
    if (!ec) return dir.string();
  }
  return TESSEL_RUNTIME_LIBRARY_DIR;
}

absl::StatusOr<std::string> PackConstants(std::vector<GraphProgram>* graphs) {
  std::string blob;
  std::map<const void*, int64_t> placed;  // One copy of bytes graphs share.
  for (GraphProgram& g : *graphs) {
    for (GraphProgram::Value& v : g.values) {
      if (v.role != GraphProgram::kConstant) continue;
      const int64_t bytes = ConstantBytes(v);
      if (bytes < 0 || (bytes > 0 && v.data == nullptr)) {
        return absl::InvalidArgumentError(absl::StrCat("export_library: graph ", g.name,
                                                       ": constant '", v.name, "' has no data"));
      }
      auto [it, fresh] = placed.emplace(v.data, static_cast<int64_t>(blob.size()));
      v.offset = it->second;
      if (!fresh) continue;
      if (bytes > 0) blob.append(static_cast<const char*>(v.data), static_cast<size_t>(bytes));
      blob.resize((blob.size() + kArgumentAlignment - 1) / kArgumentAlignment * kArgumentAlignment);
    }
  }
  return blob;
}

std::string MetadataSource(const std::vector<FunctionSignature>& signatures,
                           const std::vector<std::string>& cpu_features,
                           const std::vector<GraphProgram>& graphs,
                           const std::string& constants_file, int64_t constants_bytes) {
  std::string text = SerializeSignatures(signatures, cpu_features) + SerializeGraphPrograms(graphs);
  std::string literal;
  for (char c : text) {
    if (c == '\n')
      literal += "\\n\"\n    \"";
    else if (c == '"' || c == '\\')
      literal += std::string("\\") + c;
    else
      literal += c;
  }
  return absl::StrCat(
      "/* Generated by tessel export_library: the signatures of this library's functions,\n"
      " * read by tessel_module_load (see codegen/runtime/signature.h for the format). */\n"
      "const char* ",
      kMetadataSymbol, "(void) {\n  return \"", literal, "\";\n}\n",
      constants_file.empty() ? "" : ConstantsSource(constants_file, constants_bytes));
}

std::string HeaderSource(const std::vector<FunctionSignature>& signatures,
                         const std::string& prefix, const std::vector<GraphProgram>& graphs,
                         const std::vector<FunctionSignature>& cuda_functions) {
  std::string guard = Upper(absl::StrCat("TESSEL_GENERATED_", prefix, "_H_"));
  std::ostringstream os;
  os << "/* Generated by tessel export_library. Calls into the library it was written with:\n"
     << " *\n"
     << " *   TesselModule* m = tessel_module_load(\"path/to/the/library.so\");\n"
     << " *   if (!m || " << prefix << "_<function>(m, ...) != 0)\n"
     << " *     fprintf(stderr, \"%s\\n\", tessel_last_error());\n"
     << " *\n"
     << " * Every argument is a DLTensor*, checked (dtype, shape, strides, alignment, device)\n"
     << " * before the kernel runs; a wrong one returns non-zero and tessel_last_error() names\n"
     << " * it. Needs tessel_runtime.h on the include path and -ltessel_runtime. */\n"
     << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include \"tessel_runtime.h\"\n"
     << (cuda_functions.empty() ? "" : "#include \"tessel_cuda.h\"\n") << "\n"
     << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n";
  for (const FunctionSignature& sig : signatures) {
    std::string fn = absl::StrCat(prefix, "_", sig.name);
    size_t n = sig.params.size();
    os << "\n/* " << DescribeSignature(sig) << "\n";
    for (const ParamSignature& p : sig.params) os << ParamDoc(p);
    os << " * Returns 0, or non-zero with tessel_last_error() set. */\n";
    os << "#define " << Upper(fn) << "_NUM_ARGS " << n << "\n";
    WriteCallWrapper(os, fn, sig, "TesselModule* tessel_module_", "tessel_module_call");
  }
  for (const GraphProgram& g : graphs) {
    const FunctionSignature sig = g.CallSignature();
    std::string fn = absl::StrCat(prefix, "_", g.name);
    const size_t n_in = g.num_inputs, n_out = g.results.size();
    os << "\n/* Graph function " << DescribeSignature(sig) << ": a whole model.\n";
    for (size_t i = 0; i < sig.params.size(); ++i) {
      os << (i < n_in ? " * in  " : " * out ") << ParamDoc(sig.params[i]).substr(3);
    }
    os << " * Outputs are allocated by the caller. Returns 0, or non-zero with\n"
       << " * tessel_last_error() set. */\n";
    os << "static inline int32_t " << fn << "(TesselModule* tessel_module_";
    for (const ParamSignature& p : sig.params) os << ", DLTensor* " << CName(p.name);
    os << ") {\n";
    std::vector<std::string> ins, outs;
    for (size_t i = 0; i < sig.params.size(); ++i)
      (i < n_in ? ins : outs).push_back(CName(sig.params[i].name));
    os << "  DLTensor* tessel_in_[" << (n_in ? n_in : 1) << "] = {"
       << (n_in ? absl::StrJoin(ins, ", ") : "0") << "};\n";
    os << "  DLTensor* tessel_out_[" << n_out << "] = {" << absl::StrJoin(outs, ", ") << "};\n";
    os << "  return tessel_graph_run(tessel_module_, \"" << g.name << "\", tessel_in_, " << n_in
       << ", tessel_out_, " << n_out << ");\n}\n";
  }
  for (const FunctionSignature& sig : cuda_functions) {
    std::string fn = absl::StrCat(prefix, "_", sig.name);
    os << "\n/* GPU function " << DescribeSignature(sig) << "\n";
    for (const ParamSignature& p : sig.params) os << ParamDoc(p);
    os << " * Host tensors, copied to the device and back. From\n"
       << " * tessel_cuda_program_load(\"path/to/the/library.so\"). Returns 0, or non-zero\n"
       << " * with tessel_last_error() set. */\n";
    WriteCallWrapper(os, fn, sig, "TesselCudaProgram* tessel_program_", "tessel_cuda_program_call");
  }
  os << "\n#ifdef __cplusplus\n}\n#endif\n\n#endif /* " << guard << " */\n";
  return os.str();
}

absl::Status ExportLibrary(const std::vector<std::string>& object_files,
                           const std::vector<FunctionSignature>& signatures,
                           const std::string& library_path, const ExportOptions& options) {
  std::set<std::string> names;
  for (const FunctionSignature& sig : signatures) {
    if (std::string why = ValidateSignature(sig); !why.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("export_library: ", why));
    }
    if (!names.insert(sig.name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("export_library: two functions named ", sig.name));
    }
  }
  for (const GraphProgram& g : options.graphs) {
    if (std::string why = ValidateGraphProgram(g); !why.empty())
      return absl::InvalidArgumentError(absl::StrCat("export_library: ", why));
    if (!names.insert(g.name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("export_library: a graph function and a function are both named ", g.name));
    }
    for (const GraphProgram::Kernel& k : g.kernels) {
      if (std::none_of(signatures.begin(), signatures.end(),
                       [&](const FunctionSignature& s) { return s.name == k.function; })) {
        return absl::InvalidArgumentError(absl::StrCat("export_library: graph ", g.name, " calls ",
                                                       k.function,
                                                       ", which the library does not export"));
      }
    }
  }
  // The GPU program's functions, for the header (and its manifest checked now).
  std::vector<FunctionSignature> cuda_functions;
  if (!options.cuda_manifest.empty()) {
    CudaProgram program;
    if (std::string e = CudaProgram::Parse(options.cuda_ptx, options.cuda_manifest, &program);
        !e.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("export_library: ", e));
    }
    for (const CudaFunction& f : program.functions()) {
      if (!names.insert(f.signature.name).second) {
        return absl::InvalidArgumentError(
            absl::StrCat("export_library: two functions named ", f.signature.name));
      }
      cuda_functions.push_back(f.signature);
    }
  }
  for (const std::string& obj : object_files) {
    std::error_code ec;
    if (!fs::is_regular_file(obj, ec)) {
      return absl::NotFoundError(absl::StrCat("export_library: no object file ", obj));
    }
  }
  fs::path lib(library_path);
  if (lib.filename().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("export_library: '", library_path, "' names no file"));
  }
  fs::path header = options.header_path.empty() ? fs::path(lib).replace_extension(".h")
                                                : fs::path(options.header_path);
  std::string prefix = options.header_prefix.empty() ? Identifier(lib.stem().string())
                                                     : Identifier(options.header_prefix);
  // One output written over another (`header_path=` the library, or a library named
  // `k.h` whose default header is itself) would leave a header where the library
  // should be and report success; an object overwritten by the link is lost.
  if (SameFile(header, lib)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "export_library: the header path '", header.string(), "' is the library path '",
        library_path, "'; give a header_path of its own"));
  }
  for (const std::string& obj : object_files) {
    if (SameFile(obj, lib) || SameFile(obj, header)) {
      return absl::InvalidArgumentError(absl::StrCat("export_library: the object file '", obj,
                                                     "' would be overwritten by the output"));
    }
  }

  // The metadata source goes next to the library under a unique name, removed after.
  absl::StatusOr<fs::path> dir = MakeTempDir();
  if (!dir.ok()) return dir.status();
  fs::path tmp = *dir;
  fs::path metadata_c = tmp / "tessel_metadata.c";
  std::vector<GraphProgram> graphs = options.graphs;
  absl::StatusOr<std::string> constants = PackConstants(&graphs);
  absl::Status status = constants.status();
  fs::path constants_bin = tmp / "tessel_constants.bin";
  if (status.ok() && constants_bin.string().find_first_of("\"\\\n") != std::string::npos) {
    status = absl::InvalidArgumentError(
        absl::StrCat("export_library: the temporary directory ", tmp.string(),
                     " has a quote, backslash or newline in its path, which .incbin cannot name"));
  }
  if (status.ok() && !constants->empty()) status = WriteFile(constants_bin, *constants);
  std::string metadata;
  if (status.ok()) {
    metadata = MetadataSource(signatures, options.cpu_features, graphs,
                              constants->empty() ? "" : constants_bin.string(),
                              static_cast<int64_t>(constants->size()));
  }
  if (status.ok() && !options.cuda_manifest.empty()) {
    const fs::path ptx = tmp / "tessel_cuda.ptx", manifest = tmp / "tessel_cuda.json";
    status = WriteFile(ptx, options.cuda_ptx + std::string(1, '\0'));
    if (status.ok()) status = WriteFile(manifest, options.cuda_manifest + std::string(1, '\0'));
    absl::StrAppend(&metadata, CudaSource(ptx.string(), manifest.string()));
  }
  if (status.ok()) status = WriteFile(metadata_c, metadata);
  if (status.ok()) {
    std::string compiler = options.compiler;
    if (compiler.empty()) {
      const char* env = std::getenv("TESSEL_CC");
      compiler = env && *env ? env : "cc";
    }
    std::string runtime_dir = options.runtime_library_dir.empty() ? DefaultRuntimeLibraryDir()
                                                                  : options.runtime_library_dir;
    std::string command =
        absl::StrCat(ShellQuote(compiler), " -shared -fPIC -O2 -o ", ShellQuote(library_path), " ",
                     ShellQuote(metadata_c.string()));
    for (const std::string& obj : object_files) absl::StrAppend(&command, " ", ShellQuote(obj));
    // RUNPATH, not RPATH: LD_LIBRARY_PATH still overrides it.
    std::string runpath = "$ORIGIN";
    if (!runtime_dir.empty()) {
      absl::StrAppend(&command, " ", ShellQuote("-L" + runtime_dir));
      if (!options.bundle_runtime) absl::StrAppend(&runpath, ":", runtime_dir);
    }
    absl::StrAppend(&command, " ", ShellQuote("-Wl,--enable-new-dtags,-rpath," + runpath));
    for (const std::string& name : options.runtime_libraries) {
      absl::StrAppend(&command, " ", ShellQuote("-l" + name));
    }
    absl::StrAppend(&command, " -lm");
    for (const std::string& flag : options.extra_flags)
      absl::StrAppend(&command, " ", ShellQuote(flag));
    status = RunCommand(command);
    // Only once the library links: a failed export leaves no copies behind.
    if (status.ok() && options.bundle_runtime) {
      status = BundleRuntime(options.runtime_libraries, runtime_dir, lib);
    }
  }
  if (status.ok()) {
    // Catch a missing entry point now rather than in the program that loads it.
    std::string error;
    if (!LibraryModule::Load(library_path, &error)) {
      status = absl::InvalidArgumentError(
          absl::StrCat("export_library: the written library does not load: ", error));
    }
  }
  if (status.ok()) {
    status = WriteFile(header, HeaderSource(signatures, prefix, options.graphs, cuda_functions));
  }
  std::error_code ec;
  fs::remove_all(tmp, ec);
  return status;
}

namespace {

// Packed calls of the dispatch shims (`@tessel_onednn_matmul(...): packed`) need
// libtessel_dispatch_runtime, which sits beside libtessel_runtime.
class ShimCalls : public ir::IRVisitor {
 public:
  bool found = false;
  void VisitCall(const ir::CallNode* op) override {
    if (op->callee == ir::CallNode::Callee::kPacked && op->name.rfind("tessel_", 0) == 0)
      found = true;
    IRVisitor::VisitCall(op);
  }
};

}  // namespace

absl::Status ExportModule(const ir::IRModule& mod, const std::string& object_code,
                          const std::string& library_path, const ExportOptions& given) {
  ExportOptions options = given;
  ShimCalls shims;
  for (const auto& [name, func] : mod->functions) shims.VisitStmt(func->body);
  if (shims.found) options.runtime_libraries.push_back("tessel_dispatch_runtime");
  absl::StatusOr<std::vector<FunctionSignature>> sigs = SignaturesOf(mod);
  if (!sigs.ok()) return sigs.status();
  for (const auto& [name, g] : mod->graph_functions) {
    absl::StatusOr<GraphProgram> program = GraphProgramOf(mod, name);
    if (!program.ok()) {
      return absl::Status(program.status().code(),
                          absl::StrCat("export_library: ", program.status().message()));
    }
    options.graphs.push_back(*std::move(program));
  }
  absl::StatusOr<fs::path> dir = MakeTempDir();
  if (!dir.ok()) return dir.status();
  fs::path object = *dir / "tessel_kernels.o";
  absl::Status status = WriteFile(object, object_code);
  if (status.ok()) status = ExportLibrary({object.string()}, *sigs, library_path, options);
  std::error_code ec;
  fs::remove_all(*dir, ec);
  return status;
}

}  // namespace tessel::runtime
