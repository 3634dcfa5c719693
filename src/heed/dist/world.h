#pragma once
// World: the processes of a data-parallel training run (docs/DISTRIBUTED.md). Started by
// `mpirun -np N heed train ...`, each process is a rank of Open MPI's world communicator;
// started any other way, heed is a world of one rank and MPI is never initialised. Only the
// thread that created the World calls MPI (MPI_THREAD_FUNNELED).
#include <cstddef>
#include <string>
#include <vector>

namespace heed::dist {

// True when this process was started by mpirun (Open MPI's or a PMIx launcher's variables).
bool launched_by_mpirun();

class World {
 public:
  // Initialises MPI when launched_by_mpirun(); a world of one rank otherwise.
  World();
  ~World();  // MPI_Finalize
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool leader() const { return rank_ == 0; }
  bool distributed() const { return size_ > 1; }
  // "rank 1 of 4 on host" for messages.
  std::string describe() const;
  // Each rank's host name (MPI_Get_processor_name), by rank.
  const std::vector<std::string>& hosts() const { return hosts_; }

  // Every rank passes its n values and gets the sums; blocking.
  void allreduce_sum(double* values, std::size_t n) const;
  // Rank 0's bytes to every rank; blocking.
  void broadcast(void* bytes, std::size_t n) const;
  // Rank 0's string to every rank (its size first).
  void broadcast(std::string& text) const;
  // Ends every rank of the run with this exit code (MPI_Abort): for an error on one rank
  // while the others wait in a collective. Alone: exits the process.
  [[noreturn]] void abort(int code) const;

 private:
  bool initialized_ = false;
  int rank_ = 0;
  int size_ = 1;
  std::string host_;
  std::vector<std::string> hosts_;
};

}  // namespace heed::dist
