// SPDX-License-Identifier: MIT OR Apache-2.0
// The command-line parser (util/cli.hpp): options in both forms, aliases, flags, positionals of
// every kind, each usage error naming its problem, and a generated usage that names every
// declaration.
#include <stdexcept>
#include <string>
#include <vector>

#include "testing.hpp"
#include "util/cli.hpp"

using namespace cuzk;
using Words = std::vector<std::string>;

namespace {

// "a|b|c": vectors compared as text, so that a failure prints both.
std::string join(const Words& w) {
  std::string s;
  for (auto& x : w) s += (s.empty() ? "" : "|") + x;
  return s;
}

// A command of every kind of declaration.
cli::Command sample() {
  cli::Command c("sample", "a command of every kind of declaration");
  c.describe(
       "What it does.\nA second line that is long enough to be wrapped at a hundred columns, words and words "
       "and more words until it is.")
      .positional("<in>", "the input")
      .optional_positional("<out>", "the output")
      .option("--device", "D", "where it runs")
      .alias("--devices")
      .option("--seed", "N", "the seed")
      .flag("--quiet", "no progress lines")
      .group("options of the other form")
      .option("--shape", "SHAPE", "porep or dense")
      .required();
  return c;
}

cli::Command with_variadic() {
  cli::Command c("many", "a key then pairs");
  c.positional("<key>", "the key").variadic("<item>", "more items").flag("--quiet", "quiet");
  return c;
}

}  // namespace

CUZK_TEST(options_in_both_forms_and_aliases) {
  cli::Args a = sample().parse(Words{"in.txt", "--device", "gpu:1", "--seed=7", "--shape", "porep"});
  CHECK(!a.help);
  CHECK_EQ(a.pos.size(), size_t(1));
  CHECK_EQ(a.pos[0], std::string("in.txt"));
  CHECK_EQ(a.get("--device").value_or(""), std::string("gpu:1"));
  CHECK_EQ(a.get("--seed").value_or(""), std::string("7"));
  CHECK_EQ(a.value("--shape"), std::string("porep"));
  CHECK(!a.flag("--quiet"));

  // An alias sets the option it names; the last of repeated options wins.
  a = sample().parse(Words{"--devices=cpu", "in", "out", "--shape", "dense", "--devices", "sim:2", "--quiet"});
  CHECK_EQ(a.get("--device").value_or(""), std::string("sim:2"));
  CHECK_EQ(join(a.pos), std::string("in|out"));
  CHECK(a.flag("--quiet"));
  CHECK(!a.get("--seed").has_value());
  CHECK_EQ(a.get_or("--seed", "1"), std::string("1"));
}

CUZK_TEST(a_value_is_the_next_word_whatever_it_looks_like) {
  cli::Args a = sample().parse(Words{"in", "--seed", "-1", "--shape", "--quiet"});
  CHECK_EQ(a.get_or("--seed", ""), std::string("-1"));
  CHECK_EQ(a.value("--shape"), std::string("--quiet"));
  CHECK(!a.flag("--quiet"));
  a = sample().parse(Words{"in", "--shape=a=b"});
  CHECK_EQ(a.value("--shape"), std::string("a=b"));
}

CUZK_TEST(usage_errors_name_the_problem) {
  auto c = sample();
  CHECK_THROWS_WITH(c.parse(Words{"in", "--shape", "x", "--bogus"}), cli::UsageError, "unknown option --bogus");
  CHECK_THROWS_WITH(c.parse(Words{"in", "--shape", "x", "--bogus=1"}), cli::UsageError, "unknown option --bogus");
  CHECK_THROWS_WITH(c.parse(Words{"in", "--shape"}), cli::UsageError, "--shape needs a value (SHAPE)");
  CHECK_THROWS_WITH(c.parse(Words{"in", "--shape", ""}), cli::UsageError, "--shape needs a non-empty value");
  CHECK_THROWS_WITH(c.parse(Words{"in", "--shape="}), cli::UsageError, "--shape needs a non-empty value");
  CHECK_THROWS_WITH(c.parse(Words{"in", "--devices="}), cli::UsageError, "--devices needs a non-empty value");
  CHECK_THROWS_WITH(c.parse(Words{"in", "--shape", "x", "--quiet=1"}), cli::UsageError, "--quiet takes no value");
  CHECK_THROWS_WITH(c.parse(Words{"--shape", "x"}), cli::UsageError, "missing <in>");
  CHECK_THROWS_WITH(c.parse(Words{"a", "b", "c", "--shape", "x"}), cli::UsageError, "unexpected argument 'c'");
  // Both are ArgumentCountError, which a command that mimics another tool tells apart.
  CHECK_THROWS_WITH(c.parse(Words{"--shape", "x"}), cli::ArgumentCountError, "missing <in>");
  CHECK_THROWS_WITH(c.parse(Words{"a", "b", "c", "--shape", "x"}), cli::ArgumentCountError, "unexpected argument");
  CHECK_THROWS_WITH(c.parse(Words{"in", "--seed", "1"}), cli::UsageError, "needs --shape SHAPE");
  // A single dash is no option: "-" and "-5" are positional.
  CHECK_EQ(join(c.parse(Words{"-", "--shape", "x"}).pos), std::string("-"));
}

