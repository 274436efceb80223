# The compiler's layers: each a CMake library over one or more folders, with the layers
# below it as PRIVATE dependencies.
#
#   aotc_layer(NAME DIRS folder... [DEPS layer...] [OBJECT | CHECK_ONLY] [SOURCES extra...])
#
# makes the library aotc_<NAME> from the *.cc files in DIRS and records the layer. A file
# of a layer may include headers of its own folders and of the layers it depends on,
# directly or through them, and nothing else: cmake/check_layers.cmake checks every
# `#include "folder/..."` against the table that aotc_write_layer_table() writes, as a
# step of the build (target check_layers) and as the test `layering`. An upward include
# therefore fails the build, even where it would compile.
#
# A layer with no C++ sources (runtime-c: C headers the interpreter includes), or marked
# CHECK_ONLY (the CLI, whose one file is the aotc executable), is recorded for the check
# only.

set_property(GLOBAL PROPERTY AOTC_LAYERS "")

function(aotc_layer name)
  cmake_parse_arguments(PARSE_ARGV 1 L "OBJECT;CHECK_ONLY" "" "DIRS;DEPS;SOURCES")
  set_property(GLOBAL APPEND PROPERTY AOTC_LAYERS ${name})
  set_property(GLOBAL PROPERTY AOTC_LAYER_${name}_DIRS ${L_DIRS})
  set_property(GLOBAL PROPERTY AOTC_LAYER_${name}_DEPS ${L_DEPS})
  if(L_CHECK_ONLY)
    return()
  endif()
  set(sources ${L_SOURCES})
  foreach(dir IN LISTS L_DIRS)
    file(GLOB dir_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${dir}/*.cc)
    list(APPEND sources ${dir_sources})
  endforeach()
  if(NOT sources)
    return()
  endif()
  if(L_OBJECT)
    add_library(aotc_${name} OBJECT ${sources})
  else()
    add_library(aotc_${name} STATIC ${sources})
  endif()
  target_include_directories(aotc_${name} PUBLIC ${CMAKE_CURRENT_SOURCE_DIR} ${GEN_DIR})
  target_compile_definitions(aotc_${name} PUBLIC AOTC_VERSION="${PROJECT_VERSION}")
  target_compile_options(aotc_${name} PRIVATE -Wall -Wextra)
  foreach(dep IN LISTS L_DEPS)
    if(TARGET aotc_${dep})
      target_link_libraries(aotc_${name} PRIVATE aotc_${dep})
    endif()
  endforeach()
endfunction()

# Writes the layer table for cmake/check_layers.cmake: one line per layer,
# "name|dir,dir|dep,dep".
function(aotc_write_layer_table file)
  get_property(layers GLOBAL PROPERTY AOTC_LAYERS)
  set(text "")
  foreach(name IN LISTS layers)
    get_property(dirs GLOBAL PROPERTY AOTC_LAYER_${name}_DIRS)
    get_property(deps GLOBAL PROPERTY AOTC_LAYER_${name}_DEPS)
    string(REPLACE ";" "," dirs "${dirs}")
    string(REPLACE ";" "," deps "${deps}")
    string(APPEND text "${name}|${dirs}|${deps}\n")
  endforeach()
  file(WRITE ${file} "${text}")
endfunction()
