// The per-run pass log and its one-line-per-run rendering.
#include "passes/pass_log.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tessel::passes {

void PassLog::RecordRan(const std::string& pass) {
  entries_.push_back({PassLogEntry::Kind::kRan, pass, "", ""});
}

void PassLog::RecordSkipped(const std::string& pass, const std::string& function,
                            const std::string& why) {
  entries_.push_back({PassLogEntry::Kind::kSkipped, pass, function, why});
}

void PassLog::RecordChanged(const std::string& pass, const std::string& function) {
  entries_.push_back({PassLogEntry::Kind::kChanged, pass, function, ""});
}

void PassLog::RecordAdded(const std::string& pass, const std::string& function) {
  entries_.push_back({PassLogEntry::Kind::kAdded, pass, function, ""});
}

void PassLog::RecordRemoved(const std::string& pass, const std::string& function) {
  entries_.push_back({PassLogEntry::Kind::kRemoved, pass, function, ""});
}

void PassLog::RecordApplied(const std::string& pass, const std::string& function,
                            const std::string& rule, int count) {
  if (!entries_.empty()) {
    PassLogEntry& last = entries_.back();
    if (last.kind == PassLogEntry::Kind::kApplied && last.pass == pass &&
        last.function == function && last.detail == rule) {
      last.count += count;
      return;
    }
  }
  entries_.push_back({PassLogEntry::Kind::kApplied, pass, function, rule, count});
}

void PassLog::RecordNote(const std::string& pass, const std::string& text) {
  entries_.push_back({PassLogEntry::Kind::kNote, pass, "", text});
}

bool PassLog::HasRun(const std::string& pass) const {
  return std::any_of(entries_.begin(), entries_.end(), [&](const PassLogEntry& e) {
    return e.kind == PassLogEntry::Kind::kRan && e.pass == pass;
  });
}

std::vector<std::string> PassLog::ChangedFunctions(const std::string& pass) const {
  std::vector<std::string> out;
  for (const PassLogEntry& e : entries_) {
    if (e.kind == PassLogEntry::Kind::kChanged && e.pass == pass &&
        std::find(out.begin(), out.end(), e.function) == out.end()) {
      out.push_back(e.function);
    }
  }
  return out;
}

std::vector<std::string> PassLog::AppliedRules(const std::string& pass,
                                               const std::string& function) const {
  std::vector<std::string> out;
  for (const PassLogEntry& e : entries_) {
    if (e.kind == PassLogEntry::Kind::kApplied && e.pass == pass && e.function == function) {
      out.push_back(e.count > 1 ? absl::StrCat(e.detail, " x", e.count) : e.detail);
    }
  }
  return out;
}

namespace {

// Everything recorded for one run of one pass, turned into one line.
struct RunLine {
  std::string pass;
  std::vector<std::string> changed, added, removed;
  // Rules per function, functions in the order first seen: "f: applied a x2, b".
  std::vector<std::pair<std::string, std::vector<std::string>>> rules;
  std::vector<std::string> parts;  // Skips and notes in order.
  bool ran = false;
};

std::string Render(const RunLine& r) {
  std::vector<std::string> parts;
  if (!r.changed.empty()) parts.push_back(absl::StrCat("changed ", absl::StrJoin(r.changed, ", ")));
  if (!r.added.empty()) parts.push_back(absl::StrCat("added ", absl::StrJoin(r.added, ", ")));
  if (!r.removed.empty()) parts.push_back(absl::StrCat("removed ", absl::StrJoin(r.removed, ", ")));
  for (const auto& [function, rules] : r.rules) {
    parts.push_back(absl::StrCat(function, ": applied ", absl::StrJoin(rules, ", ")));
  }
  if (parts.empty() && r.ran) parts.push_back("no change");
  parts.insert(parts.end(), r.parts.begin(), r.parts.end());
  return absl::StrCat(r.pass, ": ", absl::StrJoin(parts, "; "));
}

}  // namespace

std::string PassLog::ToString() const {
  std::vector<RunLine> lines;
  for (const PassLogEntry& e : entries_) {
    // A new line starts at each run, and whenever the pass name changes.
    if (e.kind == PassLogEntry::Kind::kRan || lines.empty() || lines.back().pass != e.pass) {
      lines.push_back({e.pass, {}, {}, {}, {}, {}, false});
    }
    RunLine& line = lines.back();
    switch (e.kind) {
      case PassLogEntry::Kind::kRan:
        line.ran = true;
        break;
      case PassLogEntry::Kind::kSkipped:
        line.parts.push_back(e.function.empty()
                                 ? absl::StrCat("skipped (", e.detail, ")")
                                 : absl::StrCat("skipped ", e.function, " (", e.detail, ")"));
        break;
      case PassLogEntry::Kind::kChanged:
        if (std::find(line.changed.begin(), line.changed.end(), e.function) == line.changed.end()) {
          line.changed.push_back(e.function);
        }
        break;
      case PassLogEntry::Kind::kAdded:
        line.added.push_back(e.function);
        break;
      case PassLogEntry::Kind::kRemoved:
        line.removed.push_back(e.function);
        break;
      case PassLogEntry::Kind::kApplied: {
        auto it = std::find_if(line.rules.begin(), line.rules.end(),
                               [&](const auto& fr) { return fr.first == e.function; });
        if (it == line.rules.end()) {
          line.rules.emplace_back(e.function, std::vector<std::string>{});
          it = line.rules.end() - 1;
        }
        it->second.push_back(
            absl::StrCat(e.detail, e.count > 1 ? absl::StrCat(" x", e.count) : ""));
        break;
      }
      case PassLogEntry::Kind::kNote:
        line.parts.push_back(e.detail);
        break;
    }
  }
  std::string out;
  for (const RunLine& l : lines) absl::StrAppend(&out, Render(l), "\n");
  return out;
}

}  // namespace tessel::passes
