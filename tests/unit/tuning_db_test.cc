// The tuning database: round trips, lookup by structure (never by hash alone),
// per-target best records, durability under kill -9, two writers on one file,
// refusal of files that are not tuning databases, merge and JSON lines.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/te/workloads.h"
#include "metaschedule/database/database.h"
#include "metaschedule/database/database_io.h"

namespace tessel::metaschedule {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// The operator library's 17x31x23 matmul, as text.
const std::string& MatmulText() {
  static const std::string* text = [] {
    absl::StatusOr<ir::IRModule> m = ir::te::BuildWorkload("matmul_17x31x23_f32");
    return new std::string(ir::PrintModule(*m));
  }();
  return *text;
}

ir::PrimFunc Parse(const std::string& text) {
  absl::StatusOr<ir::IRModule> m = ir::ParseModule(text);
  EXPECT_TRUE(m.ok()) << m.status();
  return (*m)->functions[0].second;
}

// The same matmul with other names: structurally equal.
std::string Renamed() {
  std::string t = MatmulText();
  for (auto [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"@matmul_17x31x23_f32", "@other"}, {"vi", "x"}, {"vj", "y"}, {"vk", "z"}}) {
    for (size_t at; (at = t.find(from)) != std::string::npos;) t.replace(at, from.size(), to);
  }
  return t;
}

TuningRecord Ok(const std::string& target, double seconds, const std::string& tag = "") {
  TuningRecord r;
  r.target = target;
  r.trace_json = R"({"format": "tessel-trace", "version": 1, "instructions": []})";
  r.seconds = {seconds, seconds * 1.1};
  r.error = tag;
  return r;
}

class TuningDb : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tessel_db_test_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  std::unique_ptr<Database> Open(const std::string& name) {
    absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(Path(name));
    EXPECT_TRUE(db.ok()) << db.status();
    return db.ok() ? *std::move(db) : nullptr;
  }
  fs::path dir_;
};

TEST_F(TuningDb, RecordsRoundTripAndBestIsPerTargetFastestFirst) {
  ir::PrimFunc mm = Parse(MatmulText());
  {
    std::unique_ptr<Database> db = Open("t.db");
    absl::StatusOr<int64_t> w = db->CommitWorkload(mm);
    ASSERT_TRUE(w.ok()) << w.status();
    ASSERT_TRUE(db->CommitRecord(*w, Ok("llvm", 3e-3, "slow")).ok());
    ASSERT_TRUE(db->CommitRecord(*w, Ok("llvm", 1e-3, "fast")).ok());
    ASSERT_TRUE(db->CommitRecord(*w, Ok("llvm -mcpu=znver4", 0.5e-3, "other target")).ok());
    TuningRecord failed = Ok("llvm", 0);
    failed.seconds.clear();
    failed.status = RunStatus::kWrongResult;
    failed.error = "C[3, 7]: 4.0 != 5.0";
    ASSERT_TRUE(db->CommitRecord(*w, failed).ok());
    EXPECT_EQ(*db->Size(), 4);
  }
  std::unique_ptr<Database> db = Open("t.db");  // Everything is there after reopening.
  EXPECT_EQ(*db->Size(), 4);
  // Found by structure: a renamed copy is the same workload.
  absl::StatusOr<std::vector<TuningRecord>> best = db->Best(Parse(Renamed()), "llvm", 5);
  ASSERT_TRUE(best.ok()) << best.status();
  ASSERT_EQ(best->size(), 2u) << "the failed record and the other target's are not candidates";
  EXPECT_EQ((*best)[0].error, "fast");
  EXPECT_EQ((*best)[1].error, "slow");
  EXPECT_NEAR((*best)[0].MeanSeconds(), 1.05e-3, 1e-12);
  EXPECT_EQ((*best)[0].workload_hash, WorkloadHash(mm));
  EXPECT_FALSE((*best)[0].created_at.empty());
  EXPECT_EQ((*best)[0].tessel_version, kTesselVersion);
  EXPECT_EQ(db->Best(mm, "llvm -mcpu=znver4", 5)->size(), 1u);
  EXPECT_TRUE(db->Best(mm, "llvm -mcpu=skylake", 5)->empty());
  // A different function with the same shapes is another workload.
  std::string add = MatmulText();
  add.replace(add.find("A[vi, vk] * B[vk, vj]"), 21, "A[vi, vk] + B[vk, vj]");
  EXPECT_FALSE(db->FindWorkload(Parse(add))->has_value());
  EXPECT_TRUE(db->Best(Parse(add), "llvm", 5)->empty());
  absl::StatusOr<std::vector<TuningRecord>> all = db->Records();
  ASSERT_EQ(all->size(), 4u);
  EXPECT_EQ((*all)[3].status, RunStatus::kWrongResult);
  EXPECT_EQ((*all)[3].error, "C[3, 7]: 4.0 != 5.0");
  EXPECT_TRUE((*all)[3].seconds.empty());
}

