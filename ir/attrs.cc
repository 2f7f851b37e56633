// AttrValue's copy and move, out of line (see attrs.h for why).
#include "ir/attrs.h"

#include <algorithm>

namespace tessel::ir {

AttrValue::AttrValue(const AttrValue& other) = default;
AttrValue::AttrValue(AttrValue&& other) noexcept = default;
AttrValue& AttrValue::operator=(const AttrValue& other) = default;
AttrValue& AttrValue::operator=(AttrValue&& other) noexcept = default;
AttrValue::~AttrValue() = default;

int AttrNesting(const AttrValue& v, int limit) {
  const AttrValue::List* list = v.get_if<AttrValue::List>();
  if (list == nullptr) return 0;
  if (limit <= 0) return 1;
  int deepest = 0;
  for (const AttrValue& item : *list) {
    deepest = std::max(deepest, AttrNesting(item, limit - 1));
    if (deepest >= limit) break;
  }
  return deepest + 1;
}

}  // namespace tessel::ir
