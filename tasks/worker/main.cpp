// SPDX-License-Identifier: MIT
// kbx-worker: the only program that runs candidate code. Roles:
//   reference --request FILE   draw inputs, compute reference outputs (never sees candidate code)
//   candidate --request FILE   import and call one candidate on the saved inputs
//   compare   --request FILE   compare reference and candidate outputs in C++ (LibTorch)
//   judge     --request FILE   re-run a verifying drive() on the entry's recorded results (kbx_harness/judge.py;
//                              never sees candidate code)
//   perf      --request FILE   time a correct candidate against eager PyTorch (kbx_harness/perf.py)
//   precompile --request FILE  compile a correct candidate's kernels for the perf shapes, run nothing
//   probe                      report versions and devices
//   canary [--request FILE]    run our own small Triton kernels per dtype/op under the CPU interpreter
//                              and report its gaps (kbx_harness/canary.py; never sees candidate code)
//   zygote                     warm worker: imports torch once, forks the roles above on request
//                              (fd 3 is then kbx's control socket; kbx_harness/zygote.py, core/warm.h)
// Every role speaks the framed protocol on fd 3 (core/protocol.h) and exits with a protocol::ExitCode.
#include "compare.h"
#include "process.h"
#include "protocol.h"

#include <pybind11/embed.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <ctime>
#include <fcntl.h>
#include <unistd.h>

#ifndef KBX_DEFAULT_PYTHON
#define KBX_DEFAULT_PYTHON ""
#endif
#ifndef KBX_DEFAULT_HARNESS_DIR
#define KBX_DEFAULT_HARNESS_DIR ""
#endif

namespace py = pybind11;
namespace proto = kbx::protocol;

namespace {

int g_protoFd = proto::kProtocolFd;

void sendFrame(const nlohmann::json& msg)
{
    const auto frame = proto::encodeFrame(msg);
    size_t off = 0;
    while (off < frame.size()) {
        ssize_t n = write(g_protoFd, frame.data() + off, frame.size() - off);
        if (n <= 0) {
            if (errno == EINTR)
                continue;
            return;  // the supervisor is gone; nothing to tell anyone
        }
        off += static_cast<size_t>(n);
    }
}

[[noreturn]] void quit(int code)
{
    std::cout.flush();
    std::cerr.flush();
    // No interpreter finalisation: torch and CUDA crash at shutdown often enough (pybind11 #1472,
    // pytorch #23540); the process is single-use anyway.
    std::_Exit(code);
}

std::string envOr(const char* name, const char* fallback)
{
    const char* v = std::getenv(name);
    return (v && *v) ? v : fallback;
}

nlohmann::json readRequest(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
        throw std::runtime_error("cannot read request " + path);
    return nlohmann::json::parse(in);
}

}  // namespace

PYBIND11_EMBEDDED_MODULE(_kbxworker, m)
{
    m.def("send", [](const std::string& payload) {
        auto j = nlohmann::json::parse(payload, nullptr, false);
        if (j.is_discarded() || !j.is_object())
            j = {{"type", "error"}, {"failure_class", "harness_error"}, {"message", "harness sent a malformed frame"}};
        sendFrame(j);
    });
    // The warm worker's child (kbx_harness.zygote): kbx's sandbox restrictions, applied by the same
    // code as between fork and exec of a fresh worker (core/process.h). Exits 127 when one fails.
    m.def("restrict", [](const std::string& restrictions, int parentPid) {
        const auto rx = kbx::restrictionsFromJson(nlohmann::json::parse(restrictions));
        kbx::PreparedRestrictions::prepare(rx, parentPid).apply();
    });
}

