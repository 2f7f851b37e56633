// Loading an exported library (see library_module.h).
#include "codegen/runtime/library_module.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "codegen/runtime/cpu_features.h"
#include "codegen/runtime/shared_object_check.h"

namespace tessel::runtime {
namespace {

// Larger than any kernel library; a bound so that a wrong path (a disk image, a
// device) is refused rather than read into memory.
constexpr int64_t kMaxLibraryBytes = int64_t{1} << 30;

std::string ErrnoText() { return std::strerror(errno); }

// The whole file at `path`, or "" with `*error` set.
bool ReadWholeFile(const std::string& path, std::string* out, std::string* error) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = "cannot open: " + ErrnoText();
    return false;
  }
  struct stat st;
  bool ok = fstat(fd, &st) == 0;
  if (!ok) {
    *error = "cannot stat: " + ErrnoText();
  } else if (!S_ISREG(st.st_mode)) {
    *error = "not a regular file";
    ok = false;
  } else if (st.st_size > kMaxLibraryBytes) {
    *error = "the file has " + std::to_string(st.st_size) + " bytes, more than a library's " +
             std::to_string(kMaxLibraryBytes);
    ok = false;
  }
  if (ok) {
    out->resize(static_cast<size_t>(st.st_size));
    size_t done = 0;
    while (ok && done < out->size()) {
      ssize_t n = read(fd, out->data() + done, out->size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        *error = n == 0 ? "the file shrank while it was read" : "cannot read: " + ErrnoText();
        ok = false;
      } else {
        done += static_cast<size_t>(n);
      }
    }
  }
  close(fd);
  return ok;
}

// Writes `bytes` to a new file of a name no other load in this process uses, which
// the caller dlopens and then unlinks. dlopen returns an object already loaded from
// the same path without reading the file again, so loading the file's own path after
// it was re-exported would run the old code; a private copy always runs what the file
// holds now, and its bytes are the ones that were checked. The copy is a hidden file
// in `dir`.
bool WritePrivateCopyIn(const std::string& dir, const std::string& bytes, std::string* copy_path,
                        std::string* error) {
  static std::atomic<uint64_t> counter{0};
  std::string pattern = dir + "/.tessel-lib-" + std::to_string(getpid()) + "-" +
                        std::to_string(counter.fetch_add(1)) + "-XXXXXX.so";
  int fd = mkostemps(pattern.data(), 3, O_CLOEXEC);
  if (fd < 0) {
    *error = "cannot create a private copy in " + dir + ": " + ErrnoText();
    return false;
  }
  size_t done = 0;
  bool ok = true;
  while (ok && done < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *error = "cannot write a private copy in " + dir + ": " + ErrnoText();
      ok = false;
    } else {
      done += static_cast<size_t>(n);
    }
  }
  if (close(fd) != 0 && ok) {
    *error = "cannot write a private copy in " + dir + ": " + ErrnoText();
    ok = false;
  }
  if (!ok) {
    unlink(pattern.c_str());
    return false;
  }
  *copy_path = std::move(pattern);
  return true;
}

// The private copy goes beside the library when its directory is writable, so that
// `$ORIGIN` in the library's RUNPATH (export_library.h) names the directory the
// library and its bundled runtime lie in. Otherwise it goes into a new directory of
// its own under $TMPDIR (or /tmp), mode 0700: `$ORIGIN` then finds nothing (never a
// library someone else put in /tmp) and the RUNPATH's other entries must. `dir` is
// that directory ("" beside the library), to remove after loading.
bool WritePrivateCopy(const std::string& path, const std::string& bytes, std::string* copy_path,
                      std::string* dir, std::string* error) {
  size_t slash = path.rfind('/');
  std::string own = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  std::string ignored;
  dir->clear();
  if (WritePrivateCopyIn(own, bytes, copy_path, &ignored)) return true;
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/tessel-lib-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    *error = "cannot create a private directory for a copy: " + ErrnoText();
    return false;
  }
  if (!WritePrivateCopyIn(pattern, bytes, copy_path, error)) {
    rmdir(pattern.c_str());
    return false;
  }
  *dir = pattern;
  return true;
}

}  // namespace

