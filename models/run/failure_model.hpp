#pragma once
/// What interrupts or slows a training job, as rates of independent Poisson processes.
/// Interruptions: GPU, host, NIC, link, switch and software failures per node, correlated rack
/// (PDU, top-of-rack power) events that take down every node of a rack at once, and planned
/// maintenance per job; spot preemptions when renting spot capacity (set by the cost model).
/// Slowdowns: stragglers (one slow GPU slows every rank that waits for it, so the whole job),
/// constant thermal throttling, and link failures the fabric routes around (a degraded step).
/// Units: rates in failures per node per second (keys: per 1000 node-days, or a node MTBF in hours),
/// durations in seconds, slowdowns as fractions of step time (0.05 = steps take 5 % longer).
/// Limitations: exponential inter-arrival times (no infant mortality or wear-out, no bursts beyond
/// rack events); rates scale with the number of nodes in the job; a link or switch failure counts
/// per node of the job, since the fabric grows with it.
/// Source: defaults are the Llama 3 405B pre-training statistics (Llama 3 paper Table 5: 419
/// unexpected interruptions on 16,384 H100 = 2,048 nodes in 54 days), grouped below; Meta RSC
/// (Kokolis et al., HPCA 2025) measured 2.34 to 6.5 failures per 1000 node-days in total.
/// See shared reference measurements.md section 3 and costs-topology-failures.md section 4.

#include <array>
#include <cstdint>
#include <string_view>

namespace clustersim::models {

/// The causes the Monte Carlo run tells apart, in report order.
enum class FailureKind : std::uint8_t {
  gpu,       // GPU, HBM, SRAM, system processor, thermal interface, silent data corruption
  host,      // CPU, memory, SSD, power supply, chassis, IO board, unplanned host maintenance
  nic,       // network adapter
  link,      // cable or transceiver
  network_switch,  // switch
  software,  // software bugs, dependencies, NCCL watchdog timeouts
  rack,      // a correlated event taking down a whole rack
  planned,   // planned maintenance (firmware, configuration): checkpointed before it stops the job
  spot,      // spot capacity reclaimed by the provider
};
inline constexpr std::size_t failure_kind_count = 9;

std::string_view to_string(FailureKind kind);

/// Whether the failure takes nodes out of the job (they need a spare or a repair, and their
/// local disks are lost with them).
constexpr bool loses_nodes(FailureKind kind) {
  return kind == FailureKind::gpu || kind == FailureKind::host || kind == FailureKind::nic ||
         kind == FailureKind::rack || kind == FailureKind::spot;
}

/// Per-node failure rates in SI and the MTBF override the JSON may give instead.
struct ComponentRate {
  double per_node_s = 0.0;  // failures per node per second
  double mtbf_s = 0.0;      // when > 0, one node's mean time between such failures: replaces per_node_s

  double rate() const { return mtbf_s > 0 ? 1.0 / mtbf_s : per_node_s; }
  friend bool operator==(const ComponentRate&, const ComponentRate&) = default;
};

/// Failures per 1000 node-days -> failures per node per second.
constexpr double per_1000_node_days(double count) { return count / (1000.0 * 86400.0); }

/// Llama 3 Table 5 counts over 2,048 nodes x 54 days = 110,592 node-days.
namespace llama3 {
inline constexpr double node_days = 2048.0 * 54.0;
// Faulty GPU 148, HBM3 72, SRAM 19, system processor 17, SDC 6, thermal interface + sensor 6.
inline constexpr double gpu_events = 268;
// SSD 3, power supply 3, chassis 2, IO expansion board 2, CPU 2, system memory 2, host maintenance 32.
inline constexpr double host_events = 46;
inline constexpr double nic_events = 7;
// "Network switch/cable" 35: the paper does not split switches from cables; all go to links.
inline constexpr double link_events = 35;
// Software bug 54, dependency 2, NCCL watchdog timeouts 7 (cause unknown).
inline constexpr double software_events = 63;
}  // namespace llama3

struct FailureSpec {
  ComponentRate gpu{.per_node_s = llama3::gpu_events / (llama3::node_days * 86400.0)};
  ComponentRate host{.per_node_s = llama3::host_events / (llama3::node_days * 86400.0)};
  ComponentRate nic{.per_node_s = llama3::nic_events / (llama3::node_days * 86400.0)};
  ComponentRate link{.per_node_s = llama3::link_events / (llama3::node_days * 86400.0)};
  ComponentRate network_switch{};  // counted with links by default (see llama3::link_events)
  ComponentRate software{.per_node_s = llama3::software_events / (llama3::node_days * 86400.0)};
  double rack_per_rack_s = 0.0;      // correlated rack events; none in the Llama 3 table
  std::int64_t nodes_per_rack = 2;   // Meta's Llama 3 clusters: 2 Grand Teton nodes per rack
  double planned_per_s = 0.0;        // per job; Llama 3 had 47 in 54 days (0.87 a day)
  double straggler_per_node_s = 0.0;
  double straggler_slowdown = 0.05;  // BLOOM-176B: one slow GPU cost the job 5 % throughput
  double straggler_duration_s = 1800.0;  // until found and evicted (assumption: 30 min)
  double thermal_slowdown = 0.0;     // Llama 3: 1-2 % diurnal throughput variation from DVFS
  double link_reroute_fraction = 0.0;  // share of link failures routed around instead of interrupting
  double link_repair_s = 4.0 * 3600.0;  // a routed-around link stays degraded this long (assumption)

  friend bool operator==(const FailureSpec&, const FailureSpec&) = default;
};

/// Rates of every kind for a job of `nodes` nodes, failures per second (the whole job).
/// spot is 0 here: the cost model sets it for a spot rental.
std::array<double, failure_kind_count> job_failure_rates(const FailureSpec& spec, double nodes);

/// Sum of job_failure_rates: the job's interruption rate; its inverse is the mean time to
/// interrupt (MTTI). Link failures that are routed around do not interrupt and are left out.
double job_interruption_rate(const FailureSpec& spec, double nodes);

}  // namespace clustersim::models