namespace {

double wallNow()
{
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

const double g_mainStart = wallNow();

int runPython(const std::string& role, nlohmann::json request)
{
    PyConfig config;
    PyConfig_InitPythonConfig(&config);
    config.install_signal_handlers = 0;
    config.buffered_stdio = 0;
    const std::string python = envOr("KBX_PYTHON", KBX_DEFAULT_PYTHON);
    if (!python.empty()) {
        // The venv's interpreter path makes Python find pyvenv.cfg and the venv's site-packages.
        PyStatus st = PyConfig_SetBytesString(&config, &config.program_name, python.c_str());
        if (PyStatus_Exception(st)) {
            std::cerr << "kbx-worker: cannot set program name\n";
            return proto::ExitPythonInit;
        }
    }
    try {
        py::scoped_interpreter guard(&config, 0, nullptr, false);
        try {
            auto sys = py::module_::import("sys");
            const std::string harness = envOr("KBX_HARNESS_DIR", KBX_DEFAULT_HARNESS_DIR);
            sys.attr("path").attr("insert")(0, harness);
            // Where a worker's start-up time goes (time.time() seconds, same clock as Python's): the
            // program's start and the interpreter being ready; the harness adds its own phases.
            request["_t_main"] = g_mainStart;
            request["_t_python"] = wallNow();
            auto json = py::module_::import("json");
            py::object req = json.attr("loads")(request.dump());
            auto mod = py::module_::import(("kbx_harness." + role).c_str());
            int rc = mod.attr("main")(req).cast<int>();
            try {
                sys.attr("stdout").attr("flush")();
                sys.attr("stderr").attr("flush")();
            } catch (...) {
            }
            quit(rc);
        } catch (const py::error_already_set& e) {
            sendFrame({{"type", "error"}, {"failure_class", "harness_error"}, {"message", std::string("worker Python error: ") + e.what()}});
            std::cerr << e.what() << "\n";
            quit(proto::ExitHarnessError);
        }
    } catch (const std::exception& e) {
        sendFrame({{"type", "error"}, {"failure_class", "harness_error"}, {"message", std::string("cannot start Python: ") + e.what()}});
        std::cerr << "kbx-worker: cannot start Python: " << e.what() << "\n";
        return proto::ExitPythonInit;
    }
}

int runCompare(const nlohmann::json& request)
{
    sendFrame({{"type", "hello"}, {"magic", proto::kMagic}, {"protocol", proto::kProtocolVersion}, {"role", "compare"}});
    kbx::worker::Contract c;
    const auto& cj = request.at("contract");
    c.comparison = cj.value("comparison", "allclose");
    c.tolerance = cj.value("tolerance", nlohmann::json::object());
    c.quantization = cj.value("quantization", nlohmann::json());
    c.uniform = cj.value("uniform", nlohmann::json());
    c.signedZeros = cj.value("signed_zeros", false);
    auto res = kbx::worker::compareFiles(request.at("ref_file").get<std::string>(), request.at("outputs_file").get<std::string>(), c);
    for (const auto& cs : res["cases"]) {
        nlohmann::json f = cs;
        f["type"] = "case";
        sendFrame(f);
    }
    sendFrame({{"type", "result"}, {"pass", res["pass"]}});
    return proto::ExitOk;
}

void usage()
{
    std::cerr << "usage: kbx-worker (reference|candidate|compare|judge|perf|precompile) --request FILE [--protocol N]\n"
                 "       kbx-worker probe | zygote | canary\n"
                 "The worker is started by kbx; it writes protocol frames on fd 3.\n";
}

}  // namespace

int main(int argc, char** argv)
{
    if (fcntl(g_protoFd, F_GETFD) == -1)
        g_protoFd = dup(1);  // run by hand: frames go to stdout
    if (argc < 2) {
        usage();
        return proto::ExitUsage;
    }
    const std::string role = argv[1];
    std::string requestFile;
    for (int i = 2; i + 1 < argc; i += 2) {
        std::string a = argv[i];
        if (a == "--request")
            requestFile = argv[i + 1];
        else if (a == "--protocol" && std::atoi(argv[i + 1]) != proto::kProtocolVersion) {
            std::cerr << "kbx-worker: protocol " << argv[i + 1] << " requested, this worker speaks " << proto::kProtocolVersion << "\n";
            sendFrame({{"type", "hello"}, {"magic", proto::kMagic}, {"protocol", proto::kProtocolVersion}, {"role", role}});
            return proto::ExitVersionMismatch;
        }
    }
    try {
        if (role == "probe" || role == "zygote" || (role == "canary" && requestFile.empty())) {
            return runPython(role, nlohmann::json::object());
        }
        if (requestFile.empty() || (role != "reference" && role != "candidate" && role != "compare" && role != "perf" &&
                                     role != "precompile" && role != "canary" && role != "judge")) {
            usage();
            return proto::ExitUsage;
        }
        auto request = readRequest(requestFile);
        if (role == "compare")
            return runCompare(request);
        return runPython(role, request);
    } catch (const std::exception& e) {
        sendFrame({{"type", "error"}, {"failure_class", "harness_error"}, {"message", e.what()}});
        std::cerr << "kbx-worker: " << e.what() << "\n";
        return proto::ExitHarnessError;
    }
}
