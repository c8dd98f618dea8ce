# SPDX-License-Identifier: MIT
# rt_layer(NAME SOURCES file... [DEPS layer...] [LIBS library...]): one layer of the library as
# a static library (docs/architecture.md). Its sources see the public headers (replay/include,
# analysis/include), their own folder and the folders of the layers in DEPS, not those of any
# other layer. A shared library of the same objects is linked with --no-undefined against DEPS
# and LIBS alone (NAME-linkcheck, built with everything): a call into a layer that is not below
# fails the build there, whatever order the final link would have pulled the objects in.
function(rt_layer name)
  cmake_parse_arguments(L "" "" "SOURCES;DEPS;LIBS" ${ARGN})
  add_library(${name} STATIC ${L_SOURCES})
  set(dirs "")
  foreach(src IN LISTS L_SOURCES)
    get_filename_component(d "${CMAKE_CURRENT_SOURCE_DIR}/${src}" DIRECTORY)
    list(APPEND dirs "${d}")
  endforeach()
  list(REMOVE_DUPLICATES dirs)
  set_target_properties(${name} PROPERTIES RT_LAYER_DIRS "${dirs}" POSITION_INDEPENDENT_CODE ON)
  set(private_dirs ${dirs})
  foreach(dep IN LISTS L_DEPS)
    get_target_property(dep_dirs ${dep} RT_LAYER_DIRS)
    list(APPEND private_dirs ${dep_dirs})
  endforeach()
  target_include_directories(${name}
    PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/replay/include>
    PRIVATE ${private_dirs})
  target_compile_options(${name} PRIVATE
    $<$<C_COMPILER_ID:GNU,Clang>:-Werror=implicit-function-declaration>)
  target_link_libraries(${name} PUBLIC ${L_DEPS} ${L_LIBS})
  if(NOT RT_ASAN)
    add_library(${name}-linkcheck SHARED $<TARGET_OBJECTS:${name}>)
    set(check_deps "")
    foreach(dep IN LISTS L_DEPS)
      list(APPEND check_deps ${dep}-linkcheck)
    endforeach()
    target_link_libraries(${name}-linkcheck PRIVATE ${check_deps} ${L_LIBS})
    target_link_options(${name}-linkcheck PRIVATE -Wl,--no-undefined)
  endif()
endfunction()

# The internal folders of layer NAME (for a test or benchmark that checks a layer's insides).
function(rt_layer_dirs out name)
  get_target_property(d ${name} RT_LAYER_DIRS)
  set(${out} ${d} PARENT_SCOPE)
endfunction()
