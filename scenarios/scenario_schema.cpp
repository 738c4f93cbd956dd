#include "scenarios/scenario_schema.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <type_traits>

#include "models/spec/framework.hpp"
#include "models/spec/layout_rules.hpp"
#include "scenarios/layers_per_chunk.hpp"
#include "scenarios/scenario_bounds.hpp"
#include "scenarios/sweep_configs.hpp"

namespace clustersim::scenarios {
namespace {

// --- how a field reaches into a Scenario ------------------------------------------------------
// An accessor is a generic lambda `(auto& scenario) -> auto&`, so one accessor serves both the
// const getter and the setter.

constexpr auto root = [](auto& s) -> auto& { return s; };
constexpr auto model = [](auto& s) -> auto& { return s.model; };
constexpr auto cluster = [](auto& s) -> auto& { return s.cluster; };
constexpr auto gpu = [](auto& s) -> auto& { return s.cluster.gpu; };
constexpr auto parallelism = [](auto& s) -> auto& { return s.parallelism; };
constexpr auto training = [](auto& s) -> auto& { return s.training; };
constexpr auto simulation = [](auto& s) -> auto& { return s.simulation; };

template <class Part, class Spec, class T>
auto member(Part part, T Spec::*m) {
  return [part, m](auto& s) -> auto& { return part(s).*m; };
}

// --- units and bounds -------------------------------------------------------------------------

constexpr Unit count{};
constexpr Unit tokens{.symbol = "tokens"};
constexpr Unit sequences{.symbol = "sequences"};
constexpr Unit tflop_per_s{.symbol = "TFLOP/s", .mul = 1e12};
constexpr Unit gigabytes{.symbol = "GB", .mul = 1e9};
constexpr Unit tb_per_s{.symbol = "TB/s", .mul = 1e12};
constexpr Unit gb_per_s{.symbol = "GB/s", .mul = 1e9};
constexpr Unit watts{.symbol = "W"};
constexpr Unit gbit_per_s{.symbol = "Gbit/s", .mul = 1e9 / 8};
constexpr Unit microseconds{.symbol = "us", .div = 1e6};

constexpr Unit probability{.symbol = "probability"};

constexpr Bounds non_negative{.min = 0};

// --- field factories --------------------------------------------------------------------------

template <class Access>
Field integer(std::string_view key, Access access, Unit unit, Bounds bounds,
              std::string_view meaning) {
  return {.key = key,
          .type = ValueType::integer,
          .unit = unit,
          .meaning = meaning,
          .bounds = bounds,
          .get = [access](const Scenario& s) -> FieldValue {
            return static_cast<std::int64_t>(access(s));
          },
          .set = [access](Scenario& s, const FieldValue& v) {
            using T = std::remove_cvref_t<decltype(access(s))>;
            access(s) = static_cast<T>(std::get<std::int64_t>(v));
          }};
}

template <class Access>
Field unsigned_integer(std::string_view key, Access access, std::string_view meaning) {
  return {.key = key,
          .type = ValueType::unsigned_integer,
          .meaning = meaning,
          .bounds = non_negative,
          .get = [access](const Scenario& s) -> FieldValue {
            return static_cast<std::uint64_t>(access(s));
          },
          .set = [access](Scenario& s, const FieldValue& v) {
            access(s) = std::get<std::uint64_t>(v);
          }};
}

template <class Access>
Field number(std::string_view key, Access access, Unit unit, Bounds bounds,
             std::string_view meaning) {
  return {.key = key,
          .type = ValueType::number,
          .unit = unit,
          .meaning = meaning,
          .bounds = bounds,
          .get = [access, unit](const Scenario& s) -> FieldValue {
            return to_unit(access(s), unit);
          },
          .set = [access, unit](Scenario& s, const FieldValue& v) {
            access(s) = from_unit(std::get<double>(v), unit);
          }};
}

template <class Access>
Field boolean(std::string_view key, Access access, std::string_view meaning) {
  return {.key = key,
          .type = ValueType::boolean,
          .meaning = meaning,
          .get = [access](const Scenario& s) -> FieldValue { return access(s); },
          .set = [access](Scenario& s, const FieldValue& v) { access(s) = std::get<bool>(v); }};
}

template <class Access>
Field string(std::string_view key, Access access, std::string_view meaning) {
  return {.key = key,
          .type = ValueType::string,
          .meaning = meaning,
          .get = [access](const Scenario& s) -> FieldValue { return access(s); },
          .set = [access](Scenario& s, const FieldValue& v) {
            access(s) = std::get<std::string>(v);
          }};
}

// `names` lists the enumerators' spellings in declaration order.
template <class Access, std::size_t N>
Field enumeration(std::string_view key, Access access, std::array<std::string_view, N> names,
                  std::string_view meaning) {
  return {.key = key,
          .type = ValueType::enumeration,
          .meaning = meaning,
          .choices = {names.begin(), names.end()},
          .get = [access, names](const Scenario& s) -> FieldValue {
            return std::string(names.at(static_cast<std::size_t>(access(s))));
          },
          .set = [access, names](Scenario& s, const FieldValue& v) {
            using E = std::remove_cvref_t<decltype(access(s))>;
            for (std::size_t i = 0; i < N; ++i) {
              if (names[i] == std::get<std::string>(v)) access(s) = static_cast<E>(i);
            }
          }};
}

// A key whose default is the choice of training.framework's parameter set (models/spec/framework.hpp).
template <class Access, class T>
Field from_framework(Field field, Access access, models::FrameworkChoice<T> models::FrameworkParameters::*choice) {
  field.default_kind = DefaultKind::derived;
  field.derived_from = "training.framework's parameter set";
  field.derive = [access, choice](Scenario& s) -> std::optional<std::string> {
    access(s) = (models::framework_parameters(s.training.framework).*choice).value;
    return std::nullopt;
  };
  return field;
}

// A key whose default is what training.framework's parameter set runs with the scenario's
// elementwise kernels (torch.compile changes it): derived after training.elementwise, and again
// when either changes. `framework_value` maps the set and the kernels to the key's value.
template <class Access, class Value>
Field from_framework_and_elementwise(Field field, Access access,
                                     Value (*framework_value)(const models::FrameworkParameters&,
                                                              models::ElementwiseKernels)) {
  field.default_kind = DefaultKind::derived;
  field.derived_from = "training.framework's parameter set and training.elementwise";
  field.rederived_when = {"/training/framework", "/training/elementwise"};
  field.derive = [access, framework_value](Scenario& s) -> std::optional<std::string> {
    access(s) = framework_value(models::framework_parameters(s.training.framework), s.training.elementwise);
    return std::nullopt;
  };
  return field;
}

// training.cross_entropy: the framework's kernel for the loss, which a compiled loss fuses.
Field cross_entropy_field() {
  return from_framework_and_elementwise(
      enumeration("cross_entropy", member(training, &models::TrainingSpec::cross_entropy),
                  std::array<std::string_view, 3>{"fused", "inplace", "eager"},
                  "the loss over the logits: fused (a few fused kernels each way, the softmax kept once "
                  "and its gradient written in place: Megatron-Core's --cross-entropy-loss-fusion, "
                  "flash-attn's, a compiled loss), inplace (Megatron's vocab-parallel cross-entropy op by "
                  "op: shift, exp and normalise each read and write the fp32 logits, about twice fused's "
                  "traffic) or eager (PyTorch's log_softmax and nll_loss op by op: three copies of the "
                  "logits at the loss's precision in the backward; four, and more passes, as DTensor's "
                  "loss_parallel under TP in a framework that enables it, torchtitan)"),
      member(training, &models::TrainingSpec::cross_entropy), &models::framework_cross_entropy);
}

// training.rope_fusion: the framework's RoPE, which torch.compile fuses where the framework's own
// elementwise kernels are eager.
Field rope_fusion_field() {
  return from_framework_and_elementwise(
      boolean("rope_fusion", member(training, &models::TrainingSpec::rope_fusion),
              "rotary position embeddings as one fused kernel (Transformer Engine's, on unless "
              "Megatron-LM's --no-rope-fusion; torch.compile's; flash-attn's), costed as the other fused "
              "ops; false applies them op by op in PyTorch: an fp32 upcast, the rotation and the cast back "
              "of every query and key column, 20 B an element each way (torchtitan without torch.compile, "
              "Megatron-DeepSpeed, NeMo Automodel's MoE models before 2026); models without rotary "
              "positions (a GeLU MLP, ALiBi) have none"),
      member(training, &models::TrainingSpec::rope_fusion), &models::framework_rope_fusion);
}

// sweep.configs: the JSON text of the array is the value; scenarios/sweep_configs.hpp checks it.
Field sweep_configs() {
  return {.key = "configs",
          .type = ValueType::array,
          .meaning = "named layouts: [{\"name\": ..., \"parallelism\": {...}, \"training\": {...}}], "
                     "each overriding only the keys it names (dp is derived unless given)",
          .get = [](const Scenario& s) -> FieldValue { return sweep_configs_json(s.sweep.configs); },
          .set = [](Scenario& s, const FieldValue& v) {
            s.sweep.configs = parse_sweep_configs(std::get<std::string>(v));
          },
          .check_array = check_sweep_configs};
}

// parallelism.layers_per_chunk: the JSON text of the array is the value; the layout rules check it
// against pp, vp and the model's layers.
Field layers_per_chunk() {
  return {.key = "layers_per_chunk",
          .type = ValueType::array,
          .meaning = "transformer layers of each of the pp*vp model chunks in model order (chunk c of stage s is "
                     "entry c*pp+s), as the job split them; the first chunk (with the embedding) and the last (with "
                     "the loss) may hold none; []: an even split, the smaller chunks at the ends (sweep --search and plan "
                     "try every pp and vp with even splits)",
          .get = [](const Scenario& s) -> FieldValue { return layers_per_chunk_json(s.parallelism.layers_per_chunk); },
          .set = [](Scenario& s, const FieldValue& v) {
            s.parallelism.layers_per_chunk = parse_layers_per_chunk(std::get<std::string>(v));
          },
          .check_array = check_layers_per_chunk};
}

Field with_default(Field field, DefaultKind kind) {
  field.default_kind = kind;
  return field;
}

// --- failures, checkpoints, storage, cost (clustersim failures, tco) ---------------------------

constexpr auto failures = [](auto& s) -> auto& { return s.failures; };
constexpr auto checkpoint = [](auto& s) -> auto& { return s.checkpoint; };
constexpr auto storage_nfs = [](auto& s) -> auto& { return s.storage.nfs; };
constexpr auto storage_lustre = [](auto& s) -> auto& { return s.storage.lustre; };
constexpr auto storage_local = [](auto& s) -> auto& { return s.storage.local_nvme; };
constexpr auto cost = [](auto& s) -> auto& { return s.cost; };
constexpr auto build_cost = [](auto& s) -> auto& { return s.cost.build; };
constexpr auto rent_cost = [](auto& s) -> auto& { return s.cost.rent; };

constexpr Unit per_1000_node_days{.symbol = "1/(1000 node-days)", .div = 86.4e6};
constexpr Unit per_1000_rack_days{.symbol = "1/(1000 rack-days)", .div = 86.4e6};
constexpr Unit per_day{.symbol = "1/day", .div = 86400};
constexpr Unit hours{.symbol = "h", .mul = 3600};
constexpr Unit minutes{.symbol = "min", .mul = 60};
constexpr Unit years{.symbol = "years"};
constexpr Unit months{.symbol = "months"};
constexpr Unit hours_per_day{.symbol = "h/day"};
constexpr Unit fraction{.symbol = "fraction"};
constexpr Unit per_year{.symbol = "1/year"};
constexpr Unit bytes_per_param{.symbol = "bytes"};
constexpr Unit usd{.symbol = "USD"};
constexpr Unit usd_per_month{.symbol = "USD/month"};
constexpr Unit usd_per_kwh{.symbol = "USD/kWh"};
constexpr Unit usd_per_kw_month{.symbol = "USD/(kW month)"};
constexpr Unit usd_per_gpu_hour{.symbol = "USD/(GPU h)"};

// A component's failure rate, per 1000 node-days or as one node's MTBF in hours (which wins).
template <class Access>
std::vector<Field> component_rate(std::string_view rate_key, std::string_view mtbf_key, Access access,
                                  std::string_view meaning) {
  using models::ComponentRate;
  return {number(rate_key, member(access, &ComponentRate::per_node_s), per_1000_node_days, key_bounds::failure_rate,
                 meaning),
          number(mtbf_key, member(access, &ComponentRate::mtbf_s), hours, key_bounds::mtbf_hours,
                 "when > 0: one node's mean time between these failures, used instead of the rate")};
}

std::vector<Section> run_sections() {
  using models::BuildCostSpec;
  using models::CheckpointSpec;
  using models::CostSpec;
  using models::FailureSpec;
  using models::LocalStorageSpec;
  using models::RentCostSpec;
  using models::SharedStorageSpec;

  std::vector<Field> failure_fields;
  const auto add = [&failure_fields](std::vector<Field> fields) {
    for (auto& field : fields) failure_fields.push_back(std::move(field));
  };
  add(component_rate("gpu_per_1000_node_days", "gpu_mtbf_hours", member(failures, &FailureSpec::gpu),
                     "GPU failures (GPU, HBM, SRAM, system processor, SDC, thermal); Llama 3: 268 in 2,048 nodes x 54 days"));
  add(component_rate("host_per_1000_node_days", "host_mtbf_hours", member(failures, &FailureSpec::host),
                     "host failures (CPU, memory, SSD, power supply, chassis, unplanned maintenance); Llama 3: 46 (same span)"));
  add(component_rate("nic_per_1000_node_days", "nic_mtbf_hours", member(failures, &FailureSpec::nic),
                     "network adapter failures; Llama 3: 7 (same span)"));
  add(component_rate("link_per_1000_node_days", "link_mtbf_hours", member(failures, &FailureSpec::link),
                     "cable and transceiver failures; Llama 3: 35 switch/cable, all counted here"));
  add(component_rate("switch_per_1000_node_days", "switch_mtbf_hours",
                     member(failures, &FailureSpec::network_switch),
                     "switch failures; 0: Llama 3 does not separate them from cables"));
  add(component_rate("software_per_1000_node_days", "software_mtbf_hours", member(failures, &FailureSpec::software),
                     "software failures (bugs, dependencies, NCCL watchdog timeouts); Llama 3: 63 (same span)"));
  add({number("rack_per_1000_rack_days", member(failures, &FailureSpec::rack_per_rack_s), per_1000_rack_days,
              key_bounds::failure_rate, "correlated events (PDU, rack power) that take down a whole rack at once"),
       integer("nodes_per_rack", member(failures, &FailureSpec::nodes_per_rack), count, key_bounds::nodes_per_rack,
               "nodes a rack event takes down; Meta's Llama 3 racks hold 2"),
       number("planned_per_day", member(failures, &FailureSpec::planned_per_s), per_day, key_bounds::planned_per_day,
              "planned maintenance stops of the job (checkpointed first); Llama 3: 47 in 54 days"),
       number("straggler_per_1000_node_days", member(failures, &FailureSpec::straggler_per_node_s),
              per_1000_node_days,
                  key_bounds::failure_rate, "slow GPUs (thermal throttling, bad parts) that slow the job"),
       number("straggler_slowdown", member(failures, &FailureSpec::straggler_slowdown), fraction, key_bounds::slowdown,
              "how much longer steps take while a straggler is in the job; BLOOM-176B saw 0.05"),
       number("straggler_minutes", member(failures, &FailureSpec::straggler_duration_s), minutes,
              key_bounds::positive_minutes_up_to_a_year,
              "how long a straggler stays until it is found and evicted"),
       number("thermal_slowdown", member(failures, &FailureSpec::thermal_slowdown), fraction, key_bounds::slowdown,
              "constant slowdown from thermal throttling; Llama 3 saw 1-2 % diurnal variation"),
       number("link_reroute_fraction", member(failures, &FailureSpec::link_reroute_fraction), fraction,
              key_bounds::fraction,
              "share of link failures the fabric routes around (degraded steps, no interruption)"),
       number("link_repair_hours", member(failures, &FailureSpec::link_repair_s), hours,
              key_bounds::positive_hours_up_to_a_year,
              "a routed-around link stays degraded this long")});

  return {
      {.pointer = "/failures",
       .meaning = "failure and slowdown rates (clustersim failures); defaults: Llama 3 405B, 16,384 H100, 54 days",
       .index_in_parent = 1,
       .fields = std::move(failure_fields)},
      {.pointer = "/checkpoint",
       .meaning = "checkpoints and restarts (clustersim failures)",
       .index_in_parent = 1,
       .fields =
           {number("interval_minutes", member(checkpoint, &CheckpointSpec::interval_s), minutes,
                   key_bounds::minutes_up_to_a_year,
                   "compute time between checkpoints; 0: use interval_steps"),
            integer("interval_steps", member(checkpoint, &CheckpointSpec::interval_steps), count,
                    key_bounds::checkpoint_steps,
                    "steps between checkpoints; 0: use interval_minutes"),
            number("bytes_per_param", member(checkpoint, &CheckpointSpec::bytes_per_param), bytes_per_param,
                   key_bounds::checkpoint_bytes_per_param,
                   "checkpoint bytes per parameter: 14 = bf16 weights + fp32 master, m, v"),
            enumeration("mode", member(checkpoint, &CheckpointSpec::mode),
                        std::array<std::string_view, 2>{"sync", "async"},
                        "sync: training waits for the write; async: only for the copy to host memory"),
            number("snapshot_gb_per_s", member(checkpoint, &CheckpointSpec::snapshot_bytes_per_s), gb_per_s,
                   key_bounds::storage_gb_per_s, "async: device-to-host copy rate per GPU"),
            enumeration("target", member(checkpoint, &CheckpointSpec::target),
                        std::array<std::string_view, 3>{"nfs", "lustre", "local_nvme"},
                        "where checkpoints are written (bandwidths under /storage)"),
            enumeration("second_target", member(checkpoint, &CheckpointSpec::second_target),
                        std::array<std::string_view, 4>{"none", "nfs", "lustre", "local_nvme"},
                        "two-phase commit: also written here, in the background; committed when both have it"),
            number("detect_minutes", member(checkpoint, &CheckpointSpec::detect_s), minutes,
                   key_bounds::minutes_up_to_a_year,
                   "restart: time to notice a failure (Meta health checks every 5 min)"),
            number("reschedule_minutes", member(checkpoint, &CheckpointSpec::reschedule_s), minutes,
                   key_bounds::minutes_up_to_a_year, "restart: time to relaunch the job on healthy nodes"),
            number("warmup_minutes", member(checkpoint, &CheckpointSpec::warmup_s), minutes,
                   key_bounds::minutes_up_to_a_year,
                   "restart: initialisation after the load (NCCL, compilation, data loader)"),
            number("spare_fraction", member(checkpoint, &CheckpointSpec::spare_fraction), fraction,
                   key_bounds::spare_fraction, "hot spare nodes, as a fraction of the job's nodes (rounded up)"),
            enumeration("when_no_spare", member(checkpoint, &CheckpointSpec::no_spare),
                        std::array<std::string_view, 2>{"wait", "shrink"},
                        "without a free spare: wait for a repair, or continue with fewer replicas"),
            number("repair_hours", member(checkpoint, &CheckpointSpec::repair_s), hours,
                   key_bounds::positive_hours_up_to_a_year,
                   "a failed node returns to the spare pool after this")}},
      {.pointer = "/storage",
       .meaning = "checkpoint storage bandwidths (read = write)",
       .index_in_parent = 1},
      {.pointer = "/storage/nfs",
       .meaning = "a network file system or object store",
       .fields = {number("aggregate_gb_per_s", member(storage_nfs, &SharedStorageSpec::aggregate_bytes_per_s),
                         gb_per_s, key_bounds::storage_gb_per_s,
                         "all clients together; 2.5 = the 20 Gb/s of Gemini's example"),
                  number("per_node_gb_per_s", member(storage_nfs, &SharedStorageSpec::per_node_bytes_per_s),
                         gb_per_s, key_bounds::storage_gb_per_s, "one client node")}},
      {.pointer = "/storage/lustre",
       .meaning = "a parallel file system",
       .fields = {number("aggregate_gb_per_s", member(storage_lustre, &SharedStorageSpec::aggregate_bytes_per_s),
                         gb_per_s, key_bounds::storage_gb_per_s, "all clients together; DDN sizes 1 GB/s per GPU"),
                  number("per_node_gb_per_s", member(storage_lustre, &SharedStorageSpec::per_node_bytes_per_s),
                         gb_per_s, key_bounds::storage_gb_per_s,
                         "one client node; SuperPOD H100: 40 GB/s with GPUDirect Storage")}},
      {.pointer = "/storage/local_nvme",
       .meaning = "each node's own NVMe drives (lost with the node)",
       .fields = {number("per_node_gb_per_s", member(storage_local, &LocalStorageSpec::per_node_bytes_per_s),
                         gb_per_s, key_bounds::storage_gb_per_s, "one node's drives together")}},
      {.pointer = "/cost",
       .meaning = "build and rent prices (clustersim tco)",
       .index_in_parent = 1,
       .fields = {number("hours_per_day", member(cost, &CostSpec::hours_per_day), hours_per_day,
                         key_bounds::hours_per_day,
                         "hours a day the cluster is used"),
                  number("horizon_years", member(cost, &CostSpec::horizon_years), years, key_bounds::horizon_years,
                         "length of the build-vs-rent comparison"),
                  number("claimed_break_even_months", member(cost, &CostSpec::claimed_break_even_months), months,
                         key_bounds::months, "a published break-even claim to check the inputs against; 0: none")}},
      {.pointer = "/cost/build",
       .meaning = "owning the cluster; network prices apply to the topology's counted parts",
       .index_in_parent = 3,
       .fields = {number("server_usd", member(build_cost, &BuildCostSpec::server_usd), usd, key_bounds::usd,
                         "price of one node (8-GPU HGX H100 about 255,000-317,000 in 2024-25)"),
                  number("switch_usd", member(build_cost, &BuildCostSpec::switch_usd), usd, key_bounds::usd,
                         "one scale-out switch (64-port NDR: 36,000, 2024-08)"),
                  number("nic_usd", member(build_cost, &BuildCostSpec::nic_usd), usd, key_bounds::usd,
                         "one scale-out NIC when not in server_usd"),
                  number("transceiver_usd", member(build_cost, &BuildCostSpec::transceiver_usd), usd, key_bounds::usd,
                         "one optical transceiver"),
                  number("cable_usd", member(build_cost, &BuildCostSpec::cable_usd), usd, key_bounds::usd,
                         "one cable without its transceivers"),
                  number("transceivers_per_cable", member(build_cost, &BuildCostSpec::transceivers_per_cable),
                         count, key_bounds::transceivers_per_cable, "2 for optical cables, 0 for copper"),
                  number("storage_usd", member(build_cost, &BuildCostSpec::storage_usd), usd, key_bounds::usd,
                         "storage system"),
                  number("other_capex_usd", member(build_cost, &BuildCostSpec::other_capex_usd), usd, key_bounds::usd,
                         "one-off cost quoted as one sum, on top of the itemised ones"),
                  number("node_power_w", member(build_cost, &BuildCostSpec::node_power_w), watts,
                         key_bounds::node_power_w,
                         "maximum input power of one node (DGX H100: 10,200)"),
                  number("power_draw_fraction", member(build_cost, &BuildCostSpec::power_draw_fraction), fraction,
                         key_bounds::fraction, "average draw over maximum power while used"),
                  number("pue", member(build_cost, &BuildCostSpec::pue), count, key_bounds::pue,
                         "facility power over IT power"),
                  number("usd_per_kwh", member(build_cost, &BuildCostSpec::usd_per_kwh), usd_per_kwh,
                         key_bounds::usd_per_kwh,
                         "electricity price"),
                  number("colocation_usd_per_kw_month",
                         member(build_cost, &BuildCostSpec::colocation_usd_per_kw_month), usd_per_kw_month,
                         key_bounds::usd_per_kw_month, "colocation rent per kW of maximum node power"),
                  number("staff_usd_per_month", member(build_cost, &BuildCostSpec::staff_usd_per_month),
                         usd_per_month, key_bounds::usd, "operations staff"),
                  number("maintenance_fraction_per_year",
                         member(build_cost, &BuildCostSpec::maintenance_fraction_per_year), per_year,
                                key_bounds::per_year_fraction,
                         "support and repairs, as a fraction of hardware capital a year"),
                  number("other_opex_usd_per_month", member(build_cost, &BuildCostSpec::other_opex_usd_per_month),
                         usd_per_month, key_bounds::usd, "running cost quoted as one sum, on top of the itemised ones"),
                  number("depreciation_years", member(build_cost, &BuildCostSpec::depreciation_years), years,
                         key_bounds::depreciation_years, "life over which the capital is recovered"),
                  number("financing_rate", member(build_cost, &BuildCostSpec::financing_rate), per_year,
                         key_bounds::per_year_fraction, "cost of capital")}},
      {.pointer = "/cost/rent",
       .meaning = "renting the same GPUs; 0: option not offered",
       .index_in_parent = 3,
       .fields = {number("on_demand_usd_per_gpu_hour", member(rent_cost, &RentCostSpec::on_demand_usd_per_gpu_hour),
                         usd_per_gpu_hour, key_bounds::usd_per_gpu_hour, "billed for the hours used"),
                  number("reserved_usd_per_gpu_hour", member(rent_cost, &RentCostSpec::reserved_usd_per_gpu_hour),
                         usd_per_gpu_hour, key_bounds::usd_per_gpu_hour, "billed for the committed hours"),
                  number("spot_usd_per_gpu_hour", member(rent_cost, &RentCostSpec::spot_usd_per_gpu_hour),
                         usd_per_gpu_hour,
                             key_bounds::usd_per_gpu_hour, "billed for the hours used; preemptions are failures"),
                  number("reserved_hours_per_day", member(rent_cost, &RentCostSpec::reserved_hours_per_day),
                         hours_per_day, key_bounds::hours_per_day, "committed hours a day of a reservation"),
                  number("spot_preemption_per_1000_node_days",
                         member(rent_cost, &RentCostSpec::spot_preemption_per_node_s), per_1000_node_days,
                         key_bounds::failure_rate, "spot nodes reclaimed by the provider")}},
  };
}


// --- the format -------------------------------------------------------------------------------

std::vector<Section> build_sections() {
  using models::ClusterSpec;
  using models::FrameworkParameters;
  using models::GpuSpec;
  using models::ParallelismSpec;
  using models::TrainingSpec;
  using models::TransformerSpec;
  constexpr auto shape = DefaultKind::preset_or_required;
  constexpr auto preset_or_value = DefaultKind::preset_or_value;

  Field dp = integer("dp", member(parallelism, &ParallelismSpec::dp), count, key_bounds::degree,
                     "data-parallel degree (model replicas); a --set of tp, pp, cp or "
                     "cluster.num_gpus derives it again unless dp is --set too");
  dp.default_kind = DefaultKind::derived;
  dp.derived_from = "num_gpus / (tp * pp * cp)";
  dp.rederived_when = {"/parallelism/tp", "/parallelism/pp", "/parallelism/cp", "/cluster/num_gpus"};
  dp.derive = [](Scenario& s) -> std::optional<std::string> {
    if (auto violation = models::derive_dp(s.parallelism, s.cluster)) return std::move(violation->rule);
    return std::nullopt;
  };

  std::vector<Section> sections{
      {.pointer = "",
       .meaning = "a scenario: model, cluster, parallelism, training and simulation options",
       .fields = {string("name", member(root, &Scenario::name), "label used in reports")}},
      {.pointer = "/model",
       .meaning = "decoder-only transformer; preset fields can be overridden",
       .required = true,
       .preset = PresetKind::model,
       .index_in_parent = 1,
       .fields =
           {with_default(integer("layers", member(model, &TransformerSpec::layers), count,
                                 key_bounds::layers, "transformer layers"),
                         shape),
            with_default(integer("hidden", member(model, &TransformerSpec::hidden), count,
                                 key_bounds::hidden, "model (embedding) dimension"),
                         shape),
            with_default(integer("ffn_hidden", member(model, &TransformerSpec::ffn_hidden), count,
                                 key_bounds::ffn_hidden, "MLP inner dimension"),
                         shape),
            with_default(integer("heads", member(model, &TransformerSpec::heads), count, key_bounds::heads,
                                 "attention (query) heads"),
                         shape),
            with_default(integer("kv_heads", member(model, &TransformerSpec::kv_heads), count,
                                 key_bounds::heads,
                                 "key/value heads; equals heads for multi-head attention"),
                         shape),
            with_default(integer("head_dim", member(model, &TransformerSpec::head_dim), count,
                                 key_bounds::head_dim, "width of one attention head; 0: hidden / heads"),
                         preset_or_value),
            with_default(enumeration("attention", member(model, &TransformerSpec::attention),
                                     std::array<std::string_view, 3>{"mha", "gqa", "mla"},
                                     "attention: mha (kv_heads = heads), gqa (kv_heads key/value heads) or mla "
                                     "(multi-head latent attention, the *_lora_rank and *_head_dim keys)"),
                         preset_or_value),
            with_default(integer("q_lora_rank", member(model, &TransformerSpec::q_lora_rank), count,
                                 key_bounds::latent_rank, "mla: the query latent's width; 0: queries projected directly"),
                         preset_or_value),
            with_default(integer("kv_lora_rank", member(model, &TransformerSpec::kv_lora_rank), count,
                                 key_bounds::latent_rank, "mla: the key-value latent's width"),
                         preset_or_value),
            with_default(integer("qk_rope_head_dim", member(model, &TransformerSpec::qk_rope_head_dim), count,
                                 key_bounds::head_dim, "mla: the rotary part of each query and key head"),
                         preset_or_value),
            with_default(integer("qk_nope_head_dim", member(model, &TransformerSpec::qk_nope_head_dim), count,
                                 key_bounds::head_dim, "mla: the part of each query and key head without rotary embedding"),
                         preset_or_value),
            with_default(integer("v_head_dim", member(model, &TransformerSpec::v_head_dim), count,
                                 key_bounds::head_dim, "mla: the width of each value head"),
                         preset_or_value),
            with_default(integer("sliding_window", member(model, &TransformerSpec::sliding_window), tokens,
                                 key_bounds::sliding_window, "keys a windowed layer attends; 0: none"),
                         preset_or_value),
            with_default(integer("sliding_window_layers", member(model, &TransformerSpec::sliding_window_layers),
                                 count, key_bounds::sliding_window_layers,
                                 "every n-th layer (from layer 0) attends the sliding window; 0: none"),
                         preset_or_value),
            with_default(integer("vocab", member(model, &TransformerSpec::vocab), count, key_bounds::vocab,
                                 "vocabulary size (padded, as trained)"),
                         shape),
            with_default(enumeration("mlp", member(model, &TransformerSpec::mlp),
                                     std::array<std::string_view, 2>{"gelu", "swiglu"},
                                     "MLP kind (gelu: 2 matrices; swiglu: 3, gated)"),
                         shape),
            with_default(boolean("tied_embeddings",
                                 member(model, &TransformerSpec::tied_embeddings),
                                 "input embedding and logits layer share one matrix"),
                         preset_or_value),
            with_default(number("dropout", member(model, &TransformerSpec::dropout), probability,
                                key_bounds::probability,
                                "dropout probability of hidden states and attention "
                                "probabilities; 0: no dropout masks are stored"),
                         preset_or_value),
            with_default(boolean("alibi", member(model, &TransformerSpec::alibi),
                                 "ALiBi's per-head linear bias on the attention scores instead of position "
                                 "embeddings (BLOOM); the unfused attention writes it into the scores before "
                                 "their GEMM, which reads it back; fused kernels add it in place"),
                         preset_or_value),
            with_default(boolean("qk_norm", member(model, &TransformerSpec::qk_norm),
                                 "an RMSNorm over each query and each key head before RoPE and the attention "
                                 "(Qwen3's QK-Norm): one more memory-bound pass over the rank's query and key "
                                 "columns each way, its input kept for the backward"),
                         preset_or_value),
            with_default(integer("experts", member(model, &TransformerSpec::experts), count, key_bounds::experts,
                                 "routed experts of a mixture-of-experts layer; 0: a dense model"),
                         preset_or_value),
            with_default(integer("experts_per_token", member(model, &TransformerSpec::experts_per_token), count,
                                 key_bounds::expert_count, "routed experts each token runs (top-k)"),
                         preset_or_value),
            with_default(integer("shared_experts", member(model, &TransformerSpec::shared_experts), count,
                                 key_bounds::expert_count, "experts every token runs besides its routed ones"),
                         preset_or_value),
            with_default(integer("expert_ffn_hidden", member(model, &TransformerSpec::expert_ffn_hidden), count,
                                 key_bounds::expert_ffn_hidden, "MLP inner dimension of one expert (routed or shared)"),
                         preset_or_value),
            with_default(boolean("expert_bias", member(model, &TransformerSpec::expert_bias),
                                 "each routed expert's up and down projections add a bias of their own (GPT-OSS); "
                                 "how it is added is training.framework's (its parameter set)"),
                         preset_or_value),
            with_default(integer("dense_layers", member(model, &TransformerSpec::dense_layers), count,
                                 key_bounds::dense_layers,
                                 "leading layers that keep the dense MLP of ffn_hidden"),
                         preset_or_value),
            with_default(integer("moe_layer_freq", member(model, &TransformerSpec::moe_layer_freq), count,
                                 key_bounds::moe_layer_freq,
                                 "after the dense layers, every n-th layer is a mixture-of-experts layer"),
                         preset_or_value)}},
      {.pointer = "/cluster",
       .meaning = "the GPUs, their nodes and the scale-out network",
       .required = true,
       .index_in_parent = 1,
       .fields =
           {integer("num_gpus", member(cluster, &ClusterSpec::num_gpus), count, key_bounds::gpus,
                    "GPUs in the job"),
            integer("gpus_per_node", member(cluster, &ClusterSpec::gpus_per_node), count, key_bounds::gpus_per_node,
                    "GPUs per node: one server, or one GB200 compute tray, whose GPUs share its NICs"),
            integer("nvlink_domain_gpus", member(cluster, &ClusterSpec::nvlink_domain_gpus), count,
                    key_bounds::nvlink_domain_gpus,
                    "the job's GPUs on one NVLink fabric, a multiple of gpus_per_node (72: a GB200 NVL72 rack; 64: "
                    "one with two trays held spare); 0: one node's"),
            number("nic_gbit_per_s", member(cluster, &ClusterSpec::nic_bytes_per_s), gbit_per_s,
                   key_bounds::nic_gbit_per_s, "line rate of one scale-out NIC, per direction"),
            integer("nics_per_node", member(cluster, &ClusterSpec::nics_per_node), count, key_bounds::nics_per_node,
                    "scale-out NICs per node"),
            enumeration("fabric", member(cluster, &ClusterSpec::fabric), models::kFabricNames,
                        "scale-out network technology (omnipath: Intel Omni-Path, which NCCL reaches through "
                        "verbs without GPUDirect RDMA; efa: AWS Elastic Fabric Adapter, whose all-reduce "
                        "algorithm the AWS OFI NCCL plugin's tuner picks)"),
            enumeration("topology", member(cluster, &ClusterSpec::topology),
                        std::array<std::string_view, 4>{"rail_optimized", "fat_tree", "dragonfly",
                                                        "torus"},
                        "scale-out network topology"),
            number("network_latency_us", member(cluster, &ClusterSpec::network_latency_s),
                   microseconds, key_bounds::hop_latency_us,
                   "latency of one scale-out hop, software included; replaces the communication "
                   "constants' hop latency (and shifts their per-network-step latencies by as much); "
                   "negative (-1): not set, the constants' own"),
            number("nvlink_latency_us", member(cluster, &ClusterSpec::nvlink_latency_s),
                   microseconds, key_bounds::hop_latency_us,
                   "latency of one NVLink hop, software included; replaces the communication "
                   "constants' hop latency; negative (-1): not set, the constants' own"),
            number("oversubscription", member(cluster, &ClusterSpec::oversubscription), count,
                   key_bounds::oversubscription,
                   "fat-tree leaf downlink : uplink bandwidth ratio; 1 = non-blocking"),
            boolean("ideal_network", member(cluster, &ClusterSpec::ideal_network),
                    "what-if: all communication is free"),
            integer("failed_links", member(cluster, &ClusterSpec::failed_links), count, key_bounds::failed_links,
                    "random inter-node cables failed and routed around (flow fidelity), drawn as "
                    "`clustersim topo --fail-links N --seed failed_links_seed` draws them"),
            unsigned_integer("failed_links_seed", member(cluster, &ClusterSpec::failed_links_seed),
                             "seed of the failed_links draw"),
            string("failed_link_names", member(cluster, &ClusterSpec::failed_link_names),
                   "comma-separated links 'from->to' (as `clustersim run --links` names them) failed with "
                   "their reverse direction (flow fidelity)")}},
      {.pointer = "/cluster/gpu",
       .meaning = "GPU type: a preset name, or an object with a preset and overrides",
       .required = true,
       .preset = PresetKind::gpu,
       .preset_shorthand = true,
       .fields =
           {with_default(number("bf16_tflops", member(gpu, &GpuSpec::bf16_flops_per_s),
                                tflop_per_s, key_bounds::bf16_tflops, "dense BF16 tensor peak"),
                         shape),
            with_default(number("fp8_tflops", member(gpu, &GpuSpec::fp8_flops_per_s),
                                tflop_per_s, key_bounds::fp8_tflops, "dense FP8 tensor peak; 0: no FP8"),
                         shape),
            with_default(number("fp4_tflops", member(gpu, &GpuSpec::fp4_flops_per_s), tflop_per_s,
                                key_bounds::fp4_tflops,
                                "dense FP4 tensor peak (Blackwell); 0: no FP4. The peak of "
                                "training.precision nvfp4"),
                         preset_or_value),
            with_default(number("hbm_gb", member(gpu, &GpuSpec::hbm_bytes), gigabytes, key_bounds::hbm_gb,
                                "HBM capacity as CUDA reports it (cudaMemGetInfo total)"),
                         shape),
            with_default(number("hbm_tb_per_s", member(gpu, &GpuSpec::hbm_bytes_per_s), tb_per_s,
                                key_bounds::hbm_tb_per_s, "HBM bandwidth"),
                         shape),
            with_default(number("nvlink_gb_per_s", member(gpu, &GpuSpec::nvlink_bytes_per_s),
                                gb_per_s, key_bounds::nvlink_gb_per_s, "NVLink bandwidth per GPU, per direction"),
                         shape),
            with_default(number("power_w", member(gpu, &GpuSpec::power_w), watts, key_bounds::power_w,
                                "board power limit: the rated TDP, or a lower cap, under which the tensor cores run at a lower clock (models/compute/power_limit.hpp)"),
                         shape)}},
      {.pointer = "/parallelism",
       .meaning = "how the job is split over GPUs; GPUs = tp * pp * dp * cp",
       .required = false,
       .index_in_parent = 1,
       .fields = {integer("tp", member(parallelism, &ParallelismSpec::tp), count, key_bounds::degree,
                          "tensor-parallel degree"),
                  integer("pp", member(parallelism, &ParallelismSpec::pp), count, key_bounds::degree,
                          "pipeline-parallel stages"),
                  std::move(dp),
                  integer("cp", member(parallelism, &ParallelismSpec::cp), count, key_bounds::degree,
                          "context-parallel degree (sequence split for attention)"),
                  from_framework(enumeration("cp_comm", member(parallelism, &ParallelismSpec::cp_comm),
                                             std::array<std::string_view, 4>{"p2p", "all_gather", "a2a", "a2a+p2p"},
                                             "how context-parallel ranks exchange keys and values (Megatron-Core's "
                                             "cp_comm_type): p2p (a ring of blocks beside the attention), "
                                             "all_gather (the whole sequence's before the attention), a2a "
                                             "(DeepSpeed-Ulysses: queries, keys and values traded for heads) or "
                                             "a2a+p2p (a2a inside groups of cp_a2a_ranks, the ring across them)"),
                                 member(parallelism, &ParallelismSpec::cp_comm), &FrameworkParameters::cp_comm),
                  integer("cp_a2a_ranks", member(parallelism, &ParallelismSpec::cp_a2a_ranks), count,
                          key_bounds::cp_a2a_ranks,
                          "cp_comm a2a+p2p: the context-parallel ranks of each all-to-all group (Megatron-Core "
                          "--hierarchical-context-parallel-sizes' first); 0 otherwise"),
                  integer("cp_max_ctas", member(parallelism, &ParallelismSpec::cp_max_ctas), count,
                          key_bounds::max_ctas,
                          "CTAs NCCL may use for the context-parallel communicators (ncclConfig_t max_ctas, "
                          "Megatron-Core's nccl_communicator_config_path: group cp, hcp for a2a+p2p); each "
                          "moves one NCCL channel's rate; 0: NCCL's choice, no limit"),
                  integer("dp_max_ctas", member(parallelism, &ParallelismSpec::dp_max_ctas), count,
                          key_bounds::max_ctas,
                          "CTAs NCCL may use for the data-parallel communicators (ncclConfig_t max_ctas, "
                          "Megatron-Core's nccl_communicator_config_path: groups dp_cp and dp), which reduce the "
                          "gradients and gather the parameters: beside the compute they hold that many SMs; their "
                          "megabyte buckets keep NCCL's rate; 0: NCCL's choice"),
                  integer("vp", member(parallelism, &ParallelismSpec::vp), count, key_bounds::virtual_stages,
                          "model chunks per pipeline stage (interleaved schedule)"),
                  integer("microbatch_group", member(parallelism, &ParallelismSpec::microbatch_group), count,
                          key_bounds::microbatch_group,
                          "interleaved schedule: micro-batches that run through one model chunk before the "
                          "stage moves to its next (Megatron-Core --microbatch-group-size-per-virtual-pipeline-"
                          "stage); 0: pp, the depth-first default; more hides point-to-point transfers at the "
                          "cost of more micro-batches in flight"),
                  layers_per_chunk(),
                  boolean("sp", member(parallelism, &ParallelismSpec::sp),
                          "sequence parallelism inside the tensor-parallel group"),
                  integer("zero", member(parallelism, &ParallelismSpec::zero), count,
                          key_bounds::zero_stage,
                          "ZeRO stage: 0 plain DP, 1 optimizer state, 2 + gradients, "
                          "3 + parameters sharded"),
                  from_framework(enumeration("sharding", member(parallelism, &ParallelismSpec::sharding),
                                             std::array<std::string_view, 4>{"fsdp2", "fsdp1", "megatron_fsdp",
                                                                             "deepspeed_zero3_2021"},
                                             "ZeRO-3: the sharding implementation's parameter set (unit, prefetch, "
                                             "dtypes)"),
                                 member(parallelism, &ParallelismSpec::sharding), &FrameworkParameters::sharding),
                  integer("shard_group", member(parallelism, &ParallelismSpec::shard_group), count,
                          key_bounds::shard_group,
                          "ZeRO-3 hybrid sharding: shard inside groups of this many DP ranks, "
                          "replicate across them; 0: shard over all"),
                  boolean("tp_comm_overlap", member(parallelism, &ParallelismSpec::tp_comm_overlap),
                          "pipeline tensor-parallel collectives with their GEMMs (needs sp)"),
                  integer("ep", member(parallelism, &ParallelismSpec::ep), count, key_bounds::degree,
                          "expert-parallel degree: a MoE layer's experts split over ep of the stage's "
                          "tp * cp * dp ranks"),
                  integer("etp", member(parallelism, &ParallelismSpec::etp), count, key_bounds::degree,
                          "tensor-parallel degree inside an expert"),
                  boolean("ep_comm_overlap", member(parallelism, &ParallelismSpec::ep_comm_overlap),
                          "run the expert dispatch and combine all-to-alls beside other compute "
                          "(DualPipe-style) instead of on the compute stream")}},
      {.pointer = "/training",
       .meaning = "what one optimizer step processes and how",
       .index_in_parent = 1,
       .fields =
           {integer("seq_len", member(training, &TrainingSpec::seq_len), tokens, key_bounds::seq_len,
                    "sequence length"),
            integer("micro_batch", member(training, &TrainingSpec::micro_batch), sequences,
                    key_bounds::micro_batch, "sequences per micro-batch per model replica"),
            integer("global_batch", member(training, &TrainingSpec::global_batch), sequences,
                    key_bounds::global_batch, "sequences per optimizer step, all replicas"),
            integer("pipeline_runs", member(training, &TrainingSpec::pipeline_runs), count, key_bounds::pipeline_runs,
                    "the step's micro-batches run as this many pipeline schedules back to back, each with its "
                    "own fill and drain (torchtitan and NeMo Automodel run the schedule once per "
                    "gradient-accumulation step); FSDP2 (zero 3) gathers and reduces once a run, as PyTorch's "
                    "pipelining does, unless fsdp_sync_once; zero 0-2 reduce once a step"),
            enumeration("precision", member(training, &TrainingSpec::precision),
                        std::array<std::string_view, 3>{"bf16", "fp8", "nvfp4"},
                        "tensor-core precision of the linear layers' matmuls (attention runs bf16): bf16, fp8 "
                        "(scaled as fp8_recipe says) or nvfp4 (Transformer Engine's NVFP4BlockScaling on Blackwell: "
                        "E2M1 values with an E4M3 scale per 16, forward and backward GEMMs alike)"),
            enumeration("framework", member(training, &TrainingSpec::framework),
                        std::array<std::string_view, 6>{"megatron-core", "megatron-lm", "megatron-deepspeed",
                                                        "torchtitan", "llm-foundry", "nemo-automodel"},
                        "what runs the job: its parameter set gives attention, elementwise, grad_dtype, "
                        "grad_accumulation, fp8_recipe, fp32_loss, cross_entropy, rope_fusion, bf16_params and "
                        "parallelism.sharding unless the scenario writes them (`clustersim explain` lists them)"),
            from_framework(enumeration("fp8_recipe", member(training, &TrainingSpec::fp8_recipe),
                                       std::array<std::string_view, 4>{"delayed", "current", "blockwise", "mxfp8"},
                                       "fp8 scaling (ignored unless precision is fp8): delayed (Transformer Engine "
                                       "DelayedScaling, amax history), current (per-tensor amax of each tensor, TE "
                                       "Float8CurrentScaling, torchao tensorwise), blockwise (1x128 / 128x128 block "
                                       "scales, DeepSeek-V3, TE Float8BlockScaling) or mxfp8 (1x32 E8M0 block "
                                       "scales, Blackwell only)"),
                           member(training, &TrainingSpec::fp8_recipe), &FrameworkParameters::fp8_recipe),
            from_framework(boolean("fp32_loss", member(training, &TrainingSpec::fp32_loss),
                                   "the cross-entropy upcasts the logits to fp32 and keeps its fp32 softmax for "
                                   "the backward; false keeps them in bf16 (NeMo Automodel's MaskedCrossEntropy "
                                   "with fp32_upcast false): half the loss's memory and traffic"),
                           member(training, &TrainingSpec::fp32_loss), &FrameworkParameters::fp32_loss),
            from_framework(boolean("bf16_params", member(training, &TrainingSpec::bf16_params),
                                   "the model's parameters are bf16 and Adam keeps its moments in bf16, no fp32 "
                                   "master copy (a model cast to bf16 before training, as NeMo Automodel does): "
                                   "8 bytes of state a parameter under FSDP2 instead of 16; false is mixed "
                                   "precision"),
                           member(training, &TrainingSpec::bf16_params), &FrameworkParameters::bf16_params),
            boolean("fp8_backward", member(training, &TrainingSpec::fp8_backward),
                    "fp8 only: dgrad and wgrad GEMMs in fp8 too; false keeps them in bf16 (fp8 "
                    "forward GEMMs only)"),
            boolean("fp8_param_gather", member(training, &TrainingSpec::fp8_param_gather),
                    "fp8 with ZeRO 1-3 only: the layers' linear weights are kept and gathered in fp8, 1 byte a "
                    "parameter instead of 2 (Megatron-LM's --fp8-param-gather, torchtitan's "
                    "enable_fsdp_float8_all_gather); the embedding and the output layer stay 16-bit"),
            boolean("fp8_attention", member(training, &TrainingSpec::fp8_attention),
                    "fp8 or nvfp4 with cuDNN attention on Hopper or Blackwell: the attention runs cuDNN's FP8 "
                    "kernel, its inputs cast with per-tensor current scaling (Transformer Engine's FP8 "
                    "DotProductAttention: Megatron-Core's fp8_dot_product_attention, NeMo's FP8_DPA)"),
            boolean("defer_embedding_wgrad", member(training, &TrainingSpec::defer_embedding_wgrad),
                    "pipelines only (pp > 1), megatron-core: the last stage runs the output layer's "
                    "weight-gradient GEMMs of the deferred micro-batches in the pipeline's drain, holding each "
                    "one's input and logits gradient until then (Megatron-Core's "
                    "--defer-embedding-wgrad-compute)"),
            integer("wgrad_deferral_limit", member(training, &TrainingSpec::wgrad_deferral_limit), count,
                    key_bounds::wgrad_deferral_limit,
                    "with defer_embedding_wgrad: micro-batches deferred, the first ones of the step "
                    "(Megatron-Core's --wgrad-deferral-limit); 0: all of them"),
            boolean("fsdp_sync_once", member(training, &TrainingSpec::fsdp_sync_once),
                    "ZeRO-3 with fsdp2 sharding: gather the parameters and reduce-scatter the gradients once a "
                    "step, holding them unsharded through its micro-batches (NeMo Automodel's "
                    "enable_fsdp_optimizations, also over pipeline_runs); under a pipeline FSDP2 does so anyway, "
                    "once a run, where the stage's module is FSDP-wrapped (else see fsdp_sync_every_micro_batch)"),
            boolean("fsdp_sync_every_micro_batch", member(training, &TrainingSpec::fsdp_sync_every_micro_batch),
                    "ZeRO-3 with fsdp2 sharding under a pipeline (pp > 1): reduce-scatter and reshard after every "
                    "micro-batch's backward and gather again for every forward, as FSDP2 does when the pipeline "
                    "stage's module is not itself FSDP-wrapped (PyTorch's pipelining then runs a plain backward; "
                    "NeMo Automodel's MoE models without enable_fsdp_optimizations)"),
            enumeration("recompute", member(training, &TrainingSpec::recompute),
                        std::array<std::string_view, 4>{"none", "selective", "full", "op"},
                        "activation recomputation: selective (the attention core, Megatron-LM), full (each "
                        "layer from its input), op (torchtitan's op-level selective: attention and every "
                        "other matmul kept)"),
            from_framework(enumeration("attention", member(training, &TrainingSpec::attention),
                                       std::array<std::string_view, 5>{"cudnn", "flash2", "sdpa_flash", "flash3",
                                                                       "unfused"},
                                       "attention kernel: cudnn (cuDNN fused attention, Transformer Engine), "
                                       "flash2 (FlashAttention-2, the flash-attn package), sdpa_flash (PyTorch "
                                       "scaled_dot_product_attention's flash backend), flash3 (FlashAttention-3, "
                                       "Hopper only), or unfused with s x s scores in HBM (Megatron-LM before 2023)"),
                           member(training, &TrainingSpec::attention), &FrameworkParameters::attention),
            from_framework(enumeration("elementwise", member(training, &TrainingSpec::elementwise),
                                       std::array<std::string_view, 2>{"fused", "eager"},
                                       "norm, residual, activation and RoPE kernels: fused (Megatron-LM, "
                                       "Transformer Engine, torch.compile) or eager (one PyTorch op per kernel)"),
                           member(training, &TrainingSpec::elementwise), &FrameworkParameters::elementwise),
            cross_entropy_field(),
            rope_fusion_field(),
            boolean("repeat_kv", member(training, &TrainingSpec::repeat_kv),
                    "with grouped-query attention, the model code copies each key and value head to its "
                    "query heads before the attention kernel (torchtitan's repeat_kv until 2026-01-27): the "
                    "copy is a pass of its own, the kernel reads and keeps the repeated keys and values, and "
                    "context parallelism moves them at the query width; false (the default): the kernel "
                    "takes the groups as they are (Transformer Engine, flash-attn, SDPA's enable_gqa)"),
            enumeration("schedule", member(training, &TrainingSpec::schedule),
                        std::array<std::string_view, 3>{"gpipe", "1f1b", "interleaved"},
                        "pipeline schedule"),
            from_framework(enumeration("grad_dtype", member(training, &TrainingSpec::grad_dtype),
                                       std::array<std::string_view, 2>{"fp32", "bf16"},
                                       "gradient buffer of ZeRO 0-2: fp32 (Megatron-LM main_grad) or bf16 "
                                       "(NeMo grad_sync_dtype bf16); ZeRO-3 uses its sharding's reduce dtype"),
                           member(training, &TrainingSpec::grad_dtype), &FrameworkParameters::grad_dtype),
            from_framework(enumeration("grad_accumulation", member(training, &TrainingSpec::grad_accumulation),
                                       std::array<std::string_view, 4>{"fused", "autograd", "main_grad_add",
                                                                       "fp32_cast_add"},
                                       "ZeRO 0-1: how each micro-batch's gradients join the step's buffer: fused "
                                       "into the weight-gradient GEMM (Megatron gradient_accumulation_fusion), "
                                       "autograd (an in-place add into the 16-bit .grad from the second "
                                       "micro-batch on, 6 B a parameter), main_grad_add (Megatron's DDP hook "
                                       "without the fusion: 2 B plus the grad_dtype buffer read and written, every "
                                       "micro-batch) or fp32_cast_add (DeepSpeed's BF16_Optimizer: cast to fp32 "
                                       "and add, 18 B a parameter every micro-batch)"),
                           member(training, &TrainingSpec::grad_accumulation),
                           &FrameworkParameters::grad_accumulation),
            number("tokens", member(training, &TrainingSpec::tokens), tokens, key_bounds::training_tokens,
                   "training budget, for time-to-train"),
            boolean("overlap_grad_reduce", member(training, &TrainingSpec::overlap_grad_reduce),
                    "reduce DP gradients in buckets under the backward pass"),
            boolean("overlap_param_gather", member(training, &TrainingSpec::overlap_param_gather),
                    "all-gather sharded parameters under compute: ZeRO-3's prefetch, and ZeRO 1-2's gather of the "
                    "updated parameters beside the next forward where the framework's optimizer runs it there "
                    "(megatron-core; megatron-deepspeed and megatron-lm gather inside the optimizer's step)"),
            integer("grad_bucket_params", member(training, &TrainingSpec::grad_bucket_params), count,
                    key_bounds::grad_bucket_params,
                    "ZeRO 0-2: parameters a gradient bucket holds (Megatron-Core --ddp-bucket-size); a bucket's "
                    "reduction starts once its last gradient is ready; 0: a bucket per layer"),
            boolean("cuda_graphs", member(training, &TrainingSpec::cuda_graphs),
                    "replay each layer's forward and backward as a CUDA graph: one host launch a "
                    "layer pass instead of one a kernel"),
            number("moe_load_imbalance", member(training, &TrainingSpec::moe_load_imbalance), count,
                   key_bounds::load_imbalance,
                   "mixture of experts: tokens on the busiest expert rank over the mean; 1: balanced"),
            number("moe_capacity_factor", member(training, &TrainingSpec::moe_capacity_factor), count,
                   key_bounds::capacity_factor,
                   "mixture of experts: an expert takes at most this x its mean share of the routed tokens, "
                   "dropping the rest; 0: dropless"),
            boolean("moe_pad_to_capacity", member(training, &TrainingSpec::moe_pad_to_capacity),
                    "mixture of experts: every expert runs its full capacity, padded (needs moe_capacity_factor)"),
            enumeration("moe_dispatcher", member(training, &TrainingSpec::moe_dispatcher),
                        std::array<std::string_view, 2>{"alltoall", "deepep"},
                        "mixture of experts: alltoall (NCCL all-to-all of every routed copy) or deepep (each "
                        "token crosses the network once per node it is routed to, and NVLink once per rank)"),
            enumeration("moe_routing", member(training, &TrainingSpec::moe_routing),
                        std::array<std::string_view, 2>{"uniform", "consecutive"},
                        "mixture of experts: which experts a token takes, for the dispatch: uniform (k at "
                        "random, a learned router) or consecutive (k consecutive ones, NeMo Automodel's fake "
                        "balanced gate: a fixed gate, no router to run or train)")}},
      {.pointer = "/simulation",
       .meaning = "how the simulator runs",
       .index_in_parent = 1,
       .fields = {enumeration("fidelity", member(simulation, &SimulationOptions::fidelity),
                              std::array<std::string_view, 2>{"analytic", "flow"},
                              "communication model: alpha-beta delays, or flows sharing links"),
                  unsigned_integer("seed", member(simulation, &SimulationOptions::seed),
                                   "seed of every random draw")}},
      {.pointer = "/calibration",
       .meaning = "measured constants that replace built-in ones",
       .index_in_parent = 1,
       .fields = {string("profile", member(root, &Scenario::calibration_profile),
                         "path of a calibration profile JSON; \"bundled\" or empty: the profile bundled for "
                         "the GPU (fitted to published measurements), the built-in line where it has none; "
                         "\"built-in\": the built-in alpha-beta line")}},
      {.pointer = "/sweep",
       .meaning = "the layouts `clustersim sweep` compares when no --configs file is given",
       .index_in_parent = 1,
       .fields = {sweep_configs()}},
  };
  for (auto& section : run_sections()) sections.push_back(std::move(section));
  return sections;
}

std::string format_number(double value) {
  std::array<char, 32> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return {buffer.data(), result.ptr};
}

std::string_view type_name(ValueType type) {
  switch (type) {
    case ValueType::integer: return "integer";
    case ValueType::unsigned_integer: return "integer";
    case ValueType::number: return "number";
    case ValueType::boolean: return "boolean";
    case ValueType::string: return "string";
    case ValueType::enumeration: return "enum";
    case ValueType::array: return "array";
  }
  return "?";
}

}  // namespace

// --- Field / Section --------------------------------------------------------------------------

std::string Bounds::text(bool integer) const {
  // Whole bounds up to 1e9 in digits ("100000", not "1e+05"); beyond, the shortest form.
  const auto bound = [](double x) {
    return std::trunc(x) == x && std::abs(x) <= 1e9 ? std::to_string(static_cast<std::int64_t>(x)) : format_number(x);
  };
  const bool low = std::isfinite(min), high = std::isfinite(max);
  std::string range;
  if (low && high) {
    range = integer ? bound(min) + ".." + bound(max)
                    : (min_exclusive ? "(" : "[") + bound(min) + ", " + bound(max) + "]";
  } else if (low) {
    range = (min_exclusive ? "> " : ">= ") + bound(min);
  } else if (high) {
    range = "<= " + bound(max);
  } else {
    return "any";
  }
  return or_zero ? "0 or " + range : range;
}

std::string Field::requirement() const {
  switch (type) {
    case ValueType::boolean: return "true or false";
    case ValueType::string: return "a string";
    case ValueType::array: return "an array";
    case ValueType::enumeration: {
      std::string text = "one of ";
      for (std::size_t i = 0; i < choices.size(); ++i) {
        if (i > 0) text += '|';
        text += choices[i];
      }
      return text;
    }
    case ValueType::integer:
    case ValueType::unsigned_integer:
    case ValueType::number: break;
  }
  const bool is_integer = type != ValueType::number;
  const std::string kind = is_integer ? "integer" : "number";
  if (!std::isfinite(bounds.max) && bounds.min == 0 && !bounds.or_zero) {
    return (bounds.min_exclusive ? "a positive " : "a non-negative ") + kind;
  }
  Bounds range = bounds;
  range.or_zero = false;
  std::string text = bounds.or_zero ? "0 or " : "";
  text.append(is_integer ? "an " : "a ").append(kind);
  if (std::isfinite(bounds.min) || std::isfinite(bounds.max)) {
    text.append(std::isfinite(bounds.min) && std::isfinite(bounds.max) ? " in " : " ").append(range.text(is_integer));
  }
  // The unit, where it says more than "a number": "in [1, 100000] TFLOP/s".
  if (!unit.symbol.empty() && unit.symbol != "fraction" && unit.symbol != "probability") {
    text.append(" ").append(unit.symbol);
  }
  return text;
}

bool Field::accepts(const FieldValue& value) const {
  switch (type) {
    case ValueType::integer: {
      const auto* v = std::get_if<std::int64_t>(&value);
      return v && bounds.contains(static_cast<double>(*v));
    }
    case ValueType::unsigned_integer: return std::holds_alternative<std::uint64_t>(value);
    case ValueType::number: {
      const auto* v = std::get_if<double>(&value);
      return v && std::isfinite(*v) && bounds.contains(*v);
    }
    case ValueType::boolean: return std::holds_alternative<bool>(value);
    case ValueType::string:
    case ValueType::array: return std::holds_alternative<std::string>(value);
    case ValueType::enumeration: {
      const auto* v = std::get_if<std::string>(&value);
      if (!v) return false;
      for (const auto choice : choices) {
        if (choice == *v) return true;
      }
      return false;
    }
  }
  return false;
}

std::string_view Section::key() const { return pointer.substr(pointer.rfind('/') + 1); }

std::string_view Section::parent() const {
  const auto slash = pointer.rfind('/');
  return slash == std::string_view::npos ? std::string_view{} : pointer.substr(0, slash);
}

const Field* Section::find_field(std::string_view name) const {
  for (const auto& field : fields) {
    if (field.key == name) return &field;
  }
  return nullptr;
}

const std::vector<Section>& scenario_sections() {
  // Built once, never changed: a constant table, not shared mutable state.
  static const std::vector<Section> sections = build_sections();
  return sections;
}

const Section* find_section(std::string_view pointer) {
  for (const auto& section : scenario_sections()) {
    if (section.pointer == pointer) return &section;
  }
  return nullptr;
}

std::vector<const Section*> child_sections(const Section& parent) {
  std::vector<const Section*> children;
  for (const auto& section : scenario_sections()) {
    if (!section.pointer.empty() && section.parent() == parent.pointer) {
      children.push_back(&section);
    }
  }
  return children;
}

std::vector<std::string_view> allowed_keys(const Section& section) {
  std::vector<std::string_view> keys;
  if (section.preset != PresetKind::none) keys.push_back("preset");
  for (const auto& field : section.fields) keys.push_back(field.key);
  for (const auto* child : child_sections(section)) keys.push_back(child->key());
  return keys;
}

// --- values and units -------------------------------------------------------------------------

std::string format_value(const FieldValue& value) {
  struct Formatter {
    std::string operator()(std::int64_t v) const { return std::to_string(v); }
    std::string operator()(std::uint64_t v) const { return std::to_string(v); }
    std::string operator()(double v) const { return format_number(v); }
    std::string operator()(bool v) const { return v ? "true" : "false"; }
    std::string operator()(const std::string& v) const { return '"' + v + '"'; }
  };
  return std::visit(Formatter{}, value);
}

double from_unit(double value, const Unit& unit) { return value * unit.mul / unit.div; }

double to_unit(double si, const Unit& unit) {
  const double guess = si * unit.div / unit.mul;
  if (!std::isfinite(guess) || from_unit(guess, unit) == si) return guess;
  // The division rounded to a value that does not map back; a neighbour a few ulps away does.
  double up = guess;
  double down = guess;
  for (int step = 0; step < 4; ++step) {
    up = std::nextafter(up, std::numeric_limits<double>::infinity());
    if (from_unit(up, unit) == si) return up;
    down = std::nextafter(down, -std::numeric_limits<double>::infinity());
    if (from_unit(down, unit) == si) return down;
  }
  return guess;
}

// --- explain ----------------------------------------------------------------------------------

std::vector<KeyDoc> explain_keys() {
  const Scenario defaults{};
  std::vector<KeyDoc> rows;
  for (const auto& section : scenario_sections()) {
    if (section.preset_shorthand) {
      rows.push_back({
          .pointer = std::string(section.pointer),
          .type = "string|object",
          .default_text = "required",
          .meaning = "preset name, or an object: {\"preset\": name, <field>: override, ...}",
      });
    }
    if (section.preset != PresetKind::none) {
      const bool gpu_preset = section.preset == PresetKind::gpu;
      rows.push_back({
          .pointer = std::string(section.pointer) + "/preset",
          .type = "string",
          .default_text = "none",
          .meaning = gpu_preset
                         ? "GPU preset name; without one, every \"preset\" key is required; a --set "
                           "of another takes from it the fields not written explicitly"
                         : "model preset name; without one, every \"preset\" key is required; a --set "
                           "of another takes from it the fields not written explicitly",
      });
    }
    for (const auto& field : section.fields) {
      KeyDoc row{
          .pointer = std::string(section.pointer) + "/" + std::string(field.key),
          .type = std::string(type_name(field.type)),
          .choices = {field.choices.begin(), field.choices.end()},
          .unit = std::string(field.unit.symbol),
          .meaning = std::string(field.meaning),
      };
      if (field.type == ValueType::integer || field.type == ValueType::number ||
          field.type == ValueType::unsigned_integer) {
        row.bounds = field.bounds;
        row.range = field.bounds.text(field.type != ValueType::number);
      }
      const FieldValue value = field.get(defaults);
      switch (field.default_kind) {
        case DefaultKind::value:
          if (field.type == ValueType::array) {
            // The value is JSON text already; as a FieldValue it would read as a quoted string.
            row.default_text = std::get<std::string>(value);
            break;
          }
          row.default_value = value;
          row.default_text = format_value(value);
          break;
        case DefaultKind::preset_or_required:
          row.default_text = "preset";
          break;
        case DefaultKind::preset_or_value:
          row.default_value = value;
          row.default_text = "preset, else " + format_value(value);
          break;
        case DefaultKind::derived:
          row.default_text = std::string(field.derived_from);
          break;
      }
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

}  // namespace clustersim::scenarios
