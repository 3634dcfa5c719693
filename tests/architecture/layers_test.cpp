// The structure docs/ARCHITECTURE.md promises, checked on the sources themselves:
//   - the folders of src/heed include each other without a cycle (every include goes down
//     the layers drawn in docs/figures/architecture.svg);
//   - no header name exists in two folders (an include names one concept, whatever folder
//     a reader starts from);
//   - the project cites only its own files: no source or test points outside the
//     repository for its mathematics or its reference (docs/MODELS.md, tools/reference/).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace heed {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = fs::path(HEED_SOURCE_DIR) / "src" / "heed";

// folder -> the other folders its files include ("heed/<folder>/...").
std::map<std::string, std::set<std::string>> folder_includes() {
  std::map<std::string, std::set<std::string>> graph;
  const std::regex include(R"(^\s*#\s*include\s*"heed/([a-z_]+)/)");
  for (const auto& dir : fs::directory_iterator(kSource)) {
    if (!dir.is_directory()) continue;
    const std::string folder = dir.path().filename().string();
    graph[folder];
    for (const auto& file : fs::directory_iterator(dir.path())) {
      std::ifstream in(file.path());
      std::string line;
      std::smatch m;
      while (std::getline(in, line))
        if (std::regex_search(line, m, include) && m[1] != folder) graph[folder].insert(m[1]);
    }
  }
  return graph;
}

// A cycle through the graph as "a -> b -> a", or "" when there is none.
std::string find_cycle(const std::map<std::string, std::set<std::string>>& graph) {
  std::map<std::string, int> state;  // 1: on the path, 2: done
  std::vector<std::string> path;
  std::string cycle;
  std::function<bool(const std::string&)> visit = [&](const std::string& u) {
    state[u] = 1;
    path.push_back(u);
    const auto it = graph.find(u);
    if (it != graph.end()) {
      for (const std::string& v : it->second) {
        if (state[v] == 1) {
          for (auto p = std::find(path.begin(), path.end(), v); p != path.end(); ++p)
            cycle += *p + " -> ";
          cycle += v;
          return true;
        }
        if (state[v] == 0 && visit(v)) return true;
      }
    }
    path.pop_back();
    state[u] = 2;
    return false;
  };
  for (const auto& [u, _] : graph)
    if (state[u] == 0 && visit(u)) break;
  return cycle;
}

TEST(Layers, FoldersIncludeEachOtherWithoutACycle) {
  const auto graph = folder_includes();
  ASSERT_GT(graph.size(), 10u) << "read " << kSource;
  EXPECT_EQ(find_cycle(graph), "") << "an include goes against the layers";
  // The foundations include nothing but base.
  for (const char* low : {"base", "tensor", "kernels", "data", "metrics"})
    for (const std::string& up : graph.at(low))
      EXPECT_EQ(up, "base") << low << " includes " << up;
  // audio reads WAV files into samples and turns them into feature tensors: base and tensor.
  for (const std::string& up : graph.at("audio"))
    EXPECT_TRUE(up == "base" || up == "tensor") << "audio includes " << up;
}

TEST(Layers, TheCycleFinderFindsACycle) {
  EXPECT_EQ(find_cycle({{"a", {"b"}}, {"b", {"c"}}, {"c", {"a"}}}), "a -> b -> c -> a");
  EXPECT_EQ(find_cycle({{"a", {"b", "c"}}, {"b", {"c"}}, {"c", {}}}), "");
}

TEST(Layers, NoHeaderNameInTwoFolders) {
  std::map<std::string, std::vector<std::string>> where;
  for (const auto& file : fs::recursive_directory_iterator(kSource))
    if (file.path().extension() == ".h")
      where[file.path().filename().string()].push_back(
          file.path().parent_path().filename().string());
  for (const auto& [name, folders] : where) {
    std::string list;
    for (const auto& f : folders) list += " " + f + "/";
    EXPECT_EQ(folders.size(), 1u) << name << " exists in" << list;
  }
}

TEST(Layers, SourcesCiteOnlyTheProjectsOwnFiles) {
  for (const char* top : {"src", "tests", "tools", "bench", "examples"}) {
    const fs::path root = fs::path(HEED_SOURCE_DIR) / top;
    if (!fs::exists(root)) continue;
    for (const auto& file : fs::recursive_directory_iterator(root)) {
      if (!file.is_regular_file() || file.path().filename() == "layers_test.cpp") continue;
      const std::string ext = file.path().extension().string();
      if (ext != ".h" && ext != ".cpp" && ext != ".py" && ext != ".sh" && ext != ".md") continue;
      std::ifstream in(file.path());
      std::string line;
      for (int n = 1; std::getline(in, line); ++n)
        EXPECT_EQ(line.find("../shared/"), std::string::npos)
            << file.path().string() << ":" << n << " points outside the repository: " << line;
    }
  }
}

}  // namespace
}  // namespace heed
