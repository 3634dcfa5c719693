// The public API's boundary (docs/API.md): the headers of include/heed/ include only the
// standard library and each other, so an installed heed needs no internal header and none
// of the libraries heed uses (tools/package/check_installed.sh compiles examples/embed, which
// includes heed/heed.h, against the installed headers alone); and no internal folder
// includes src/heed/api, the top layer.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>

namespace heed {
namespace {

namespace fs = std::filesystem;

TEST(PublicApi, HeadersIncludeOnlyTheStandardLibraryAndEachOther) {
  const fs::path include = fs::path(HEED_SOURCE_DIR) / "include" / "heed";
  std::set<std::string> public_names;
  for (const auto& f : fs::directory_iterator(include)) {
    std::string name = f.path().filename().string();
    if (name.ends_with(".h.in")) name.resize(name.size() - 3);  // version.h, generated
    public_names.insert("heed/" + name);
  }
  ASSERT_TRUE(public_names.count("heed/translator.h")) << "read " << include;
  const std::regex quoted(R"(^\s*#\s*include\s*"([^"]+)\")");
  const std::regex angled(R"(^\s*#\s*include\s*<([^>]+)>)");
  for (const auto& f : fs::directory_iterator(include)) {
    std::ifstream in(f.path());
    std::string line;
    std::smatch m;
    int n = 0;
    while (std::getline(in, line)) {
      ++n;
      const std::string where = f.path().filename().string() + ":" + std::to_string(n);
      if (std::regex_search(line, m, quoted)) {
        EXPECT_TRUE(public_names.count(m[1])) << where << " includes \"" << m[1] << "\"";
      }
      if (std::regex_search(line, m, angled)) {
        EXPECT_EQ(std::string(m[1]).find('/'), std::string::npos)
            << where << " includes <" << m[1] << ">, not a standard header";
      }
    }
  }
}

TEST(PublicApi, NoInternalFolderIncludesTheApiLayer) {
  const fs::path src = fs::path(HEED_SOURCE_DIR) / "src" / "heed";
  const std::regex api(R"(^\s*#\s*include\s*"heed/api/)");
  for (const auto& f : fs::recursive_directory_iterator(src)) {
    if (!f.is_regular_file() || f.path().parent_path().filename() == "api") continue;
    std::ifstream in(f.path());
    std::string line;
    while (std::getline(in, line)) EXPECT_FALSE(std::regex_search(line, api)) << f.path();
  }
}

}  // namespace
}  // namespace heed
