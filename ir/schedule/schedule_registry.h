// Named C++ schedule functions, so that pipelines can apply hand-written
// schedules by name (`manual-schedule{schedule=matmul-cpu-tile}`).
//
//   TESSEL_REGISTER_SCHEDULE("double-split", "Splits every loop of block B by 2",
//       [](Schedule& sch) -> absl::StatusOr<bool> {
//         absl::StatusOr<BlockRV> b = sch.GetBlock("B");
//         if (!b.ok()) return false;                 // not applicable to this function
//         ...primitives...
//         return true;                               // applied
//       });
//
// A function returns false when it does not apply to the function the schedule
// works on (DESIGN.md decision 6: "not applicable" is an answer), true when it
// scheduled it, and an error when a primitive failed on a function it claimed.
#ifndef TESSEL_IR_SCHEDULE_SCHEDULE_REGISTRY_H_
#define TESSEL_IR_SCHEDULE_SCHEDULE_REGISTRY_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/schedule/schedule.h"

namespace tessel::ir::schedule {

using ScheduleFn = std::function<absl::StatusOr<bool>(Schedule& sch)>;

struct RegisteredSchedule {
  std::string name;
  std::string description;  // One line.
  ScheduleFn fn;
};

class ScheduleRegistry {
 public:
  static ScheduleRegistry& Global();
  // Registering a name twice is a programming error (aborts with the name).
  void Register(std::string name, std::string description, ScheduleFn fn);
  // Null when absent.
  const RegisteredSchedule* Lookup(const std::string& name) const;
  std::vector<std::string> Names() const;

 private:
  std::map<std::string, RegisteredSchedule> entries_;
};

struct ScheduleRegistrar {
  ScheduleRegistrar(std::string name, std::string description, ScheduleFn fn) {
    ScheduleRegistry::Global().Register(std::move(name), std::move(description), std::move(fn));
  }
};

}  // namespace tessel::ir::schedule

#define TESSEL_SCHEDULE_CONCAT_INNER(a, b) a##b
#define TESSEL_SCHEDULE_CONCAT(a, b) TESSEL_SCHEDULE_CONCAT_INNER(a, b)

// Registers a schedule function at namespace scope. The object file must be
// linked whole (as passes/ is) or referenced, or the linker drops it.
#define TESSEL_REGISTER_SCHEDULE(name, description, fn)                          \
  static const ::tessel::ir::schedule::ScheduleRegistrar TESSEL_SCHEDULE_CONCAT( \
      tessel_schedule_registrar_, __COUNTER__)(name, description, fn)

#endif  // TESSEL_IR_SCHEDULE_SCHEDULE_REGISTRY_H_
