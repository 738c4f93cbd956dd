#pragma once
// Records of calibration/bench/overlap_bench, for the overlap fit's tests and calibrate's report.

namespace clustersim::test {

// overlap_bench output on one H100 (132 SMs, HBM 3,350 GB/s), made up so that every estimate can
// be worked out by hand:
// - GEMM beside an 8-rank all-reduce, alone 0.85, 0.80, 0.75 ms and 1.0 ms overlapped: lost 0.15,
//   0.20, 0.25, so 19.8, 26.4, 33.0 SMs; mean 26.4, s = 6.6, 95 % half width
//   t(0.975, 2) x 6.6 / sqrt(3) = 4.302653 x 3.810512 = 16.3954;
// - copy kernel beside it at 300 GB/s busbw, 0.9 ms alone, 1.0 overlapped: lost 0.1,
//   0.1 x 3350 / 300 = 1.116667 HBM bytes per bus byte (one sample: no interval);
// - copy kernel beside a 1,000 GB/s device-to-device memcpy, 0.6 vs 1.0 ms: 0.4 x 3350 / 1000 = 1.34;
// - GEMM beside that memcpy, 0.99 vs 1.0 ms: lost 0.01, 1.32 SMs (a check: the model says 0);
// - a one-rank all-reduce and a run whose transfer ended early: both left out.
inline constexpr const char* kOverlapRecords =
    "{\"bench\":\"device\",\"name\":\"NVIDIA H100 80GB HBM3\",\"sm_count\":132}\n"
    "{\"bench\":\"overlap\",\"victim\":\"gemm\",\"m\":8192,\"n\":8192,\"k\":8192,\"dtype\":\"bf16\",\"comm\":\"nccl_all_reduce\","
    "\"ranks\":8,\"comm_bytes\":268435456,\"alone_s\":0.85e-3,\"overlapped_s\":1.0e-3,\"comm_gb_per_s\":280.0,\"covered\":true}\n"
    "{\"bench\":\"overlap\",\"victim\":\"gemm\",\"comm\":\"nccl_all_reduce\",\"ranks\":8,\"alone_s\":0.80e-3,"
    "\"overlapped_s\":1.0e-3,\"comm_gb_per_s\":280.0,\"nccl_channels\":24}\n"
    "{\"bench\":\"overlap\",\"victim\":\"gemm\",\"comm\":\"nccl_all_reduce\",\"ranks\":8,\"alone_s\":0.75e-3,"
    "\"overlapped_s\":1.0e-3,\"comm_gb_per_s\":280.0}\n"
    "{\"bench\":\"overlap\",\"victim\":\"memory\",\"bytes\":1073741824,\"comm\":\"nccl_all_reduce\",\"ranks\":8,"
    "\"alone_s\":0.9e-3,\"overlapped_s\":1.0e-3,\"comm_gb_per_s\":300.0}\n"
    "{\"bench\":\"overlap\",\"victim\":\"memory\",\"comm\":\"memcpy_d2d\",\"alone_s\":0.6e-3,\"overlapped_s\":1.0e-3,"
    "\"comm_gb_per_s\":1000.0}\n"
    "{\"bench\":\"overlap\",\"victim\":\"gemm\",\"comm\":\"memcpy_d2d\",\"alone_s\":0.99e-3,\"overlapped_s\":1.0e-3,"
    "\"comm_gb_per_s\":1000.0}\n"
    "{\"bench\":\"overlap\",\"victim\":\"gemm\",\"comm\":\"nccl_all_reduce\",\"ranks\":1,\"alone_s\":0.5e-3,"
    "\"overlapped_s\":1.0e-3,\"comm_gb_per_s\":2000.0}\n"
    "{\"bench\":\"overlap\",\"victim\":\"gemm\",\"comm\":\"nccl_all_reduce\",\"ranks\":8,\"alone_s\":0.1e-3,"
    "\"overlapped_s\":1.0e-3,\"comm_gb_per_s\":280.0,\"covered\":false}\n";

}  // namespace clustersim::test
