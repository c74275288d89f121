// Shared by the examples: launch timing with CUDA events (median of several
// samples, each the mean of many back-to-back launches) and error checks.
#pragma once
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define EX_CHECK(call)                                                                  \
  do {                                                                                  \
    cudaError_t err_ = (call);                                                          \
    if (err_ != cudaSuccess) {                                                          \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                     \
              cudaGetErrorString(err_));                                                \
      exit(2);                                                                          \
    }                                                                                   \
  } while (0)

// Microseconds per launch of `launch()`: `samples` samples of `launches`
// back-to-back launches each (after one warm-up sample), the median sample.
template <typename F>
double median_us(F launch, int samples = 9, int launches = 50) {
  cudaEvent_t a, b;
  EX_CHECK(cudaEventCreate(&a));
  EX_CHECK(cudaEventCreate(&b));
  std::vector<double> us;
  for (int s = -1; s < samples; ++s) {
    EX_CHECK(cudaEventRecord(a));
    for (int i = 0; i < launches; ++i) launch();
    EX_CHECK(cudaEventRecord(b));
    EX_CHECK(cudaEventSynchronize(b));
    EX_CHECK(cudaGetLastError());
    float ms = 0.f;
    EX_CHECK(cudaEventElapsedTime(&ms, a, b));
    if (s >= 0) us.push_back(1000.0 * ms / launches);
  }
  EX_CHECK(cudaEventDestroy(a));
  EX_CHECK(cudaEventDestroy(b));
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

inline void print_device() {
  int dev = 0;
  cudaDeviceProp p;
  EX_CHECK(cudaGetDevice(&dev));
  EX_CHECK(cudaGetDeviceProperties(&p, dev));
  printf("device: %s (sm_%d%d, %d SMs)\n", p.name, p.major, p.minor, p.multiProcessorCount);
}
