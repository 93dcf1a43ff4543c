// SPDX-License-Identifier: MIT OR Apache-2.0
#include "util/cli.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "util/strings.hpp"

namespace cuzk::cli {

namespace {

constexpr size_t kWidth = 100;     // help lines are wrapped here
constexpr size_t kMaxColumn = 30;  // a longer name puts its help on the next line

bool is_help(const std::string& w) { return w == "--help" || w == "-h"; }

}  // namespace

// ---------------------------------------------------------------- Args

void Args::check_declared(const std::string& name) const {
  if (!declared_.count(name)) throw std::logic_error("the command declares no option " + name);
}

std::optional<std::string> Args::get(const std::string& option) const {
  check_declared(option);
  auto it = values_.find(option);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::string Args::get_or(const std::string& option, const std::string& fallback) const {
  return get(option).value_or(fallback);
}

const std::string& Args::value(const std::string& option) const {
  check_declared(option);
  auto it = values_.find(option);
  if (it == values_.end()) throw std::logic_error(option + " is not a required option");
  return it->second;
}

bool Args::flag(const std::string& name) const {
  check_declared(name);
  return flags_.count(name) > 0;
}

// ---------------------------------------------------------------- declaring

Command::Command(std::string name, std::string summary) : name_(std::move(name)), summary_(std::move(summary)) {}

Command& Command::describe(std::string text) {
  description_ = std::move(text);
  return *this;
}

Command& Command::synopsis(std::string line) {
  synopses_.push_back(std::move(line));
  return *this;
}

Command& Command::add_positional(Positional::Kind kind, std::string name, std::string help) {
  if (!positionals_.empty() && positionals_.back().kind == Positional::Variadic)
    throw std::logic_error(name_ + ": no positional argument after the variadic one");
  if (kind == Positional::Required && !positionals_.empty() && positionals_.back().kind != Positional::Required)
    throw std::logic_error(name_ + ": a required positional argument after an optional one");
  positionals_.push_back({kind, std::move(name), std::move(help)});
  return *this;
}

Command& Command::positional(std::string name, std::string help) {
  return add_positional(Positional::Required, std::move(name), std::move(help));
}
Command& Command::optional_positional(std::string name, std::string help) {
  return add_positional(Positional::Optional, std::move(name), std::move(help));
}
Command& Command::variadic(std::string name, std::string help) {
  return add_positional(Positional::Variadic, std::move(name), std::move(help));
}

Command& Command::option(std::string name, std::string metavar, std::string help) {
  if (name.rfind("--", 0) != 0 || find(name) || metavar.empty())
    throw std::logic_error(name_ + ": bad or repeated option declaration " + name);
  options_.push_back({std::move(name), {}, std::move(metavar), std::move(help), group_});
  return *this;
}

Command& Command::flag(std::string name, std::string help) {
  if (name.rfind("--", 0) != 0 || find(name)) throw std::logic_error(name_ + ": bad or repeated flag " + name);
  options_.push_back({std::move(name), {}, "", std::move(help), group_});
  return *this;
}

Command::Option& Command::last_option(const char* what) {
  if (options_.empty()) throw std::logic_error(name_ + ": " + what + " before any option");
  return options_.back();
}

Command& Command::alias(std::string name) {
  if (name.rfind("--", 0) != 0 || find(name)) throw std::logic_error(name_ + ": bad or repeated alias " + name);
  last_option("alias").aliases.push_back(std::move(name));
  return *this;
}

Command& Command::required() {
  Option& o = last_option("required");
  if (o.metavar.empty()) throw std::logic_error(name_ + ": a flag cannot be required (" + o.name + ")");
  o.required = true;
  return *this;
}

Command& Command::group(std::string heading) {
  group_ = std::move(heading);
  return *this;
}

const Command::Option* Command::find(const std::string& name) const {
  for (auto& o : options_)
    if (o.name == name || std::find(o.aliases.begin(), o.aliases.end(), name) != o.aliases.end()) return &o;
  return nullptr;
}

std::vector<std::string> Command::value_option_names() const {
  std::vector<std::string> out;
  for (auto& o : options_)
    if (!o.metavar.empty()) {
      out.push_back(o.name);
      out.insert(out.end(), o.aliases.begin(), o.aliases.end());
    }
  return out;
}

std::vector<std::string> Command::flag_names() const {
  std::vector<std::string> out;
  for (auto& o : options_)
    if (o.metavar.empty()) {
      out.push_back(o.name);
      out.insert(out.end(), o.aliases.begin(), o.aliases.end());
    }
  out.push_back("--help");
  out.push_back("-h");
  return out;
}

// ---------------------------------------------------------------- parsing

Args Command::parse(int argc, char** argv, int first) const {
  return parse(std::vector<std::string>(argv + std::min(first, argc), argv + argc));
}

Args Command::parse(const std::vector<std::string>& words) const {
  Args a;
  for (auto& o : options_) a.declared_.insert(o.name);
  for (auto& w : words) {
    if (w == "--") break;
    if (is_help(w)) {
      a.help = true;
      return a;
    }
  }

  bool options_ended = false;
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (options_ended || w.rfind("--", 0) != 0) {
      a.pos.push_back(w);
      continue;
    }
    if (w == "--") {
      options_ended = true;
      continue;
    }
    const size_t eq = w.find('=');
    const std::string given = w.substr(0, eq);
    const Option* o = find(given);
    if (!o) throw UsageError("unknown option " + given);
    if (o->metavar.empty()) {
      if (eq != std::string::npos) throw UsageError(given + " takes no value");
      a.flags_.insert(o->name);
      continue;
    }
    std::string value;
    if (eq != std::string::npos)
      value = w.substr(eq + 1);
    else if (i + 1 < words.size())
      value = words[++i];
    else
      throw UsageError(given + " needs a value (" + o->metavar + ")");
    if (value.empty()) throw UsageError(given + " needs a non-empty value");
    a.values_[o->name] = value;
  }

  size_t required = 0, at_most = 0;
  for (auto& p : positionals_) {
    required += p.kind == Positional::Required;
    at_most = p.kind == Positional::Variadic ? SIZE_MAX : at_most + 1;
  }
  if (a.pos.size() < required) throw ArgumentCountError("missing " + positionals_[a.pos.size()].name);
  if (a.pos.size() > at_most) throw ArgumentCountError("unexpected argument '" + a.pos[at_most] + "'");
  for (auto& o : options_)
    if (o.required && !a.values_.count(o.name)) throw UsageError("needs " + o.name + " " + o.metavar);
  return a;
}

// ---------------------------------------------------------------- help

namespace {

// One entry of a two-column list: `left` padded to `column`, `help` wrapped after it.
std::string entry(const std::string& left, const std::string& help, size_t column) {
  std::string s = "  " + left;
  if (s.size() + 2 > column)
    s += "\n" + std::string(column, ' ');
  else
    s += std::string(column - s.size(), ' ');
  return s + wrap(help, kWidth, column) + "\n";
}

}  // namespace

std::string wrap(const std::string& text, size_t width, size_t indent) {
  std::string out;
  size_t col = indent;  // the caller has put the first line's cursor there
  bool first = true;
  for (const std::string& line : split(text, '\n')) {
    if (!first) out += "\n" + std::string(indent, ' '), col = indent;
    first = false;
    const size_t lead = std::min(line.find_first_not_of(' '), line.size());
    out += line.substr(0, lead);
    col += lead;
    bool line_start = true;
    for (const std::string& word : split(line.substr(lead), ' ')) {
      if (word.empty()) continue;
      if (!line_start && col + 1 + word.size() > width) {
        out += "\n" + std::string(indent + lead, ' ');
        col = indent + lead;
        line_start = true;
      }
      if (!line_start) out += ' ', ++col;
      out += word;
      col += word.size();
      line_start = false;
    }
  }
  return out;
}

std::string Command::help() const {
  auto option_left = [](const Option& o) {
    std::string s = o.name;
    for (auto& a : o.aliases) s += ", " + a;
    return o.metavar.empty() ? s : s + " " + o.metavar;
  };
  auto positional_text = [](const Positional& p) {
    if (p.kind == Positional::Required) return p.name;
    return "[" + p.name + (p.kind == Positional::Variadic ? " ...]" : "]");
  };

  std::string s = "cuzk " + name_ + ": " + summary_ + "\n\n";
  std::vector<std::string> lines = synopses_;
  if (lines.empty()) {
    std::string l;
    for (auto& p : positionals_) l += (l.empty() ? "" : " ") + positional_text(p);
    bool any_optional = false;
    for (auto& o : options_) {
      if (o.required) l += (l.empty() ? "" : " ") + o.name + " " + o.metavar;
      any_optional |= !o.required;
    }
    if (any_optional) l += l.empty() ? "[options]" : " [options]";
    lines.push_back(l);
  }
  for (size_t i = 0; i < lines.size(); ++i)
    s += (i ? "       cuzk " : "usage: cuzk ") + name_ + (lines[i].empty() ? "" : " " + lines[i]) + "\n";
  if (!description_.empty()) s += "\n" + wrap(description_, kWidth) + "\n";

  const Option help_option{"-h", {"--help"}, "", "print this usage", "options"};
  size_t column = option_left(help_option).size();
  for (auto& p : positionals_) column = std::max(column, positional_text(p).size());
  for (auto& o : options_) column = std::max(column, option_left(o).size());
  column = std::min(column + 4, kMaxColumn);

  if (!positionals_.empty()) {
    s += "\narguments:\n";
    for (auto& p : positionals_) s += entry(positional_text(p), p.help, column);
  }
  std::vector<std::string> groups = {"options"};
  for (auto& o : options_)
    if (std::find(groups.begin(), groups.end(), o.group) == groups.end()) groups.push_back(o.group);
  for (auto& g : groups) {
    s += "\n" + g + ":\n";
    for (auto& o : options_)
      if (o.group == g) s += entry(option_left(o), o.help + (o.required ? " (required)" : ""), column);
    if (g == "options") s += entry(option_left(help_option), help_option.help, column);
  }
  return s;
}

std::string command_table(const std::vector<const Command*>& commands) {
  // A name of several words longer than this puts its summary on the next line rather than
  // pushing every summary right.
  constexpr size_t kMaxName = 16;
  size_t column = 0;
  for (auto* c : commands)
    if (c->name().size() <= kMaxName) column = std::max(column, c->name().size());
  column = std::min(column + 4, kMaxColumn);
  std::string s;
  for (auto* c : commands) s += entry(c->name(), c->summary(), column);
  return s;
}

std::string bash_completion(const std::string& program, const std::vector<const Command*>& commands) {
  auto joined = [](const std::vector<std::string>& v) { return join(v, ' '); };
  auto replace = [](std::string s, const std::string& from, const std::string& to) {
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
      s.replace(at, from.size(), to);
    return s;
  };
  // Longest names first: "zkey export verificationkey" is found before a shorter name that
  // starts it.
  std::vector<const Command*> by_length = commands;
  std::stable_sort(by_length.begin(), by_length.end(),
                   [](const Command* a, const Command* b) { return a->name().size() > b->name().size(); });
  std::string names, cases;
  for (auto* c : by_length) {
    names += (names.empty() ? "'" : " '") + c->name() + "'";
    cases += "    '" + c->name() + "') values='" + joined(c->value_option_names()) + "' flags='" +
             joined(c->flag_names()) + "' ;;\n";
  }
  std::string s = R"(# bash completion for PROGRAM, generated from its commands by `PROGRAM completion bash`.
# Load it with: source <(PROGRAM completion bash)
_PROGRAM_complete() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
  local line="${COMP_WORDS[*]:1:COMP_CWORD-1}" cmd="" name next prefix
  local names=(NAMES)
  COMPREPLY=()
  # The command: the longest name that the words before the cursor start with.
  for name in "${names[@]}"; do
    if [[ "$line" == "$name" || "$line" == "$name "* ]]; then cmd=$name; break; fi
  done
  # A command's name, word by word; after `help`, the name of the command to explain.
  if [[ -z "$cmd" || "$cmd" == help ]]; then
    prefix=$line
    if [[ "$cmd" == help ]]; then prefix=${line#help}; prefix=${prefix# }; fi
    local words=()
    for name in "${names[@]}"; do
      if [[ -z "$prefix" ]]; then next=${name%% *}
      elif [[ "$name" == "$prefix "* ]]; then next=${name#"$prefix "}; next=${next%% *}
      else continue; fi
      words+=("$next")
    done
    if [[ ${#words[@]} -gt 0 ]]; then
      mapfile -t COMPREPLY < <(compgen -W "${words[*]}" -- "$cur")
      return 0
    fi
    [[ -z "$cmd" ]] && return 0
  fi
  local values="" flags=""
  case $cmd in
CASES  esac
  # The value of an option that takes one, and positional arguments: file names.
  if [[ " $values " == *" $prev "* || "$cur" != -* ]]; then
    compopt -o filenames 2> /dev/null
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
  else
    mapfile -t COMPREPLY < <(compgen -W "$values $flags" -- "$cur")
  fi
  return 0
}
complete -F _PROGRAM_complete PROGRAM
)";
  s = replace(s, "NAMES", names);
  s = replace(s, "CASES", cases);
  return replace(s, "PROGRAM", program);
}

}  // namespace cuzk::cli
