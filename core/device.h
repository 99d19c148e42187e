#pragma once
// SPDX-License-Identifier: MIT
// Where candidates run: the one device type of the engine. Names are what the store (runs.device),
// the worker protocol ("device" in a request) and the command line say; JSON writes the name.

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace kbx {

/// Where candidates run: the CPU (the Triton interpreter) or CUDA.
enum class Device { Cpu, Cuda };

/// "cpu" or "cuda".
std::string deviceName(Device device);
/// "cpu" or "cuda"; nullopt for anything else ("auto" included: resolvePlan decides that).
std::optional<Device> parseDevice(std::string_view name);

NLOHMANN_JSON_SERIALIZE_ENUM(Device, {{Device::Cpu, "cpu"}, {Device::Cuda, "cuda"}})

}  // namespace kbx
