// Registry, timing and JSON helpers for tessel-bench (see benchmark.h).
//
//   Timing t = TimeCalls(200, [&] { Sink(StructuralHash(f)); });
//   // t.median_us == 41.7, t.min_us == 40.9, t.max_us == 63.0, t.repeats == 200
#include "tools/bench/benchmark.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <fstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"

namespace tessel::bench {

void BenchResult::Add(const std::string& key, int64_t value) {
  members_.emplace_back(key, absl::StrCat(value));
}

void BenchResult::Add(const std::string& key, double value) {
  // JSON has no NaN or infinity; a case that produces one reports null.
  members_.emplace_back(key, std::isfinite(value) ? absl::StrFormat("%.3f", value) : "null");
}

void BenchResult::Add(const std::string& key, const std::string& value) {
  members_.emplace_back(key, JsonString(value));
}

void BenchResult::AddTiming(const Timing& t) {
  Add("median_us", t.median_us);
  Add("min_us", t.min_us);
  Add("max_us", t.max_us);
  Add("repeats", int64_t{t.repeats});
}

std::string BenchResult::ToJson(const std::string& name) const {
  std::string out = absl::StrCat("{\"name\": ", JsonString(name));
  for (const auto& [key, value] : members_) absl::StrAppend(&out, ", ", JsonString(key), ": ", value);
  out += "}";
  return out;
}

std::vector<BenchCase>& Registry() {
  static auto* cases = new std::vector<BenchCase>();
  return *cases;
}

Registrar::Registrar(std::string name, std::string description, BenchFn fn) {
  Registry().push_back(BenchCase{std::move(name), std::move(description), std::move(fn)});
}

Timing TimeCalls(int repeats, const std::function<void()>& fn) {
  // Warm-up fills caches and lets the allocator reach a steady state.
  for (int i = 0; i < std::min(repeats, 5); ++i) fn();
  std::vector<double> us;
  us.reserve(repeats);
  for (int i = 0; i < repeats; ++i) {
    auto start = std::chrono::steady_clock::now();
    fn();
    auto end = std::chrono::steady_clock::now();
    us.push_back(std::chrono::duration<double, std::micro>(end - start).count());
  }
  Timing t;
  t.repeats = repeats;
  if (us.empty()) return t;
  std::sort(us.begin(), us.end());
  size_t n = us.size();
  t.median_us = n % 2 ? us[n / 2] : (us[n / 2 - 1] + us[n / 2]) / 2;
  t.min_us = us.front();
  t.max_us = us.back();
  return t;
}

void Sink(uint64_t value) {
  static std::atomic<uint64_t> sink{0};
  sink.fetch_xor(value, std::memory_order_relaxed);
}

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          out += absl::StrFormat("\\u%04x", c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

namespace {

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (absl::StartsWith(line, "model name")) {
      size_t colon = line.find(':');
      if (colon != std::string::npos) {
        return std::string(absl::StripAsciiWhitespace(line.substr(colon + 1)));
      }
    }
  }
  return "unknown";
}

}  // namespace

std::string MachineJson() {
#ifdef TESSEL_BUILD_TYPE
  const char* build_type = TESSEL_BUILD_TYPE;
#else
  const char* build_type = "unknown";
#endif
#ifdef __VERSION__
  const char* compiler = __VERSION__;
#else
  const char* compiler = "unknown";
#endif
  return absl::StrCat("{\"cpu\": ", JsonString(CpuModel()),
                      ", \"logical_cores\": ", std::thread::hardware_concurrency(),
                      ", \"compiler\": ", JsonString(compiler),
                      ", \"build_type\": ", JsonString(build_type), "}");
}

}  // namespace tessel::bench