CUZK_TEST(help_anywhere_wins_over_every_other_check) {
  auto c = sample();
  for (const Words& w : {Words{"--help"}, Words{"-h"}, Words{"--bogus", "-h"}, Words{"in", "out", "extra", "--help"},
                         Words{"--seed", "1", "--help", "--shape"}}) {
    cli::Args a = c.parse(w);
    CHECK(a.help);
  }
  // After "--" every word is positional, --help included.
  cli::Args a = c.parse(Words{"--shape", "x", "--", "--help", "--seed"});
  CHECK(!a.help);
  CHECK_EQ(join(a.pos), std::string("--help|--seed"));
}

CUZK_TEST(variadic_positionals) {
  auto c = with_variadic();
  CHECK_EQ(join(c.parse(Words{"k"}).pos), std::string("k"));
  CHECK_EQ(join(c.parse(Words{"k", "a", "--quiet", "b", "c"}).pos), std::string("k|a|b|c"));
  CHECK_THROWS_WITH(c.parse(Words{"--quiet"}), cli::UsageError, "missing <key>");
  CHECK_THROWS_WITH(c.parse(Words{"k", "--item"}), cli::UsageError, "unknown option --item");
}

CUZK_TEST(asking_for_an_undeclared_option_is_a_bug) {
  cli::Args a = sample().parse(Words{"in", "--shape", "x"});
  CHECK_THROWS_WITH(a.get("--devices"), std::logic_error, "--devices");  // an alias, not the option's name
  CHECK_THROWS_WITH(a.flag("--verbose"), std::logic_error, "--verbose");
  CHECK_THROWS_WITH(a.value("--seed"), std::logic_error, "--seed");  // not required: may be absent
  CHECK_THROWS_WITH(cli::Command("x", "y").flag("--a", "").option("--a", "V", ""), std::logic_error, "--a");
  CHECK_THROWS_WITH(cli::Command("x", "y").variadic("<a>", "").positional("<b>", ""), std::logic_error, "variadic");
  CHECK_THROWS_WITH(cli::Command("x", "y").flag("--a", "").required(), std::logic_error, "--a");
}

CUZK_TEST(help_names_every_declaration) {
  const std::string h = sample().help();
  for (const char* needle :
       {"cuzk sample: a command of every kind of declaration",
        "usage: cuzk sample <in> [<out>] --shape SHAPE [options]", "What it does.", "<in>", "the input", "[<out>]",
        "the output", "--device, --devices D", "where it runs", "--seed N", "the seed", "--quiet", "no progress lines",
        "options of the other form:", "--shape SHAPE", "porep or dense (required)", "-h, --help", "print this usage"})
    CHECK_MSG(h.find(needle) != std::string::npos, "'" << needle << "' not in:\n" << h);
  for (size_t b = 0, e; (e = h.find('\n', b)) != std::string::npos; b = e + 1)
    CHECK_MSG(e - b <= 100, "a line of " << e - b << " columns: " << h.substr(b, e - b));
  CHECK(with_variadic().help().find("usage: cuzk many <key> [<item> ...] [options]") != std::string::npos);

  cli::Command two("two", "two forms");
  two.synopsis("<a> [options]").synopsis("--b B [options]").option("--b", "B", "the second form");
  const std::string h2 = two.help();
  CHECK_MSG(h2.find("usage: cuzk two <a> [options]\n       cuzk two --b B [options]\n") != std::string::npos, h2);

  cli::Command a("aa", "first"), b("bbbbbb", "second");
  CHECK_EQ(cli::command_table({&a, &b}), std::string("  aa      first\n  bbbbbb  second\n"));
}

CUZK_TEST(wrap_keeps_words_and_indents) {
  CHECK_EQ(cli::wrap("aaa bbb ccc", 7), std::string("aaa bbb\nccc"));
  CHECK_EQ(cli::wrap("aaa bbb ccc", 9, 2), std::string("aaa bbb\n  ccc"));
  CHECK_EQ(cli::wrap("x\n  aaa bbb", 7), std::string("x\n  aaa\n  bbb"));
  CHECK_EQ(cli::wrap("averyveryverylongword b", 5), std::string("averyveryverylongword\nb"));
}

CUZK_TEST(completion_offers_every_spelling_of_each_command) {
  auto c = sample();
  CHECK_EQ(join(c.value_option_names()), std::string("--device|--devices|--seed|--shape"));
  CHECK_EQ(join(c.flag_names()), std::string("--quiet|--help|-h"));
  cli::Command long_name("zkey export verificationkey", "a name of three words");
  long_name.positional("<in>", "the key");
  const std::string script = cli::bash_completion("prog", {&c, &long_name});
  // The longest name first (found before a shorter one that starts it), each with its options.
  CHECK(script.find("local names=('zkey export verificationkey' 'sample')") != std::string::npos);
  CHECK(script.find("'sample') values='--device --devices --seed --shape' flags='--quiet --help -h' ;;") !=
        std::string::npos);
  CHECK(script.find("'zkey export verificationkey') values='' flags='--help -h' ;;") != std::string::npos);
  CHECK(script.find("complete -F _prog_complete prog") != std::string::npos);
  CHECK(script.find("PROGRAM") == std::string::npos && script.find("CASES") == std::string::npos);
}

CUZK_TEST(a_long_command_name_does_not_push_every_summary_right) {
  cli::Command a("prove", "one"), b("zkey export verificationkey", "two");
  const std::string t = cli::command_table({&a, &b});
  CHECK_EQ(t, std::string("  prove  one\n  zkey export verificationkey\n         two\n"));
}
