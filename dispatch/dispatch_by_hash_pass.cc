// dispatch-by-hash: replaces functions that are structurally equal to an entry of
// a table with that entry's hand-written replacement, for trying a hand-optimised
// kernel in a real pipeline before any rule or schedule produces it.
//
//   table/matmul_64.tsl:   func @original(A: f32[64, 64], ...) { ...the plain matmul... }
//                          func @replacement(A: f32[64, 64], ...) { ...hand-tuned... }
//   tessel-opt model.tsl --pipeline='dispatch-by-hash{table=table},lower'
//
// Each `.tsl` file of the directory holds two functions: the first is what to
// match, the second what to put in its place; both take the same parameters
// (kinds, dtypes, shapes). Matching is by structural hash, then
// structural_equal, never the hash alone; function attributes take no part. A
// replaced function keeps its name and attributes and gets
// `dispatched = "hash:<file>"` and `scheduled = true`.
#include <filesystem>
#include <memory>

#include "absl/strings/str_cat.h"
#include "dispatch/dispatch_rule.h"
#include "ir/parser.h"
#include "ir/structural_equal.h"
#include "ir/structural_hash.h"
#include "passes/pass.h"
#include "passes/pass_context.h"
#include "passes/pass_registry.h"

namespace tessel::dispatch {
namespace {

namespace fs = std::filesystem;
using passes::PassContext;

struct Entry {
  std::string file;
  uint64_t hash;
  ir::PrimFunc original, replacement;
};

ir::PrimFunc WithoutAttrs(const ir::PrimFunc& f) {
  auto out = ir::MakeNode<ir::PrimFuncNode>(*f);
  out->attrs.clear();
  return ir::PrimFunc(std::move(out));
}

// Same parameter kinds, dtypes and shapes.
absl::Status SameSignature(const ir::PrimFunc& a, const ir::PrimFunc& b, const std::string& file) {
  auto fail = [&](const std::string& what) {
    return absl::InvalidArgumentError(absl::StrCat("dispatch-by-hash: '", file,
                                                   "': the replacement's parameters differ from "
                                                   "the original's: ",
                                                   what));
  };
  if (a->params.size() != b->params.size()) {
    return fail(absl::StrCat(a->params.size(), " against ", b->params.size()));
  }
  for (size_t i = 0; i < a->params.size(); ++i) {
    const ir::Param& p = a->params[i];
    const ir::Param& q = b->params[i];
    if (p.is_buffer() != q.is_buffer()) return fail(absl::StrCat("parameter ", i, " kind"));
    if (p.is_buffer()) {
      bool same = p.buffer->dtype == q.buffer->dtype && p.buffer->ndim() == q.buffer->ndim();
      for (int d = 0; same && d < p.buffer->ndim(); ++d) {
        same = ir::StructuralEqual(p.buffer->shape[d], q.buffer->shape[d], {.map_free_vars = true});
      }
      if (!same) return fail(absl::StrCat("buffer '", p.buffer->name, "'"));
    } else if (p.var->dtype != q.var->dtype) {
      return fail(absl::StrCat("scalar '", p.var->name, "'"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Entry>> LoadTable(const std::string& dir) {
  std::error_code ec;
  if (dir.empty() || !fs::is_directory(dir, ec)) {
    return absl::InvalidArgumentError(
        absl::StrCat("dispatch-by-hash: option 'table': '", dir, "' is not a directory"));
  }
  std::vector<fs::path> files;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".tsl") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<Entry> table;
  for (const fs::path& path : files) {
    absl::StatusOr<ir::IRModule> mod = ir::LoadModule(path.string());
    if (!mod.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("dispatch-by-hash: ", mod.status().message()));
    }
    if ((*mod)->functions.size() != 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "dispatch-by-hash: '", path.string(), "' holds ", (*mod)->functions.size(),
          " functions; a table entry is two: the function to match, then its replacement"));
    }
    Entry e{path.filename().string(), 0, WithoutAttrs((*mod)->functions[0].second),
            (*mod)->functions[1].second};
    if (absl::Status s = SameSignature(e.original, e.replacement, e.file); !s.ok()) return s;
    e.hash = ir::StructuralHash(e.original);
    table.push_back(std::move(e));
  }
  return table;
}

class DispatchByHashPass : public passes::FunctionPass {
 public:
  static passes::PassInfo Info() {
    return {.name = "dispatch-by-hash",
            .description =
                "Replaces functions structurally equal to a table entry with its "
                "hand-written replacement",
            .opt_level = 0,
            .required = {},
            .options = {passes::StringOption("table", "",
                                             "Directory of .tsl files, each a function and its "
                                             "replacement")},
            .skips_scheduled = true};
  }

  DispatchByHashPass(passes::PassOptions options, std::vector<Entry> table)
      : FunctionPass(Info(), std::move(options)), table_(std::move(table)) {}

  static absl::StatusOr<passes::PassPtr> Make(passes::PassOptions options) {
    absl::StatusOr<std::vector<Entry>> table = LoadTable(options.GetString("table"));
    if (!table.ok()) return table.status();
    return std::make_shared<const DispatchByHashPass>(std::move(options), *std::move(table));
  }

 protected:
  absl::StatusOr<ir::PrimFunc> RunOnFunction(const ir::PrimFunc& func, const std::string& name,
                                             PassContext& ctx) const override {
    ir::PrimFunc bare = WithoutAttrs(func);
    const uint64_t hash = ir::StructuralHash(bare);
    int collisions = 0;
    for (const Entry& e : table_) {
      if (e.hash != hash) continue;
      if (!ir::StructuralEqual(bare, e.original)) {
        ++collisions;
        continue;
      }
      auto out = ir::MakeNode<ir::PrimFuncNode>(*e.replacement);
      out->attrs = func->attrs;
      out->attrs[kDispatchedAttr] = ir::AttrValue(absl::StrCat("hash:", e.file));
      out->attrs["scheduled"] = ir::AttrValue(true);
      ctx.log().RecordApplied(this->name(), name, e.file);
      return ir::PrimFunc(std::move(out));
    }
    ctx.log().RecordSkipped(
        this->name(), name,
        collisions > 0
            ? absl::StrCat("its hash matches ", collisions, " table entr",
                           collisions == 1 ? "y" : "ies", " that are not structurally equal")
            : std::string("no table entry is structurally equal"));
    return func;
  }

 private:
  std::vector<Entry> table_;
};

const passes::PassRegistrar kRegisterDispatchByHash(DispatchByHashPass::Info(),
                                                    DispatchByHashPass::Make);

}  // namespace
}  // namespace tessel::dispatch
