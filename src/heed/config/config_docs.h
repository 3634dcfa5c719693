#pragma once
// The key tables of docs/CONFIG.md, rendered from the config's key table (config_keys.h). The
// page marks each table with a pair of comment lines,
//   <!-- config-keys training -->
//   ...the table...
//   <!-- /config-keys -->
// and a test compares the page with what these functions render, so a key cannot be added,
// renamed or re-ranged without its documentation following.
#include <string>
#include <vector>

namespace heed {

// The markdown table of one section's keys ("training", "data.source", "" = the top level,
// whose marker says "top").
std::string config_key_table(const std::string& section);

// doc with the text between every marker pair replaced by its section's table; heed::Error
// when a marker names no section or is not closed.
std::string with_config_key_tables(const std::string& doc);

// The sections doc has a marker for, in order ("" for "top").
std::vector<std::string> documented_config_sections(const std::string& doc);

}  // namespace heed
