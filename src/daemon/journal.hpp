// SPDX-License-Identifier: MIT OR Apache-2.0
// The daemon's journal: a directory of job records, each written and synced (file and directory)
// before it counts. A job has a record `<job>.job` (its request, and its witnesses until it
// ends), its streamed witnesses `<job>.p<i>.wtns`, and once it has ended a result `<job>.done`;
// after a crash the jobs without a result run again, results are kept until they expire.
//
// Layout: jobs/<xx>/<job>.*, where xx (two hex digits) is a hash of the job id: 256 folders,
// so no folder grows with the journal. quarantine/ keeps records that failed their checksum;
// incoming/ holds uploads not yet acknowledged (emptied at start). Files of the first layout
// (every file at the top) move into their folder at start.
//
// Record format: "\0cuzkjr1", then two sections, each a little-endian u64 length, a CRC-32C of
// its bytes and the bytes: the job's ids (a JournalJob with job_id and request_id only) and the
// body (the JournalJob or the JournalOutcome). A file that does not begin with the magic is a
// record of the first format (the body alone, no checksum): a protobuf record never begins with
// a NUL byte (field number 0 does not exist). The ids section lets a job whose body is damaged
// still be found by its request_id; the file's name keeps its job id whatever the damage.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "daemon/generic_api.hpp"

namespace cuzk::daemon {

class Journal {
 public:
  // Creates the directory if missing, takes its lock, moves files of the first layout into
  // their folders. Throws Error naming it when it cannot be used.
  explicit Journal(std::string dir);
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  // A job as load() found it.
  struct Entry {
    v1::JournalJob job;  // with ended_unix_ms set once its result is on disk
    // The result, read at start only where the job's record does not say it ended (a record of
    // the first format, or a crash between the two writes of finish()).
    std::optional<v1::JournalOutcome> outcome;
    // What load() did about a corrupt record of this job ("" when none): the job's record
    // (then `job` has its ids only, as far as they survived) or its result was quarantined.
    std::string corrupt;
    bool job_corrupt = false;
    bool witnesses_present = true;  // its witnesses can still be read (for a corrupt result)
  };
  // Every job in the journal; removes interrupted writes and files of no job (orphans), and
  // quarantines corrupt records, each reported through `say`.
  std::vector<Entry> load(const std::function<void(const std::string&)>& say);

  // Durable before they return (file and directory synced); on an error nothing of it stays.
  // `witnesses`: written into the record as its partitions, without a copy of the job.
  void accept(const v1::JournalJob& job, const std::vector<const std::string*>& witnesses = {});
  // Writes the result, then the job's record again without its witnesses, saying it ended, and
  // drops its witness files.
  void finish(const v1::JournalJob& job, const v1::JournalOutcome& outcome);
  // A job's result, read back (nullopt when it has none). A corrupt one is quarantined and
  // `corrupt` set.
  std::optional<v1::JournalOutcome> result(const std::string& job_id, bool* corrupt = nullptr);
  // The job's files, each by its name: no directory is listed.
  void remove(const std::string& job_id);
  // Moves a job's witness files into the journal (<job>.p<i>.wtns, synced); returns their names.
  std::vector<std::string> adopt(const std::string& job_id, const std::vector<std::string>& files);
  // The path of a journal file of a job (a name adopt() returned, or <job>.job ...).
  std::string path_of(const std::string& job_id, const std::string& name) const;
  const std::string& dir() const { return dir_; }
  uint64_t quarantined() const { return quarantined_; }

 private:
  void write_record(const std::string& job_id, const std::string& name, const std::string& ids,
                    const std::vector<std::string_view>& body);
  void quarantine(const std::string& job_id, const std::string& name);
  std::string shard_dir(const std::string& job_id);  // created (and synced) if missing
  void migrate_first_layout();
  std::string dir_;
  int lock_fd_ = -1;
  std::atomic<uint64_t> quarantined_{0};
};

// CRC-32C (Castagnoli), as the journal's records carry it.
uint32_t crc32c(const void* data, size_t n, uint32_t crc = 0);

}  // namespace cuzk::daemon
