# SPDX-License-Identifier: MIT
# CPack: one .deb, kbx-workbench_<version>-1~deb<N>_<arch>.deb, for the Debian release it is built on
# (12 and 13 are tested by scripts/package-test.sh). Build with `cpack -G DEB` in the build tree.
set(KBX_DEB_RELEASE "" CACHE STRING "Debian release the .deb is for (default: read from /etc/os-release)")
set(_kbx_os_id "")
if(NOT KBX_DEB_RELEASE AND EXISTS /etc/os-release)
  file(STRINGS /etc/os-release _kbx_os REGEX "^(ID|VERSION_ID|VERSION_CODENAME)=")
  foreach(l IN LISTS _kbx_os)
    if(l MATCHES "^VERSION_ID=\"?([0-9.]+)\"?")
      set(KBX_DEB_RELEASE_DETECTED "${CMAKE_MATCH_1}")
    elseif(l MATCHES "^VERSION_CODENAME=\"?([a-z]+)\"?")
      set(KBX_DEB_SUITE "${CMAKE_MATCH_1}")
    elseif(l MATCHES "^ID=\"?([a-z]+)\"?")
      set(_kbx_os_id "${CMAKE_MATCH_1}")
    endif()
  endforeach()
endif()
if(KBX_DEB_RELEASE)
  set(_kbx_rel "${KBX_DEB_RELEASE}")
elseif(_kbx_os_id STREQUAL "debian" AND KBX_DEB_RELEASE_DETECTED)
  set(_kbx_rel "deb${KBX_DEB_RELEASE_DETECTED}")
elseif(_kbx_os_id AND KBX_DEB_RELEASE_DETECTED)
  string(REPLACE "." "" _v "${KBX_DEB_RELEASE_DETECTED}")
  set(_kbx_rel "${_kbx_os_id}${_v}")
else()
  set(_kbx_rel "local")
endif()
if(NOT KBX_DEB_SUITE)
  set(KBX_DEB_SUITE "unstable")
endif()

set(CPACK_PACKAGE_NAME "kbx-workbench")
set(CPACK_PACKAGE_VENDOR "KernelBench-X Workbench developers")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_CONTACT "${KBX_PACKAGE_MAINTAINER}")
if(KBX_HOMEPAGE)
  set(CPACK_PACKAGE_HOMEPAGE_URL "${KBX_HOMEPAGE}")
endif()
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "evaluate and inspect LLM-generated Triton kernels")
set(CPACK_PACKAGE_DESCRIPTION "KernelBench-X Workbench decides whether a generated Triton kernel runs and
whether it is right against a PyTorch reference, on 176 benchmark tasks,
and stores every verdict with its evidence in SQLite. kbx-workbench is the
Qt desktop workbench (tasks, code, failures, charts for papers); kbx is the
command line (tasks, eval, import, report). The worker's Python side
(torch, Triton, numpy) is installed once per user with kbx setup-python.")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE "1~${_kbx_rel}")
set(CPACK_DEBIAN_PACKAGE_SECTION "science")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# LibTorch comes from the user's venv at run time (the launcher finds it), not from a package.
if(KBX_BUILD_WORKER AND TorchWheel_ROOT)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS "${TorchWheel_ROOT}/lib")
endif()
set(_kbx_depends "")
if(KBX_BUILD_WORKER)
  # kbx setup-python makes the venv with the interpreter the worker embeds.
  set(_kbx_py "python${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}")
  set(_kbx_depends "${_kbx_py}, ${_kbx_py}-venv")
endif()
set(CPACK_DEBIAN_PACKAGE_DEPENDS "${_kbx_depends}")
# bubblewrap: the candidate sandbox (kbx falls back to rlimits without it); fonts for the figures.
set(_kbx_recommends "bubblewrap, fonts-dejavu-core")
# Qt's SVG icon engine (the window icon is an SVG): in libqt6svg6 on Debian 12, which dpkg-shlibdeps
# adds; a package of its own, qt6-svg-plugins, on Debian 13.
find_program(KBX_DPKG_QUERY dpkg-query)
if(KBX_BUILD_GUI AND KBX_DPKG_QUERY)
  execute_process(COMMAND ${KBX_DPKG_QUERY} -L libqt6svg6 OUTPUT_VARIABLE _kbx_svg_files ERROR_QUIET RESULT_VARIABLE _kbx_svg_rc)
  if(_kbx_svg_rc EQUAL 0 AND NOT _kbx_svg_files MATCHES "iconengines/libqsvgicon")
    string(APPEND _kbx_recommends ", qt6-svg-plugins")
  endif()
endif()
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "${_kbx_recommends}")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "appstream")

# Debian's documentation files: copyright, changelog.Debian.gz.
set(KBX_DEB_VERSION "${PROJECT_VERSION}-${CPACK_DEBIAN_PACKAGE_RELEASE}")  # CPack appends the release itself
configure_file(${CMAKE_CURRENT_LIST_DIR}/debian/copyright ${CMAKE_CURRENT_BINARY_DIR}/debian/copyright @ONLY)
configure_file(${CMAKE_CURRENT_LIST_DIR}/debian/changelog.in ${CMAKE_CURRENT_BINARY_DIR}/debian/changelog.Debian @ONLY)
find_program(KBX_GZIP gzip)
if(KBX_GZIP)
  execute_process(COMMAND ${KBX_GZIP} -9nf -k ${CMAKE_CURRENT_BINARY_DIR}/debian/changelog.Debian RESULT_VARIABLE _kbx_gz)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/debian/changelog.Debian.gz DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${CPACK_PACKAGE_NAME})
endif()
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/debian/copyright DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${CPACK_PACKAGE_NAME})

set(CPACK_GENERATOR "DEB")
set(CPACK_SOURCE_GENERATOR "")
include(CPack)
