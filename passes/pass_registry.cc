// The process-wide pass registry and its listing.
#include "passes/pass_registry.h"

#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "passes/did_you_mean.h"

namespace tessel::passes {

PassRegistry& PassRegistry::Global() {
  static PassRegistry* registry = new PassRegistry();  // Never destroyed: used at exit.
  return *registry;
}

void PassRegistry::Add(RegistryEntry entry) {
  std::string name = entry.info.name;
  if (name.empty() || !entries_.emplace(name, std::move(entry)).second) {
    std::fprintf(stderr, "tessel: fatal: pass name '%s' is registered twice (or empty)\n",
                 name.c_str());
    std::abort();
  }
}

void PassRegistry::RegisterPass(PassInfo info, PassFactory factory) {
  RegistryEntry e;
  e.kind = RegistryEntry::Kind::kPass;
  e.info = std::move(info);
  e.make_pass = std::move(factory);
  Add(std::move(e));
}

void PassRegistry::RegisterCombinator(PassInfo info, PipelineFactory factory) {
  RegistryEntry e;
  e.kind = RegistryEntry::Kind::kCombinator;
  e.info = std::move(info);
  e.make_pipeline = std::move(factory);
  Add(std::move(e));
}

void PassRegistry::RegisterAlias(std::string name, std::string pipeline, std::string description) {
  RegistryEntry e;
  e.kind = RegistryEntry::Kind::kAlias;
  e.info.name = std::move(name);
  e.info.description = std::move(description);
  e.alias_of = std::move(pipeline);
  Add(std::move(e));
}

const RegistryEntry* PassRegistry::Lookup(const std::string& name) const {
  auto it = entries_.find(name);
  return it == entries_.end() ? nullptr : &it->second;
}

std::vector<const RegistryEntry*> PassRegistry::Entries() const {
  std::vector<const RegistryEntry*> out;
  for (const auto& [name, e] : entries_) out.push_back(&e);
  return out;
}

std::vector<std::string> PassRegistry::Names() const {
  std::vector<std::string> out;
  for (const auto& [name, e] : entries_) out.push_back(name);
  return out;
}

std::string PassRegistry::UnknownNameMessage(const std::string& name) const {
  return absl::StrCat("unknown pass '", name, "'", DidYouMean(name, Names()),
                      " (--list-passes shows them all)");
}

namespace {

void AppendEntry(const RegistryEntry& e, std::string* out) {
  const PassInfo& info = e.info;
  std::string head = info.name;
  if (e.kind == RegistryEntry::Kind::kCombinator) absl::StrAppend(&head, "(...)");
  if (e.kind == RegistryEntry::Kind::kAlias) absl::StrAppend(&head, " = ", e.alias_of);
  absl::StrAppend(out, "  ", head, "\n      ", info.description);
  if (e.kind == RegistryEntry::Kind::kPass) {
    absl::StrAppend(out, " [opt level ", info.opt_level, "]");
  }
  absl::StrAppend(out, "\n");
  if (!info.required.empty()) {
    absl::StrAppend(out, "      requires: ", absl::StrJoin(info.required, ", "), "\n");
  }
  for (const OptionSpec& o : info.options) {
    absl::StrAppend(out, "      ", DescribeOption(o), "\n");
  }
}

}  // namespace

std::string PassRegistry::ListPasses() const {
  std::string out;
  const struct {
    RegistryEntry::Kind kind;
    const char* title;
  } sections[] = {{RegistryEntry::Kind::kPass, "Passes:"},
                  {RegistryEntry::Kind::kCombinator, "Pipelines (name{options}(passes...)):"},
                  {RegistryEntry::Kind::kAlias, "Aliases:"}};
  for (const auto& section : sections) {
    bool any = false;
    for (const auto& [name, e] : entries_) {
      if (e.kind != section.kind) continue;
      if (!any) absl::StrAppend(&out, out.empty() ? "" : "\n", section.title, "\n");
      any = true;
      AppendEntry(e, &out);
    }
  }
  return out;
}

}  // namespace tessel::passes
