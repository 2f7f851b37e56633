// The registry of named passes, pipeline combinators and pipeline aliases, so
// that pipelines can be written as text and `tessel-opt --list-passes` can list
// them. Registration is one line beside the pass:
//
//   TESSEL_REGISTER_PASS(SimplifyPass);          // class with Info() and a
//                                                // constructor from PassOptions
//   TESSEL_REGISTER_PASS_ALIAS("cleanup", "simplify,remove-no-op",
//                              "Folds constants and drops what became empty");
//
// Three kinds of names:
// - a pass:        simplify, my-pass{factor=4}
// - a combinator:  a pipeline that wraps nested passes, written name{opts}(p, q)
//                  (nested(...), fixed-point{max-iterations=4}(...))
// - an alias:      a name standing for pipeline text, expanded when built (so an
//                  alias may name passes registered in any file).
//
// Registration happens in static initializers; passes/CMakeLists.txt links the
// library whole-archive so that none is dropped by the linker.
#ifndef TESSEL_PASSES_PASS_REGISTRY_H_
#define TESSEL_PASSES_PASS_REGISTRY_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "passes/pass.h"

namespace tessel::passes {

// Factories may refuse option values that parse but make no sense (an error
// naming the option); the pipeline builder adds the position in the text.
using PassFactory = std::function<absl::StatusOr<PassPtr>(PassOptions options)>;
using PipelineFactory =
    std::function<absl::StatusOr<PassPtr>(PassOptions options, std::vector<PassPtr> children)>;

struct RegistryEntry {
  enum class Kind { kPass, kCombinator, kAlias };
  Kind kind = Kind::kPass;
  PassInfo info;                  // For aliases: name and description only.
  PassFactory make_pass;          // kPass
  PipelineFactory make_pipeline;  // kCombinator
  std::string alias_of;           // kAlias: the pipeline text it stands for.
};

class PassRegistry {
 public:
  static PassRegistry& Global();

  // Registering a name twice is a programming error (aborts with the name).
  void RegisterPass(PassInfo info, PassFactory factory);
  void RegisterCombinator(PassInfo info, PipelineFactory factory);
  void RegisterAlias(std::string name, std::string pipeline, std::string description);

  // Null when absent.
  const RegistryEntry* Lookup(const std::string& name) const;
  // Sorted by name.
  std::vector<const RegistryEntry*> Entries() const;
  std::vector<std::string> Names() const;

  // "unknown pass 'simplfy'; did you mean 'simplify'? (--list-passes shows them all)"
  std::string UnknownNameMessage(const std::string& name) const;

  // The --list-passes text: each pass, combinator and alias with its options.
  std::string ListPasses() const;

 private:
  void Add(RegistryEntry entry);
  std::map<std::string, RegistryEntry> entries_;
};

struct PassRegistrar {
  PassRegistrar(PassInfo info, PassFactory factory) {
    PassRegistry::Global().RegisterPass(std::move(info), std::move(factory));
  }
};
struct CombinatorRegistrar {
  CombinatorRegistrar(PassInfo info, PipelineFactory factory) {
    PassRegistry::Global().RegisterCombinator(std::move(info), std::move(factory));
  }
};
struct AliasRegistrar {
  AliasRegistrar(std::string name, std::string pipeline, std::string description) {
    PassRegistry::Global().RegisterAlias(std::move(name), std::move(pipeline),
                                         std::move(description));
  }
};

}  // namespace tessel::passes

#define TESSEL_PASS_CONCAT_INNER(a, b) a##b
#define TESSEL_PASS_CONCAT(a, b) TESSEL_PASS_CONCAT_INNER(a, b)

// Registers `PassClass`, which has `static PassInfo Info()` and an explicit
// constructor from PassOptions. Put it at namespace scope in the pass's .cc file.
#define TESSEL_REGISTER_PASS(PassClass)                                                    \
  static const ::tessel::passes::PassRegistrar TESSEL_PASS_CONCAT(tessel_pass_registrar_,  \
                                                                  __COUNTER__)(            \
      PassClass::Info(),                                                                   \
      [](::tessel::passes::PassOptions o) -> ::absl::StatusOr<::tessel::passes::PassPtr> { \
        return std::make_shared<const PassClass>(std::move(o));                            \
      })

// Registers a name standing for pipeline text.
#define TESSEL_REGISTER_PASS_ALIAS(name, pipeline, description)     \
  static const ::tessel::passes::AliasRegistrar TESSEL_PASS_CONCAT( \
      tessel_alias_registrar_, __COUNTER__)(name, pipeline, description)

#endif  // TESSEL_PASSES_PASS_REGISTRY_H_
