#pragma once
// A small reasoning task in bAbI's text format for fast tests of the bAbI reader and of
// memory networks, in the manner of bAbI's task 1 (single supporting fact): people move
// between places ("Mary went to the kitchen."), and each question asks where one of them is
// ("Where is Mary?<TAB>kitchen<TAB>ID"), its supporting fact being that person's last move.
// parse_babi reads it as it reads bAbI's own files.
#include <cstdint>
#include <string>

namespace heed::testing {

struct BabiMovesOptions {
  int people = 4;               // 1..8: Mary, John, Sandra, Daniel, Fred, Bill, Julie, Emily
  int places = 5;               // 2..8: kitchen, garden, hallway, bathroom, office, bedroom, ...
  int questions_per_story = 3;  // each after its own run of new statements
  int min_statements = 2;       // statements before each question: uniform in
  int max_statements = 8;       // [min_statements, max_statements], at least 1
};

// stories stories, every choice drawn from Rng(seed): the same arguments give the same text.
// Each statement moves a person to a place other than where they are; a question asks about a
// person who has moved in the story, chosen uniformly among them. Lines end in "\n".
std::string babi_moves_text(int stories, std::uint64_t seed, const BabiMovesOptions& options = {});

}  // namespace heed::testing
