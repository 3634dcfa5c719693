// docs/CONFIG.md's key tables are the key table's (config/config_docs.h): a key added, renamed
// or re-ranged without its documentation fails here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "heed/base/error.h"
#include "heed/config/config_docs.h"
#include "heed/config/config_keys.h"

namespace heed {
namespace {

const std::filesystem::path kDoc = std::filesystem::path(HEED_SOURCE_DIR) / "docs" / "CONFIG.md";

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// "line N: has '...', the key table renders '...'" for the first line that differs.
std::string first_difference(const std::string& a, const std::string& b) {
  std::istringstream sa(a), sb(b);
  std::string la, lb;
  for (int n = 1;; ++n) {
    const bool ea = !std::getline(sa, la), eb = !std::getline(sb, lb);
    if (ea && eb) return "";
    if (ea || eb || la != lb)
      return "line " + std::to_string(n) + ":\n  docs/CONFIG.md has: " + (ea ? "(end)" : la) +
             "\n  the key table says: " + (eb ? "(end)" : lb);
  }
}

TEST(ConfigDocs, TablesMatchTheKeyTable) {
  const std::string doc = read_text(kDoc);
  ASSERT_FALSE(doc.empty()) << kDoc;
  const std::string generated = with_config_key_tables(doc);
  if (std::getenv("HEED_UPDATE_DOCS") != nullptr && generated != doc) {
    const auto tmp = kDoc.string() + ".tmp";
    std::ofstream(tmp, std::ios::binary) << generated;
    std::filesystem::rename(tmp, kDoc);
    return;
  }
  EXPECT_TRUE(generated == doc)
      << "docs/CONFIG.md's key tables differ from src/heed/config/config_keys.cpp at "
      << first_difference(doc, generated)
      << "\nRegenerate them with: HEED_UPDATE_DOCS=1 build/tests/test_config "
         "--gtest_filter='ConfigDocs.*' (then review the diff)";
}

TEST(ConfigDocs, EverySectionHasATable) {
  const std::vector<std::string> documented = documented_config_sections(read_text(kDoc));
  for (const std::string& section : config_sections())
    EXPECT_EQ(std::count(documented.begin(), documented.end(), section), 1)
        << "docs/CONFIG.md needs one '<!-- config-keys " << (section.empty() ? "top" : section)
        << " -->' table";
}

TEST(ConfigDocs, ARowSaysTypeDefaultRangeKindsAndHelp) {
  const std::string t = config_key_table("training");
  EXPECT_NE(t.find("| `lr` | float | `0.001` | > 0 | all | base learning rate |"), std::string::npos)
      << t;
  EXPECT_NE(config_key_table("model").find("| `glimpses` | int | `6` | ≥ 1 | ram |"),
            std::string::npos);
  EXPECT_NE(config_key_table("").find("| `output` | string | required |"), std::string::npos);
}

TEST(ConfigDocs, BadMarkersAreRefused) {
  EXPECT_THROW(with_config_key_tables("<!-- config-keys nowhere -->\n<!-- /config-keys -->\n"),
               Error);
  EXPECT_THROW(with_config_key_tables("<!-- config-keys training -->\n| old |\n"), Error);
  EXPECT_EQ(with_config_key_tables("no tables\n"), "no tables\n");
}

}  // namespace
}  // namespace heed
