// A watchdog for setup steps that block inside a library with no timeout of their own
// (MPI_Comm_split, the MPI exchanges inside a backend's setup, NCCL bootstrap): if the step has
// not ended after `timeout_s`, a background thread prints one line naming it and ends this
// process with exit code 4; the launcher (mpirun, srun) then ends the other ranks.
//
//   SetupWatchdog watchdog(options.timeout_s, "NCCL communicator setup");
//   ... blocking setup ...
//   watchdog.step("splitting the expert group");   // renames what is waited for
//   // destroyed (or disarm()) when setup is over
#pragma once
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace collreplay {

class SetupWatchdog {
 public:
  // timeout_s <= 0: never fires.
  SetupWatchdog(double timeout_s, std::string what);
  ~SetupWatchdog();
  SetupWatchdog(const SetupWatchdog&) = delete;
  SetupWatchdog& operator=(const SetupWatchdog&) = delete;

  void step(std::string what);
  void disarm();

 private:
  void watch(double timeout_s);

  std::mutex mutex_;
  std::condition_variable changed_;
  std::string what_;
  bool disarmed_ = false;
  std::thread thread_;  // last: starts after the members it reads exist
};

}  // namespace collreplay