std::unique_ptr<LibraryModule> LibraryModule::Load(const std::string& path, std::string* error) {
  std::unique_ptr<LibraryModule> lib(new LibraryModule());
  lib->path_ = path;
  // A path names a file: a bare name is the file in the current directory, never a
  // search of the library path.
  std::string bytes, why;
  if (!ReadWholeFile(path, &bytes, &why)) {
    *error = "cannot load " + path + ": " + why;
    return nullptr;
  }
  if (why = CheckSharedObject(bytes); !why.empty()) {
    *error = "cannot load " + path + ": " + why;
    return nullptr;
  }
  std::string copy, copy_dir;
  if (!WritePrivateCopy(path, bytes, &copy, &copy_dir, &why)) {
    *error = "cannot load " + path + ": " + why;
    return nullptr;
  }
  dlerror();
  lib->handle_ = dlopen(copy.c_str(), RTLD_NOW | RTLD_LOCAL);
  unlink(copy.c_str());  // Mapped now (or not at all): the name is no longer needed.
  if (!copy_dir.empty()) rmdir(copy_dir.c_str());
  if (lib->handle_ == nullptr) {
    const char* what = dlerror();
    std::string text = what ? what : "dlopen failed";
    // dlopen names the private copy; the caller knows the file by its own path.
    if (size_t at = text.find(copy); at != std::string::npos) text.replace(at, copy.size(), path);
    *error = "cannot load " + path + ": " + text;
    return nullptr;
  }
  using MetadataFn = const char* (*)();
  auto metadata = reinterpret_cast<MetadataFn>(dlsym(lib->handle_, kMetadataSymbol));
  if (metadata == nullptr) {
    *error = path + ": not a tessel library (no " + kMetadataSymbol + " symbol)";
    return nullptr;
  }
  const char* text = metadata();
  std::vector<FunctionSignature> sigs;
  std::vector<std::string> features;
  if (text == nullptr || !ParseSignatures(text, &sigs, &why, &features)) {
    *error = path + ": bad metadata: " + (text ? why : "tessel_module_metadata() returned NULL");
    return nullptr;
  }
  // Loading runs none of the code; a call would stop the process with SIGILL.
  std::string cannot_run;
  if (std::vector<std::string> missing = CpuFeaturesMissing(features); !missing.empty()) {
    std::string names;
    for (const std::string& m : missing) names += (names.empty() ? "" : ", ") + m;
    cannot_run = "refused: " + path + " was compiled for CPU features this machine lacks (" +
                 names + "); export it again for this CPU";
  }
  for (FunctionSignature& sig : sigs) {
    std::string symbol = kPackedPrefix + sig.name;
    auto packed = reinterpret_cast<TesselPackedFunc>(dlsym(lib->handle_, symbol.c_str()));
    if (packed == nullptr) {
      *error = path + ": the metadata lists " + sig.name + " but the library has no " + symbol;
      return nullptr;
    }
    lib->functions_.push_back(Function{std::move(sig), packed, cannot_run});
  }
  std::vector<GraphProgram> graphs;
  if (!ParseGraphPrograms(text, &graphs, &why)) {
    *error = path + ": bad metadata: " + why;
    return nullptr;
  }
  // The library's constants, looked up once, for the first graph that reads any.
  const void* blob = nullptr;
  long long blob_size = -1;
  for (GraphProgram& g : graphs) {
    // Only constants with bytes have them in the library (an empty one has none).
    const bool has_constants =
        std::any_of(g.values.begin(), g.values.end(), [](const GraphProgram::Value& v) {
          return v.role == GraphProgram::kConstant && ConstantBytes(v) != 0;
        });
    if (has_constants) {
      if (blob_size < 0) {
        using ConstantsFn = const void* (*)(long long*);
        auto constants = reinterpret_cast<ConstantsFn>(dlsym(lib->handle_, kConstantsSymbol));
        if (constants == nullptr) {
          *error = path + ": graph " + g.name + " reads constants, but the library has no " +
                   kConstantsSymbol;
          return nullptr;
        }
        blob_size = 0;
        blob = constants(&blob_size);
      }
      if (std::string e = PlaceConstants(&g, blob, blob_size); !e.empty()) {
        *error = path + ": " + e;
        return nullptr;
      }
    }
    if (lib->Find(g.name) != nullptr || lib->FindGraph(g.name) != nullptr) {
      *error = path + ": bad metadata: two functions or graphs named '" + g.name + "'";
      return nullptr;
    }
    auto runner = std::make_unique<GraphRunner>();
    const LibraryModule& m = *lib;
    auto resolve = [&](const std::string& function, GraphRunner::Kernel* out) -> std::string {
      const Function* f = m.Find(function);
      if (f == nullptr) return "the library has no function " + function;
      *out = GraphRunner::Kernel{&f->signature, f->packed, 0, f->cannot_run, {}};
      return "";
    };
    if (std::string e = GraphRunner::Create(std::move(g), resolve, runner.get()); !e.empty()) {
      *error = path + ": " + e;
      return nullptr;
    }
    lib->graphs_.push_back(std::move(runner));
  }
  return lib;
}

const GraphRunner* LibraryModule::FindGraph(std::string_view name) const {
  for (const auto& g : graphs_) {
    if (g->program().name == name) return g.get();
  }
  return nullptr;
}

LibraryModule::~LibraryModule() {
  if (handle_ != nullptr) dlclose(handle_);
}

const LibraryModule::Function* LibraryModule::Find(std::string_view name) const {
  for (const Function& f : functions_) {
    if (f.signature.name == name) return &f;
  }
  return nullptr;
}

std::string LibraryModule::NotFoundMessage(std::string_view name) const {
  std::string names;
  for (const Function& f : functions_) names += (names.empty() ? "" : ", ") + f.signature.name;
  return "no function '" + std::string(name) + "' in " + path_ +
         " (it has: " + (names.empty() ? "none" : names) + ")";
}

namespace {
void AnAddressInTheRuntime() {}
}  // namespace

std::string RuntimeLibraryFile() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&AnAddressInTheRuntime), &info) == 0 ||
      info.dli_fname == nullptr) {
    return "";
  }
  return info.dli_fname;
}

}  // namespace tessel::runtime
