#include "heed/dist/gradient_sync.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "heed/base/error.h"

namespace heed::dist {

namespace {
constexpr std::size_t kUnread = std::numeric_limits<std::size_t>::max();
}

struct GradientSync::Impl {
  struct Bucket {
    std::vector<std::size_t> params;
    std::size_t elements = 0;
    std::vector<char> buffer;  // the gradients, packed
    std::size_t pending = 0;   // parameters not final yet this step
    bool full = false;         // every gradient final: may start once the buckets before it have
    MPI_Request request = MPI_REQUEST_NULL;
  };
  std::unordered_map<const void*, std::size_t> index;  // parameter node -> position
  std::vector<std::size_t> bucket_of;
  std::vector<Bucket> buckets;
  std::vector<std::size_t> first_read;  // per parameter: the earliest tape entry reading it
  // This step's parameters by first_read, latest first (unread ones at the front), and how
  // many of them are final.
  std::vector<std::size_t> order;
  std::size_t final_count = 0;
  // Buckets start in their index order on every rank: a collective must be started in the same
  // order everywhere, and the order in which buckets fill follows each rank's own tape (its
  // share's lengths), which may differ. Buckets [0, next_start) have started.
  std::size_t next_start = 0;
  bool ordered = false;
  bool observing = false;
  MPI_Datatype type = MPI_FLOAT;
  std::size_t element_bytes = 4;
};

GradientSync::GradientSync(const World& world, std::vector<Var> params, std::size_t bucket_bytes)
    : world_(world), params_(std::move(params)), impl_(std::make_unique<Impl>()) {
  HEED_CHECK(!params_.empty(), "data-parallel training of a model without parameters");
  const DType dt = params_.front().dtype();
  for (const Var& p : params_)
    HEED_CHECK(p.dtype() == dt, "data-parallel training needs parameters of one dtype");
  impl_->type = dt == DType::f32 ? MPI_FLOAT : MPI_DOUBLE;
  impl_->element_bytes = dt == DType::f32 ? 4 : 8;
  impl_->bucket_of.resize(params_.size());
  impl_->first_read.assign(params_.size(), kUnread);
  for (std::size_t i = 0; i < params_.size(); ++i) impl_->index[params_[i].node()] = i;
  // Buckets from the last parameter (the output layer, finished first) to the first.
  for (std::size_t i = params_.size(); i-- > 0;) {
    const auto n = static_cast<std::size_t>(params_[i].value().numel());
    if (impl_->buckets.empty() ||
        impl_->buckets.back().elements * impl_->element_bytes >= bucket_bytes)
      impl_->buckets.emplace_back();
    Impl::Bucket& b = impl_->buckets.back();
    b.params.push_back(i);
    b.elements += n;
    impl_->bucket_of[i] = impl_->buckets.size() - 1;
  }
  for (Impl::Bucket& b : impl_->buckets) {
    HEED_CHECK(b.elements <= static_cast<std::size_t>(INT_MAX), "a gradient bucket of ",
               b.elements, " values");
    b.buffer.resize(b.elements * impl_->element_bytes);
    stats_.bytes += b.buffer.size();
  }
  stats_.buckets = impl_->buckets.size();
}

GradientSync::~GradientSync() {
  if (impl_->observing) Tape::current().set_observer(nullptr);
  for (Impl::Bucket& b : impl_->buckets)
    if (b.request != MPI_REQUEST_NULL) MPI_Request_free(&b.request);
}

void GradientSync::begin_step() {
  std::fill(impl_->first_read.begin(), impl_->first_read.end(), kUnread);
  for (Impl::Bucket& b : impl_->buckets) {
    b.pending = b.params.size();
    b.full = false;
  }
  impl_->final_count = 0;
  impl_->next_start = 0;
  stats_.start_order.clear();
  impl_->ordered = false;
  impl_->observing = true;
  Tape::current().set_observer(this);
}

void GradientSync::read(std::size_t entry, const Var& input) {
  const auto it = impl_->index.find(input.node());
  if (it == impl_->index.end()) return;
  std::size_t& first = impl_->first_read[it->second];
  if (first == kUnread) first = entry;  // entries are recorded in increasing order
}

void GradientSync::replayed(std::size_t entry) {
  if (!impl_->ordered) {  // the first replayed entry: the forward pass has ended
    impl_->order.resize(params_.size());
    for (std::size_t i = 0; i < params_.size(); ++i) impl_->order[i] = i;
    std::stable_sort(impl_->order.begin(), impl_->order.end(), [&](std::size_t a, std::size_t b) {
      return impl_->first_read[a] > impl_->first_read[b];
    });
    impl_->ordered = true;
  }
  // Parameters no entry read, and those whose earliest reader has now been replayed.
  while (impl_->final_count < impl_->order.size()) {
    const std::size_t p = impl_->order[impl_->final_count];
    const std::size_t first = impl_->first_read[p];
    if (first != kUnread && first < entry) break;
    ++impl_->final_count;
    ready(p);
  }
  // Let the sums in flight progress (Open MPI progresses inside MPI calls).
  for (Impl::Bucket& b : impl_->buckets)
    if (b.request != MPI_REQUEST_NULL) {
      int done = 0;
      MPI_Test(&b.request, &done, MPI_STATUS_IGNORE);
    }
}

void GradientSync::ready(std::size_t param) {
  Impl::Bucket& b = impl_->buckets[impl_->bucket_of[param]];
  if (b.pending > 0 && --b.pending == 0) b.full = true;
  while (impl_->next_start < impl_->buckets.size() && impl_->buckets[impl_->next_start].full)
    start(impl_->next_start++);
}

void GradientSync::start(std::size_t bucket) {
  Impl::Bucket& b = impl_->buckets[bucket];
  std::size_t at = 0;
  for (std::size_t p : b.params) {
    const Tensor& g = params_[p].grad_buffer();
    HEED_CHECK(g.is_contiguous(), "data-parallel training: a gradient that is not contiguous");
    const std::size_t n = static_cast<std::size_t>(g.numel()) * impl_->element_bytes;
    std::memcpy(b.buffer.data() + at, g.raw(), n);
    at += n;
  }
  stats_.start_order.push_back(bucket);
  if (world_.size() > 1)
    MPI_Iallreduce(MPI_IN_PLACE, b.buffer.data(), static_cast<int>(b.elements), impl_->type,
                   MPI_SUM, MPI_COMM_WORLD, &b.request);
}

void GradientSync::finish() {
  if (impl_->observing) {
    Tape::current().set_observer(nullptr);
    impl_->observing = false;
  }
  stats_.started_in_backward += impl_->next_start;
  while (impl_->next_start < impl_->buckets.size()) start(impl_->next_start++);
  const auto t0 = std::chrono::steady_clock::now();
  for (Impl::Bucket& b : impl_->buckets)
    if (b.request != MPI_REQUEST_NULL) MPI_Wait(&b.request, MPI_STATUS_IGNORE);
  stats_.wait_seconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (Impl::Bucket& b : impl_->buckets) {
    std::size_t at = 0;
    for (std::size_t p : b.params) {
      Tensor& g = params_[p].grad_buffer();
      const std::size_t n = static_cast<std::size_t>(g.numel()) * impl_->element_bytes;
      std::memcpy(g.raw(), b.buffer.data() + at, n);
      at += n;
    }
  }
  ++stats_.steps;
}

}  // namespace heed::dist