TEST_F(TuningDb, BadRecordsAreRefusedAndNothingIsWritten) {
  std::unique_ptr<Database> db = Open("t.db");
  int64_t w = *db->CommitWorkload(Parse(MatmulText()));
  TuningRecord no_times = Ok("llvm", 1e-3);
  no_times.seconds.clear();
  EXPECT_THAT(db->CommitRecord(w, no_times).status().message(),
              HasSubstr("a successful record needs at least one measured time"));
  EXPECT_THAT(db->CommitRecord(w, Ok("llvm", -1.0)).status().message(),
              HasSubstr("a measured time of -1 seconds"));
  EXPECT_THAT(db->CommitRecord(w + 41, Ok("llvm", 1e-3)).status().message(),
              HasSubstr("no workload"));
  EXPECT_EQ(*db->Size(), 0);
}

// A child commits records one by one until it is killed with SIGKILL; every
// record it committed is there, whole, and the file takes more afterwards.
TEST_F(TuningDb, KillNineLosesNoCommittedRecord) {
  const std::string path = Path("k.db");
  ASSERT_TRUE(Database::Open(path).ok());
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(path);
    if (!db.ok()) _exit(3);
    absl::StatusOr<int64_t> w = (*db)->CommitWorkload(Parse(MatmulText()));
    if (!w.ok()) _exit(4);
    for (int i = 0;; ++i) {
      if (!(*db)->CommitRecord(*w, Ok("llvm", 1e-3 * (i + 1), std::to_string(i))).ok()) _exit(5);
    }
  }
  std::unique_ptr<Database> db = Open("k.db");
  for (int waited = 0; waited < 600 && *db->Size() < 25; ++waited) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the writer stopped by itself: " << WEXITSTATUS(status);
  db = Open("k.db");  // Reopened after the kill: recovers the WAL.
  absl::StatusOr<std::vector<TuningRecord>> records = db->Records();
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_GE(records->size(), 25u);
  for (size_t i = 0; i < records->size(); ++i) {
    EXPECT_EQ((*records)[i].error, std::to_string(i)) << "records are whole and in order";
    EXPECT_EQ((*records)[i].seconds.size(), 2u);
  }
  const int64_t before = *db->Size();
  int64_t w = *db->CommitWorkload(Parse(MatmulText()));
  ASSERT_TRUE(db->CommitRecord(w, Ok("llvm", 1e-3, "resumed")).ok());
  EXPECT_EQ(*db->Size(), before + 1);
}

TEST_F(TuningDb, TwoWritersShareOneFile) {
  const std::string path = Path("shared.db");
  ASSERT_TRUE(Database::Open(path).ok());
  std::vector<pid_t> children;
  for (int c = 0; c < 2; ++c) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(path);
      if (!db.ok()) _exit(3);
      for (int i = 0; i < 40; ++i) {
        absl::StatusOr<int64_t> w = (*db)->CommitWorkload(Parse(MatmulText()));
        if (!w.ok()) _exit(4);
        if (!(*db)->CommitRecord(*w, Ok("llvm", 1e-3, std::to_string(c))).ok()) _exit(5);
      }
      _exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  }
  std::unique_ptr<Database> db = Open("shared.db");
  EXPECT_EQ(*db->Size(), 80);
  EXPECT_EQ(db->Workloads()->size(), 1u) << "both writers found the one workload";
}

