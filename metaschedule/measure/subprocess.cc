// Child processes with deadlines (see subprocess.h): posix_spawn into a new
// process group, waitpid polling, SIGKILL to the group at the deadline.
#include "metaschedule/measure/subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"

extern char** environ;

namespace tessel::metaschedule {

namespace {

using Clock = std::chrono::steady_clock;

struct Running {
  size_t index;
  pid_t pid;
  Clock::time_point start;
};

std::string Tail(const std::string& path, size_t bytes) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string all = ss.str();
  return all.size() <= bytes ? all : all.substr(all.size() - bytes);
}

// Starts `argv` with its output in `log`; -1 with `*error` set on failure.
pid_t Spawn(const std::vector<std::string>& argv, const std::string& log, std::string* error) {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, argv[0].c_str(), &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    *error = absl::StrCat("cannot start ", argv[0], ": ", std::strerror(rc));
    return -1;
  }
  return pid;
}

}  // namespace

std::string ProcessOutcome::Describe() const {
  switch (kind) {
    case Kind::kExited:
      return absl::StrCat("exited with status ", code);
    case Kind::kSignaled:
      return absl::StrCat("killed by signal ", code, " (", strsignal(code), ")");
    case Kind::kTimedOut:
      return absl::StrCat("timed out after ", seconds, " s");
    case Kind::kNotStarted:
      return error;
  }
  return "";
}

std::vector<ProcessOutcome> RunProcesses(const std::vector<std::vector<std::string>>& commands,
                                         const ProcessOptions& options) {
  std::vector<ProcessOutcome> out(commands.size());
  std::string dir = options.log_dir.empty() ? "/tmp" : options.log_dir;
  auto log_of = [&](size_t i) { return absl::StrCat(dir, "/child-", i, ".log"); };
  const auto timeout = std::chrono::duration<double>(options.timeout_s);
  std::vector<Running> running;
  size_t next = 0;
  while (next < commands.size() || !running.empty()) {
    while (next < commands.size() &&
           static_cast<int>(running.size()) < std::max(1, options.parallelism)) {
      size_t i = next++;
      if (commands[i].empty()) {
        out[i].error = "an empty command";
        continue;
      }
      pid_t pid = Spawn(commands[i], log_of(i), &out[i].error);
      if (pid > 0) running.push_back({i, pid, Clock::now()});
    }
    for (size_t r = 0; r < running.size();) {
      Running& child = running[r];
      ProcessOutcome& o = out[child.index];
      int status = 0;
      pid_t done = waitpid(child.pid, &status, WNOHANG);
      double elapsed = std::chrono::duration<double>(Clock::now() - child.start).count();
      if (done == 0 && Clock::now() - child.start > timeout) {
        kill(-child.pid, SIGKILL);  // The whole group: the worker and what it started.
        waitpid(child.pid, &status, 0);
        o.kind = ProcessOutcome::Kind::kTimedOut;
        o.seconds = options.timeout_s;
      } else if (done < 0) {
        o.error = absl::StrCat("waitpid: ", std::strerror(errno));
        kill(-child.pid, SIGKILL);
      } else if (done == child.pid) {
        o.kind =
            WIFSIGNALED(status) ? ProcessOutcome::Kind::kSignaled : ProcessOutcome::Kind::kExited;
        o.code = WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status);
        o.seconds = elapsed;
        kill(-child.pid, SIGKILL);  // Anything it left running.
      } else {
        ++r;
        continue;
      }
      o.output = Tail(log_of(child.index), 4096);
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(r));
    }
    if (!running.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return out;
}

}  // namespace tessel::metaschedule
