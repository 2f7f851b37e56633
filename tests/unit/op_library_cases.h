// Every op of the op library at small, odd sizes, each as the argument list of a
// function (inputs, then the output): the cases the compiled-code and the
// schedule-rule tests run over.
//
//   for (const auto& [name, build] : OpLibraryCases()) {
//     Built args = build();                                   // e.g. x, relu(x)
//     IRModule mod = *te::CreateModule(*args, name);
//   }
#ifndef TESSEL_TESTS_UNIT_OP_LIBRARY_CASES_H_
#define TESSEL_TESTS_UNIT_OP_LIBRARY_CASES_H_

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/te/create_prim_func.h"

namespace tessel::testing {

using Built = absl::StatusOr<std::vector<ir::te::FuncArg>>;

std::vector<std::pair<std::string, std::function<Built()>>> OpLibraryCases();

}  // namespace tessel::testing

#endif  // TESSEL_TESTS_UNIT_OP_LIBRARY_CASES_H_