TEST_F(TuningDb, FilesThatAreNotTuningDatabasesAreRefused) {
  std::ofstream(Path("garbage.db")) << std::string(8192, 'x');
  absl::StatusOr<std::unique_ptr<Database>> db = Database::Open(Path("garbage.db"));
  EXPECT_THAT(db.status().message(), HasSubstr("garbage.db"));
  EXPECT_THAT(db.status().message(), HasSubstr("file is not a database"));
  {
    absl::StatusOr<SqliteDb> other = SqliteDb::Open(Path("other.db"), true);
    ASSERT_TRUE(other.ok());
    ASSERT_TRUE(other->Exec("CREATE TABLE photos (id INTEGER)").ok());
  }
  EXPECT_THAT(Database::Open(Path("other.db")).status().message(),
              HasSubstr("not a tessel tuning database (an SQLite file with tables photos)"));
  {
    std::unique_ptr<Database> d = Open("future.db");
    ASSERT_TRUE(d->sqlite().Exec("UPDATE tessel_meta SET value = '9' WHERE key = 'version'").ok());
  }
  EXPECT_THAT(Database::Open(Path("future.db")).status().message(),
              HasSubstr("a tuning database of format version 9; this tessel reads version 1"));
  // A valid database cut in half: an error, never a crash.
  {
    std::unique_ptr<Database> d = Open("whole.db");
    int64_t w = *d->CommitWorkload(Parse(MatmulText()));
    for (int i = 0; i < 200; ++i) ASSERT_TRUE(d->CommitRecord(w, Ok("llvm", 1e-3)).ok());
    ASSERT_TRUE(d->sqlite().Exec("PRAGMA wal_checkpoint(TRUNCATE)").ok());
  }
  fs::copy_file(Path("whole.db"), Path("half.db"));
  fs::resize_file(Path("half.db"), fs::file_size(Path("half.db")) / 2);
  absl::StatusOr<std::unique_ptr<Database>> half = Database::Open(Path("half.db"));
  if (half.ok()) {
    EXPECT_FALSE((*half)->Records().ok()) << "a truncated file cannot give back every record";
  } else {
    EXPECT_THAT(half.status().message(), HasSubstr("half.db"));
  }
}

TEST_F(TuningDb, MergeExportAndImportAddEachRecordOnce) {
  std::unique_ptr<Database> a = Open("a.db");
  std::unique_ptr<Database> b = Open("b.db");
  int64_t wa = *a->CommitWorkload(Parse(MatmulText()));
  ASSERT_TRUE(a->CommitRecord(wa, Ok("llvm", 2e-3, "a1")).ok());
  ASSERT_TRUE(a->CommitRecord(wa, Ok("llvm", 1e-3, "a2")).ok());
  std::string add = MatmulText();
  add.replace(add.find("A[vi, vk] * B[vk, vj]"), 21, "A[vi, vk] + B[vk, vj]");
  int64_t wb = *b->CommitWorkload(Parse(Renamed()));  // The same workload as a's.
  int64_t wb2 = *b->CommitWorkload(Parse(add));
  ASSERT_TRUE(b->CommitRecord(wb, Ok("llvm", 0.5e-3, "b1")).ok());
  ASSERT_TRUE(b->CommitRecord(wb2, Ok("llvm", 4e-3, "b2")).ok());

  absl::StatusOr<TransferCount> c = MergeDatabase(*a, *b);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->records, 2);
  EXPECT_EQ(c->workloads, 1);
  EXPECT_EQ(*a->Size(), 4);
  EXPECT_EQ((*a->Best(Parse(MatmulText()), "llvm", 1))[0].error, "b1");
  c = MergeDatabase(*a, *b);
  EXPECT_EQ(c->records, 0);
  EXPECT_EQ(c->skipped, 2);

  absl::StatusOr<int64_t> n = ExportJsonLines(*a, Path("a.jsonl"));
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(*n, 4);
  std::unique_ptr<Database> fresh = Open("fresh.db");
  c = ImportJsonLines(*fresh, Path("a.jsonl"));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->records, 4);
  EXPECT_EQ(c->workloads, 2);
  absl::StatusOr<std::vector<TuningRecord>> back = fresh->Records();
  absl::StatusOr<std::vector<TuningRecord>> orig = a->Records();
  ASSERT_EQ(back->size(), orig->size());
  for (size_t i = 0; i < back->size(); ++i) {
    EXPECT_EQ((*back)[i].trace_json.empty(), false);
    EXPECT_EQ((*back)[i].seconds, (*orig)[i].seconds);
    EXPECT_EQ((*back)[i].created_at, (*orig)[i].created_at);
  }
  EXPECT_EQ(ImportJsonLines(*fresh, Path("a.jsonl"))->skipped, 4);

  std::ofstream(Path("bad.jsonl"))
      << std::ifstream(Path("a.jsonl")).rdbuf() << "{\"workload\": 3}\n";
  absl::StatusOr<TransferCount> bad = ImportJsonLines(*Open("g.db"), Path("bad.jsonl"));
  EXPECT_THAT(bad.status().message(), HasSubstr("bad.jsonl:5: "));
  EXPECT_THAT(bad.status().message(), HasSubstr("(4 records before it were imported)"));
  std::ofstream(Path("text.jsonl")) << "not json\n";
  EXPECT_THAT(ImportJsonLines(*Open("h.db"), Path("text.jsonl")).status().message(),
              HasSubstr("text.jsonl:1: not JSON"));
}

}  // namespace
}  // namespace tessel::metaschedule
