// Pipelines from text: parse (passes/pipeline_parser.h), look every name up in
// the registry, check options, and build the passes.
//
//   absl::StatusOr<PassPtr> p = ParsePipeline("simplify,fixed-point(remove-no-op)");
//   (*p)->ToString();   // "simplify,fixed-point(remove-no-op)" -- the text back
//
//   ParsePipeline("simplfy");
//   // pipeline:1:1: unknown pass 'simplfy'; did you mean 'simplify'? (--list-passes ...)
//   //   simplfy
//   //   ^
//
// Printing a built pipeline gives its canonical text: options that were set, in
// the order they were written; aliases by their name.
#ifndef TESSEL_PASSES_PIPELINE_H_
#define TESSEL_PASSES_PIPELINE_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "passes/pass.h"

namespace tessel::passes {

// A top-level Sequential holding the passes of `text`.
absl::StatusOr<PassPtr> ParsePipeline(absl::string_view text);

// One registered name with default options: a pass, an alias, or a combinator
// with no nested passes.
absl::StatusOr<PassPtr> CreatePass(const std::string& name);

}  // namespace tessel::passes

#endif  // TESSEL_PASSES_PIPELINE_H_
