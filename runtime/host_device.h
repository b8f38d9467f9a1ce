#pragma once
// The host: kernels compiled by smelt::lower::HostJit, each kernel's parallel units
// split over a thread pool. Always available.
#include <memory>
#include <string>

#include "runtime/device.h"
#include "runtime/thread_pool.h"

namespace smelt::runtime {

// This machine's processor: its model name with its family and model numbers
// (/proc/cpuinfo: "AMD EPYC (family 25, model 17)"), "unknown" if unreadable.
std::string cpu_model();

class HostDevice : public Device {
 public:
  explicit HostDevice(unsigned threads = 0);
  lower::Target target() const override { return lower::Target::kHost; }
  std::string description() const override;
  std::string processor() const override { return cpu_model(); }
  lower::TargetOptions target_options() const override { return {lower::Target::kHost, ""}; }
  std::unique_ptr<LoadedProgram> load(const kernel::KernelProgram& program, const BufferPlan& plan) override;

 private:
  std::shared_ptr<ThreadPool> pool_;
};

// Units of a kernel's parallel range one thread should take at least, so a
// chunk amortizes the hand-off (about 16K element evaluations); a kernel with
// less work than two such chunks runs inline on the caller. A contraction
// kernel packs its B panels once per call, so it takes one chunk per thread.
int64_t min_units_per_chunk(const kernel::Kernel& kernel, int64_t units, unsigned threads);

}  // namespace smelt::runtime
