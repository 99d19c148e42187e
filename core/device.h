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

/// JSON writes the name (deviceName); reading a name parseDevice does not know throws
/// nlohmann::json::other_error instead of quietly giving the CPU.
void to_json(nlohmann::json& j, Device device);
void from_json(const nlohmann::json& j, Device& device);

}  // namespace kbx
