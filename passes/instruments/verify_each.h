// Runs the verifier (ir/verifier.h) after every pass and stops the pipeline at
// the first pass whose output is invalid:
//
//   ctx.instruments.push_back(MakeVerifyEachInstrument());
//   // error: "verify-each: the IR is invalid after pass 'x': verify: function 'f': ..."
#ifndef TESSEL_PASSES_INSTRUMENTS_VERIFY_EACH_H_
#define TESSEL_PASSES_INSTRUMENTS_VERIFY_EACH_H_

#include <memory>

#include "passes/instrument.h"

namespace tessel::passes {

std::shared_ptr<PassInstrument> MakeVerifyEachInstrument();

}  // namespace tessel::passes

#endif  // TESSEL_PASSES_INSTRUMENTS_VERIFY_EACH_H_
