#include "heed/dist/world.h"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <vector>

#include "heed/base/error.h"

namespace heed::dist {

bool launched_by_mpirun() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK"})
    if (std::getenv(v)) return true;
  return false;
}

World::World() {
  if (!launched_by_mpirun()) return;
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  initialized_ = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  char name[MPI_MAX_PROCESSOR_NAME];
  int len = 0;
  MPI_Get_processor_name(name, &len);
  host_.assign(name, static_cast<std::size_t>(len));
  std::vector<char> all(static_cast<std::size_t>(size_) * MPI_MAX_PROCESSOR_NAME, '\0');
  std::vector<char> mine(MPI_MAX_PROCESSOR_NAME, '\0');
  std::copy(host_.begin(), host_.end(), mine.begin());
  MPI_Allgather(mine.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME,
                MPI_CHAR, MPI_COMM_WORLD);
  for (int r = 0; r < size_; ++r)
    hosts_.emplace_back(all.data() + static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME);
}

World::~World() {
  if (initialized_) MPI_Finalize();
}

std::string World::describe() const {
  return "rank " + std::to_string(rank_) + " of " + std::to_string(size_) +
         (host_.empty() ? "" : " on " + host_);
}

void World::allreduce_sum(double* values, std::size_t n) const {
  if (size_ == 1) return;
  HEED_CHECK(n <= static_cast<std::size_t>(INT_MAX), "allreduce of ", n, " values");
  MPI_Allreduce(MPI_IN_PLACE, values, static_cast<int>(n), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

void World::broadcast(void* bytes, std::size_t n) const {
  if (size_ == 1) return;
  HEED_CHECK(n <= static_cast<std::size_t>(INT_MAX), "broadcast of ", n, " bytes");
  MPI_Bcast(bytes, static_cast<int>(n), MPI_BYTE, 0, MPI_COMM_WORLD);
}

void World::broadcast(std::string& text) const {
  if (size_ == 1) return;
  std::uint64_t n = text.size();
  broadcast(&n, sizeof n);
  text.resize(n);
  broadcast(text.data(), n);
}

void World::abort(int code) const {
  if (initialized_) MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

}  // namespace heed::dist
