# SPDX-License-Identifier: MIT
# Finds OTF2 (Debian: libopen-trace-format2-dev) through pkg-config module `otf2`.
# Defines the imported target OTF2::OTF2 and OTF2_VERSION.
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(PC_OTF2 QUIET otf2)
endif()
find_path(OTF2_INCLUDE_DIR otf2/otf2.h HINTS ${PC_OTF2_INCLUDE_DIRS})
find_library(OTF2_LIBRARY NAMES open-trace-format2 otf2 HINTS ${PC_OTF2_LIBRARY_DIRS})
set(OTF2_VERSION "${PC_OTF2_VERSION}")
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(OTF2 REQUIRED_VARS OTF2_LIBRARY OTF2_INCLUDE_DIR VERSION_VAR OTF2_VERSION)
if(OTF2_FOUND AND NOT TARGET OTF2::OTF2)
  add_library(OTF2::OTF2 UNKNOWN IMPORTED)
  set_target_properties(OTF2::OTF2 PROPERTIES IMPORTED_LOCATION "${OTF2_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${OTF2_INCLUDE_DIR}")
endif()
mark_as_advanced(OTF2_INCLUDE_DIR OTF2_LIBRARY)
