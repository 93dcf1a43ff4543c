// SPDX-License-Identifier: MIT OR Apache-2.0
// Long work shown on a terminal: one line on stderr saying what is under way and for how long
// ("cuzk: reading key.zkey (1.2 GB) ... 3.4 s"), redrawn five times a second and cleared when
// the work ends. Nothing is drawn when stderr is not a terminal (a log, a pipe, a CI job): there
// only the command's own lines appear.
#pragma once
#include <memory>
#include <string>

namespace cuzk::term {

class Activity {
 public:
  // Shown while the object lives, when `show` and stderr is a terminal; one at a time (a second
  // replaces the first until it ends).
  explicit Activity(std::string what, bool show = true);
  ~Activity();
  Activity(const Activity&) = delete;
  Activity& operator=(const Activity&) = delete;
  void set(std::string what);  // the next step of the same work

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

// "cuzk: LINE" on stderr, above the activity line when one is drawn (which is then drawn again).
void say(const std::string& line);

// " (1.2 GB)": the size of the file at `path`, to name it in an activity; "" when unknown.
std::string size_note(const std::string& path);

// Whether activities are drawn: stderr is a terminal and $TERM is not "dumb".
bool drawing();

}  // namespace cuzk::term
