// AttrValue's copy and move, out of line (see attrs.h for why).
#include "ir/attrs.h"

namespace tessel::ir {

AttrValue::AttrValue(const AttrValue& other) = default;
AttrValue::AttrValue(AttrValue&& other) noexcept = default;
AttrValue& AttrValue::operator=(const AttrValue& other) = default;
AttrValue& AttrValue::operator=(AttrValue&& other) noexcept = default;
AttrValue::~AttrValue() = default;

}  // namespace tessel::ir
