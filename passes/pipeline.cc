// Building passes from a parsed pipeline. Alias expansion keeps a stack of the
// aliases being expanded so that an alias naming itself is an error, not a hang.
#include "passes/pipeline.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "passes/pass_registry.h"
#include "passes/pipeline_parser.h"
#include "passes/sequential.h"

namespace tessel::passes {

namespace {

class Builder {
 public:
  absl::StatusOr<std::vector<PassPtr>> BuildList(absl::string_view text,
                                                 const std::vector<PipelineElement>& elements) {
    std::vector<PassPtr> out;
    for (const PipelineElement& e : elements) {
      absl::StatusOr<PassPtr> p = Build(text, e);
      if (!p.ok()) return p.status();
      out.push_back(*std::move(p));
    }
    return out;
  }

 private:
  absl::Status ErrorAt(absl::string_view text, size_t offset, absl::string_view message) {
    return absl::InvalidArgumentError(PipelineErrorAt(text, offset, message));
  }

  absl::StatusOr<PassOptions> Options(absl::string_view text, const PipelineElement& e,
                                      const PassInfo& info) {
    PassOptions opts(info.options, info.name);
    for (const PipelineOption& o : e.options) {
      absl::Status s = opts.Set(o.key, o.value);
      if (!s.ok()) return ErrorAt(text, o.offset, s.message());
    }
    return opts;
  }

  absl::StatusOr<PassPtr> Build(absl::string_view text, const PipelineElement& e) {
    const RegistryEntry* entry = PassRegistry::Global().Lookup(e.name);
    if (entry == nullptr) {
      return ErrorAt(text, e.offset, PassRegistry::Global().UnknownNameMessage(e.name));
    }
    switch (entry->kind) {
      case RegistryEntry::Kind::kPass: {
        if (e.has_children) {
          return ErrorAt(
              text, e.offset,
              absl::StrCat("'", e.name, "' is a pass, not a pipeline: it takes no nested passes"));
        }
        absl::StatusOr<PassOptions> opts = Options(text, e, entry->info);
        if (!opts.ok()) return opts.status();
        absl::StatusOr<PassPtr> p = entry->make_pass(*std::move(opts));
        if (!p.ok()) return ErrorAt(text, e.offset, p.status().message());
        return p;
      }
      case RegistryEntry::Kind::kCombinator: {
        if (!e.has_children) {
          return ErrorAt(
              text, e.offset,
              absl::StrCat("'", e.name, "' wraps nested passes: write ", e.name, "(pass,...)"));
        }
        absl::StatusOr<PassOptions> opts = Options(text, e, entry->info);
        if (!opts.ok()) return opts.status();
        absl::StatusOr<std::vector<PassPtr>> children = BuildList(text, e.children);
        if (!children.ok()) return children.status();
        absl::StatusOr<PassPtr> p = entry->make_pipeline(*std::move(opts), *std::move(children));
        if (!p.ok()) return ErrorAt(text, e.offset, p.status().message());
        return p;
      }
      case RegistryEntry::Kind::kAlias:
        return BuildAlias(text, e, *entry);
    }
    return absl::InternalError("unreachable registry kind");
  }

  absl::StatusOr<PassPtr> BuildAlias(absl::string_view text, const PipelineElement& e,
                                     const RegistryEntry& entry) {
    if (!e.options.empty() || e.has_children) {
      return ErrorAt(text, e.offset,
                     absl::StrCat("alias '", e.name, "' (= ", entry.alias_of,
                                  ") takes no options or nested passes"));
    }
    if (std::find(expanding_.begin(), expanding_.end(), e.name) != expanding_.end()) {
      return ErrorAt(text, e.offset, absl::StrCat("alias '", e.name, "' refers to itself"));
    }
    absl::StatusOr<std::vector<PipelineElement>> parsed = ParsePipelineText(entry.alias_of);
    if (!parsed.ok()) {
      return ErrorAt(text, e.offset,
                     absl::StrCat("in alias '", e.name, "': ", parsed.status().message()));
    }
    expanding_.push_back(e.name);
    absl::StatusOr<std::vector<PassPtr>> children = BuildList(entry.alias_of, *parsed);
    expanding_.pop_back();
    if (!children.ok()) {
      return ErrorAt(text, e.offset,
                     absl::StrCat("in alias '", e.name, "': ", children.status().message()));
    }
    return std::make_shared<const Sequential>(entry.info, PassOptions({}, e.name),
                                              *std::move(children), Sequential::Form::kAlias);
  }

  std::vector<std::string> expanding_;
};

}  // namespace

absl::StatusOr<PassPtr> ParsePipeline(absl::string_view text) {
  absl::StatusOr<std::vector<PipelineElement>> parsed = ParsePipelineText(text);
  if (!parsed.ok()) return parsed.status();
  absl::StatusOr<std::vector<PassPtr>> passes = Builder().BuildList(text, *parsed);
  if (!passes.ok()) return passes.status();
  return MakeSequential(*std::move(passes));
}

absl::StatusOr<PassPtr> CreatePass(const std::string& name) {
  const RegistryEntry* entry = PassRegistry::Global().Lookup(name);
  if (entry == nullptr) {
    return absl::NotFoundError(PassRegistry::Global().UnknownNameMessage(name));
  }
  PipelineElement e;
  e.name = name;
  e.has_children = entry->kind == RegistryEntry::Kind::kCombinator;
  absl::StatusOr<std::vector<PassPtr>> built = Builder().BuildList(name, {e});
  if (!built.ok()) return built.status();
  return built->front();
}

}  // namespace tessel::passes
