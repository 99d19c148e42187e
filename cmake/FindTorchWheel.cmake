# SPDX-License-Identifier: MIT
# Finds LibTorch inside the torch wheel of the Python interpreter in Python3_EXECUTABLE / KBX_PYTHON,
# so the worker links exactly the library the embedded interpreter imports (same ABI, same build).
# Defines TorchWheel_FOUND, TorchWheel_VERSION, TorchWheel_CUDA and the imported target TorchWheel::torch.
set(_kbx_py "${Python3_EXECUTABLE}")
if(NOT _kbx_py)
  set(_kbx_py "${KBX_PYTHON}")
endif()
if(_kbx_py)
  execute_process(
    COMMAND "${_kbx_py}" -c "import os, torch; print(os.path.dirname(torch.__file__)); print(torch.__version__); print(int(torch.compiled_with_cxx11_abi())); print(torch.version.cuda or '')"
    OUTPUT_VARIABLE _kbx_torch_out RESULT_VARIABLE _kbx_torch_rc ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
endif()
if(_kbx_torch_rc EQUAL 0)
  string(REPLACE "\n" ";" _kbx_torch_lines "${_kbx_torch_out}")
  list(GET _kbx_torch_lines 0 TorchWheel_ROOT)
  list(GET _kbx_torch_lines 1 TorchWheel_VERSION)
  list(GET _kbx_torch_lines 2 TorchWheel_CXX11_ABI)
  list(LENGTH _kbx_torch_lines _n)
  set(TorchWheel_CUDA "")
  if(_n GREATER 3)
    list(GET _kbx_torch_lines 3 TorchWheel_CUDA)
  endif()
  find_library(TorchWheel_TORCH_LIB torch PATHS "${TorchWheel_ROOT}/lib" NO_DEFAULT_PATH)
  find_library(TorchWheel_TORCH_CPU_LIB torch_cpu PATHS "${TorchWheel_ROOT}/lib" NO_DEFAULT_PATH)
  find_library(TorchWheel_C10_LIB c10 PATHS "${TorchWheel_ROOT}/lib" NO_DEFAULT_PATH)
  find_path(TorchWheel_INCLUDE_DIR ATen/ATen.h PATHS "${TorchWheel_ROOT}/include" NO_DEFAULT_PATH)
endif()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(TorchWheel
  REQUIRED_VARS TorchWheel_TORCH_LIB TorchWheel_TORCH_CPU_LIB TorchWheel_C10_LIB TorchWheel_INCLUDE_DIR
  VERSION_VAR TorchWheel_VERSION)
if(TorchWheel_FOUND AND NOT TARGET TorchWheel::torch)
  add_library(TorchWheel::torch INTERFACE IMPORTED)
  target_include_directories(TorchWheel::torch SYSTEM INTERFACE
    "${TorchWheel_INCLUDE_DIR}" "${TorchWheel_INCLUDE_DIR}/torch/csrc/api/include")
  target_link_libraries(TorchWheel::torch INTERFACE
    "${TorchWheel_TORCH_LIB}" "${TorchWheel_TORCH_CPU_LIB}" "${TorchWheel_C10_LIB}")
  target_compile_definitions(TorchWheel::torch INTERFACE _GLIBCXX_USE_CXX11_ABI=${TorchWheel_CXX11_ABI})
  target_link_options(TorchWheel::torch INTERFACE "LINKER:-rpath,${TorchWheel_ROOT}/lib" "LINKER:--no-as-needed")
endif()
