// Writes the module after every pass into a directory, one re-parseable .tsl
// file per step, numbered in order:
//
//   ctx.instruments.push_back(MakeDumpDirInstrument("/tmp/dump"));
//   // /tmp/dump/000_input.tsl         the module the pipeline started from
//   // /tmp/dump/001_simplify.tsl      after simplify
//   // /tmp/dump/002_remove-no-op.tsl  after remove-no-op
//
// The counter keeps going across pipeline runs with the same instrument (e.g.
// tessel-opt --split-input-file), so no file is overwritten. The directory is
// created if missing; a file that cannot be written stops the pipeline.
#ifndef TESSEL_PASSES_INSTRUMENTS_DUMP_DIR_H_
#define TESSEL_PASSES_INSTRUMENTS_DUMP_DIR_H_

#include <memory>
#include <string>

#include "passes/instrument.h"

namespace tessel::passes {

std::shared_ptr<PassInstrument> MakeDumpDirInstrument(std::string dir);

}  // namespace tessel::passes

#endif  // TESSEL_PASSES_INSTRUMENTS_DUMP_DIR_H_
