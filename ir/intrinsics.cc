#include "ir/intrinsics.h"

namespace tessel::ir {

const std::vector<IntrinsicInfo>& AllIntrinsics() {
  static const std::vector<IntrinsicInfo>* table = new std::vector<IntrinsicInfo>{
      {"exp", 1, false},   {"log", 1, false},  {"sqrt", 1, false},    {"rsqrt", 1, false},
      {"tanh", 1, false},  {"erf", 1, false},  {"sigmoid", 1, false}, {"fabs", 1, true},
      {"floor", 1, false}, {"ceil", 1, false}, {"pow", 2, false},     {"fma", 3, false},
  };
  return *table;
}

const IntrinsicInfo* LookupIntrinsic(absl::string_view name) {
  for (const IntrinsicInfo& info : AllIntrinsics()) {
    if (name == info.name) return &info;
  }
  return nullptr;
}

}  // namespace tessel::ir
