#include "heed/viz/html_page.h"

#include "heed/viz/svg_text.h"

namespace heed::viz {

std::string html_page_start(std::string_view title, std::string_view style) {
  std::string s =
      "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>";
  s += xml_escape(title);
  s += "</title>\n<style>\n"
       "  body { font: 15px/1.4 \"DejaVu Sans\", system-ui, sans-serif; margin: 1.5em auto; "
       "max-width: 90em; padding: 0 1em; color: #222; }\n"
       "  h1 { font-size: 1.35em; margin: 0 0 .2em; }\n";
  s += style;
  s += "</style>\n</head>\n<body>\n";
  return s;
}

}  // namespace heed::viz
