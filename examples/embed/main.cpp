// Translates standard input with a model directory written by `heed train`, through heed's
// C++ API (docs/API.md): one line in, its best translation out (beam search, width K).
//   embed MODEL_DIR [--beam K] < input.txt
#include <heed/heed.h>

#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: embed MODEL_DIR [--beam K] < input.txt\n";
    return 2;
  }
  heed::Translator::Options options;
  options.beam = argc >= 4 && std::string(argv[2]) == "--beam" ? std::stoi(argv[3]) : 5;
  try {
    const heed::Translator translator = heed::Translator::load(argv[1]);
    std::vector<std::string> lines;
    for (std::string line; std::getline(std::cin, line);) lines.push_back(line);
    for (const heed::Translator::Result& r : translator.translate(lines, options))
      std::cout << r.best() << "\n";
  } catch (const heed::Error& e) {
    std::cerr << "embed: " << e.what() << "\n";
    return 1;
  }
  std::cerr << "embed: heed " << heed::version() << ", " << options.beam << "-best beam\n";
  return 0;
}
