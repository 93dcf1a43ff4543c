// SPDX-License-Identifier: MIT OR Apache-2.0
// The command-line parser of every cuzk command. A command declares its positional arguments,
// its options (`--name VALUE` or `--name=VALUE`) and its flags (`--name`); parse() checks the
// words after the command's name against them, and help() prints the usage generated from the
// same declarations, so the two cannot disagree.
//
//   cli::Command c("setup", "an insecure Groth16 key for tests and benchmarks");
//   c.positional("<circuit.r1cs>", "the constraint system")
//       .option("--seed", "N", "derive the toxic waste from N")
//       .option("--device", "D", "gpu:N, cpu or auto").alias("--devices")
//       .flag("--insecure", "confirm that the key is for tests only");
//   cli::Args a = c.parse(argc, argv, 2);       // throws cli::UsageError
//   if (a.help) return print(c.help());        // --help or -h was given
//   a.pos[0]; a.get("--seed"); a.get_or("--device", "auto"); a.flag("--insecure");
//
// Rules: an option's value is the next word whatever it looks like (`--threads -1`), or what
// follows '='; an empty value is refused; the last of repeated options wins. A word that does not
// start with "--" is positional, and so is every word after "--". `--help` or `-h` anywhere
// before a "--" asks for the usage: nothing else is checked then.
#pragma once
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace cuzk::cli {

// Wrong usage of a command (unknown option, missing value, missing argument...): exit code 2.
struct UsageError : Error {
  using Error::Error;
};
// The usage error of too few or too many positional arguments (a command that mimics another
// tool's messages tells it apart).
struct ArgumentCountError : UsageError {
  using UsageError::UsageError;
};

// What parse() found. Options are looked up by the name they were declared with (never an
// alias); asking for a name the command does not declare is a bug and throws std::logic_error.
struct Args {
  bool help = false;             // --help or -h: the rest was not checked
  std::vector<std::string> pos;  // the positional arguments in order, variadic ones included

  std::optional<std::string> get(const std::string& option) const;
  std::string get_or(const std::string& option, const std::string& fallback) const;
  const std::string& value(const std::string& option) const;  // of a required option
  bool flag(const std::string& name) const;

 private:
  friend class Command;
  void check_declared(const std::string& name) const;
  std::map<std::string, std::string> values_;
  std::set<std::string> flags_;
  std::set<std::string> declared_;
};

class Command {
 public:
  Command(std::string name, std::string summary);

  // Paragraphs printed after the usage lines. Each '\n'-separated line is wrapped at 100 columns.
  Command& describe(std::string text);
  // A usage line after "cuzk NAME " (several for a command of several forms); without any, the
  // line is generated from the declarations.
  Command& synopsis(std::string line);

  Command& positional(std::string name, std::string help);           // required, in order
  Command& optional_positional(std::string name, std::string help);  // after the required ones
  Command& variadic(std::string name, std::string help);             // any number, last

  Command& option(std::string name, std::string metavar, std::string help);
  Command& flag(std::string name, std::string help);
  Command& alias(std::string name);  // another name of the last option or flag
  Command& required();               // the last option must be given
  // The options declared after this are listed under `heading` (before any: "options").
  Command& group(std::string heading);

  Args parse(const std::vector<std::string>& words) const;
  Args parse(int argc, char** argv, int first) const;  // argv[first..argc)
  std::string help() const;

  // The name may be several words ("zkey export verificationkey"): the command is then named by
  // those words in order.
  const std::string& name() const { return name_; }
  const std::string& summary() const { return summary_; }
  // Every spelling (aliases included) of the options that take a value, and of the flags
  // (--help and -h included), in declaration order: what shell completion offers.
  std::vector<std::string> value_option_names() const;
  std::vector<std::string> flag_names() const;

 private:
  struct Positional {
    enum Kind { Required, Optional, Variadic } kind;
    std::string name, help;
  };
  struct Option {
    std::string name;
    std::vector<std::string> aliases;
    std::string metavar;  // empty: a flag
    std::string help;
    std::string group;
    bool required = false;
  };
  const Option* find(const std::string& name) const;
  Option& last_option(const char* what);
  Command& add_positional(Positional::Kind kind, std::string name, std::string help);

  std::string name_, summary_, description_, group_ = "options";
  std::vector<std::string> synopses_;
  std::vector<Positional> positionals_;
  std::vector<Option> options_;
};

// "  NAME   SUMMARY" for each command, aligned: the command list of `cuzk help`.
std::string command_table(const std::vector<const Command*>& commands);

// A bash completion script for `program` generated from its commands: command names complete
// word by word (a name of several words, one word at a time), then each command's options; the
// value of an option that takes one, and positional arguments, complete as file names; the
// positional arguments of a command named "help" complete as command names.
std::string bash_completion(const std::string& program, const std::vector<const Command*>& commands);

// `text` wrapped at `width` columns for a cursor already at column `indent`: every further line
// starts at `indent`, plus the leading spaces of the '\n'-separated line it continues.
std::string wrap(const std::string& text, size_t width, size_t indent = 0);

}  // namespace cuzk::cli
