#pragma once
// The start of heed's self-contained HTML pages (the report and the image gallery of `heed
// show`): doctype, charset, viewport, the title, the style they share (body, h1) and the
// page's own, up to and including <body>.
#include <string>
#include <string_view>

namespace heed::viz {

// title is escaped; style is CSS, inserted as it is.
std::string html_page_start(std::string_view title, std::string_view style);

}  // namespace heed::viz
