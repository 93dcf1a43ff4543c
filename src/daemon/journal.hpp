// The daemon's journal: a directory with one file per accepted job (its request and witnesses,
// written and synced before SubmitProof answers) and one per finished job (its result). After a
// crash the jobs without a result run again; results are kept until they expire.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cuzk/v1/engine.pb.h"

namespace cuzk::daemon {

class Journal {
 public:
  // Creates the directory if missing; throws Error naming it when it cannot be used.
  explicit Journal(std::string dir);
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  struct Entry {
    cuzk::v1::JournalJob job;
    std::optional<cuzk::v1::JournalOutcome> outcome;
  };
  // Every job in the journal (unreadable files are reported through `warn` and skipped).
  std::vector<Entry> load(const std::function<void(const std::string&)>& warn) const;

  // Durable before they return (file and directory synced).
  void accept(const cuzk::v1::JournalJob& job);
  // Writes the result, then drops the witnesses from the job's file (they are not needed again).
  void finish(const cuzk::v1::JournalJob& job, const cuzk::v1::JournalOutcome& outcome);
  void remove(const std::string& job_id);
  // Moves a job's witness files into the journal (<job>.p<i>.wtns, synced); returns their names.
  std::vector<std::string> adopt(const std::string& job_id, const std::vector<std::string>& files);
  const std::string& dir() const { return dir_; }

 private:
  void write_atomic(const std::string& name, const std::string& bytes);
  std::string dir_;
  int lock_fd_ = -1;
};

}  // namespace cuzk::daemon
