// Constants for the expression operators (expr_ops.h).
//
//   Const(DataType::Float(16), 0.1)   // 0.0999755859375f16: rounded to the dtype
//   Const(DataType::Int(32), 3.0)     // 3i32
#include "ir/te/expr_ops.h"

namespace tessel::ir::te {

Expr Const(DataType dtype, double v) {
  if (dtype.is_float()) return FloatImm(dtype, v);
  return IntImm(dtype, static_cast<int64_t>(v));
}

}  // namespace tessel::ir::te
