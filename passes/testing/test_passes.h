// Passes that exist only to test the pass infrastructure. They are not in the
// default registry: `tessel-opt --load-test-passes` (or a test binary) registers
// them by calling RegisterTestPasses(). Built when the CMake option
// TESSEL_TEST_PASSES is ON (the default).
//
//   test-change-results{only=f}   adds 1 to every stored value: a miscompile that
//                                 check-semantics must catch and name
//   test-fail{message="..."}      always fails (reproducer tests)
//   test-break-ir                 stores to a buffer that is bound nowhere
//                                 (verify-each tests)
//   test-options{count=..,flag=..,label=..,names=[..]}
//                                 writes its options to the pass log; changes nothing
//   test-requires-simplify        requires simplify; changes nothing
//   test-high-opt                 opt level 3; changes nothing
//   test-cleanup                  alias for "simplify,remove-no-op"
//   test-self-alias               alias naming itself (an error when used)
#ifndef TESSEL_PASSES_TESTING_TEST_PASSES_H_
#define TESSEL_PASSES_TESTING_TEST_PASSES_H_

namespace tessel::passes {

// Registers the passes above; calling it again does nothing.
void RegisterTestPasses();

}  // namespace tessel::passes

#endif  // TESSEL_PASSES_TESTING_TEST_PASSES_H_
