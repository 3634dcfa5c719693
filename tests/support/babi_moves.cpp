#include "support/babi_moves.h"

#include <array>
#include <string_view>
#include <vector>

#include "heed/base/error.h"
#include "heed/base/random.h"

namespace heed::testing {
namespace {

constexpr std::array<std::string_view, 8> kPeople = {"Mary", "John", "Sandra", "Daniel",
                                                     "Fred", "Bill", "Julie",  "Emily"};
constexpr std::array<std::string_view, 8> kPlaces = {"kitchen", "garden",  "hallway", "bathroom",
                                                     "office",  "bedroom", "cellar",  "garage"};
constexpr std::array<std::string_view, 5> kVerbs = {"went to", "moved to", "journeyed to",
                                                    "travelled to", "went back to"};

}  // namespace

std::string babi_moves_text(int stories, std::uint64_t seed, const BabiMovesOptions& options) {
  const BabiMovesOptions& o = options;
  HEED_CHECK(stories >= 0, "babi_moves_text: stories ", stories, ", expected at least 0");
  HEED_CHECK(o.people >= 1 && o.people <= static_cast<int>(kPeople.size()),
             "babi_moves_text: people ", o.people, ", expected 1..", kPeople.size());
  HEED_CHECK(o.places >= 2 && o.places <= static_cast<int>(kPlaces.size()),
             "babi_moves_text: places ", o.places, ", expected 2..", kPlaces.size());
  HEED_CHECK(o.questions_per_story >= 1, "babi_moves_text: questions_per_story ",
             o.questions_per_story, ", expected at least 1");
  HEED_CHECK(o.min_statements >= 1 && o.min_statements <= o.max_statements,
             "babi_moves_text: statements ", o.min_statements, "..", o.max_statements,
             ", expected 1 <= min <= max");
  Rng rng(seed);
  std::string text;
  for (int s = 0; s < stories; ++s) {
    std::vector<int> place(o.people, -1);     // where each person is (-1: not said)
    std::vector<int> last_move(o.people, 0);  // the ID of each person's last move
    std::vector<int> moved;                   // the people who have moved, in order
    int id = 0;
    for (int q = 0; q < o.questions_per_story; ++q) {
      const int statements =
          o.min_statements + static_cast<int>(rng.below(o.max_statements - o.min_statements + 1));
      for (int k = 0; k < statements; ++k) {
        const int who = static_cast<int>(rng.below(o.people));
        int where = static_cast<int>(rng.below(o.places - (place[who] >= 0 ? 1 : 0)));
        if (place[who] >= 0 && where >= place[who]) ++where;  // never where they are already
        if (place[who] < 0) moved.push_back(who);
        place[who] = where;
        last_move[who] = ++id;
        text += std::to_string(id) + " " + std::string(kPeople[who]) + " " +
                std::string(kVerbs[rng.below(kVerbs.size())]) + " the " +
                std::string(kPlaces[where]) + ".\n";
      }
      const int who = moved[rng.below(moved.size())];
      text += std::to_string(++id) + " Where is " + std::string(kPeople[who]) + "? \t" +
              std::string(kPlaces[place[who]]) + "\t" + std::to_string(last_move[who]) + "\n";
    }
  }
  return text;
}

}  // namespace heed::testing
