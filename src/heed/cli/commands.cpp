#include "heed/cli/align_command.h"
#include "heed/cli/average_command.h"
#include "heed/cli/bench_command.h"
#include "heed/cli/command.h"
#include "heed/cli/data_command.h"
#include "heed/cli/eval_command.h"
#include "heed/cli/export_command.h"
#include "heed/cli/import_command.h"
#include "heed/cli/info_command.h"
#include "heed/cli/plot_command.h"
#include "heed/cli/quantize_command.h"
#include "heed/cli/score_command.h"
#include "heed/cli/serve_command.h"
#include "heed/cli/shortlist_command.h"
#include "heed/cli/show_command.h"
#include "heed/cli/train_command.h"
#include "heed/cli/transcribe_command.h"
#include "heed/cli/translate_command.h"

namespace heed::cli {

std::vector<std::unique_ptr<Command>> all_commands() {
  std::vector<std::unique_ptr<Command>> c;
  c.push_back(make_train_command());
  c.push_back(make_info_command());
  c.push_back(make_average_command());
  c.push_back(make_export_command());
  c.push_back(make_import_command());
  c.push_back(make_quantize_command());
  c.push_back(make_translate_command());
  c.push_back(make_transcribe_command());
  c.push_back(make_eval_command());
  c.push_back(make_align_command());
  c.push_back(make_shortlist_command());
  c.push_back(make_serve_command());
  c.push_back(make_score_command());
  c.push_back(make_plot_command());
  c.push_back(make_show_command());
  c.push_back(make_bench_command());
  c.push_back(make_data_command());
  return c;
}

}  // namespace heed::cli
