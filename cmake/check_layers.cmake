# Checks that no file includes a header of a layer above its own.
#
#   cmake -DSOURCE_DIR=<tree> -DTABLE=<layers.txt> [-DSTAMP=<file>] -P check_layers.cmake
#
# TABLE is written by aotc_write_layer_table() (cmake/layers.cmake): one line per layer,
# "name|folder,folder|dependency,dependency". A file in a layer's folder may include
# `"folder/header.h"` only for folders of its own layer and of the layers it depends on,
# directly or through them. Includes of folders that belong to no layer but share a
# top-level folder with one (a typo, or a folder the table forgot) are errors too;
# anything else ("tflite_schema_generated.h", <system headers>) is not looked at.
# Every violation is listed, then the script fails. With STAMP, that file is touched on
# success (for the build step).
cmake_minimum_required(VERSION 3.20)

if(NOT SOURCE_DIR OR NOT TABLE)
  message(FATAL_ERROR "usage: cmake -DSOURCE_DIR=<tree> -DTABLE=<layers.txt> -P check_layers.cmake")
endif()

file(STRINGS ${TABLE} lines)
set(layers "")
set(top_folders "")
foreach(line IN LISTS lines)
  string(REPLACE "|" ";" fields "${line}|")
  list(GET fields 0 name)
  list(GET fields 1 dirs)
  list(GET fields 2 deps)
  string(REPLACE "," ";" dirs "${dirs}")
  string(REPLACE "," ";" deps "${deps}")
  list(APPEND layers ${name})
  set(dirs_${name} ${dirs})
  set(deps_${name} ${deps})
  foreach(dir IN LISTS dirs)
    set(owner_${dir} ${name})
    string(REGEX REPLACE "/.*" "" top "${dir}")
    list(APPEND top_folders ${top})
  endforeach()
endforeach()
list(REMOVE_DUPLICATES top_folders)

# allowed_<layer>: the layer itself and everything below it.
foreach(name IN LISTS layers)
  set(allowed ${name})
  set(queue ${deps_${name}})
  while(queue)
    list(POP_FRONT queue dep)
    if(NOT DEFINED dirs_${dep})
      message(FATAL_ERROR "layer '${name}' depends on '${dep}', which is not a layer")
    endif()
    if(NOT dep IN_LIST allowed)
      list(APPEND allowed ${dep})
      list(APPEND queue ${deps_${dep}})
    endif()
  endwhile()
  set(allowed_${name} ${allowed})
endforeach()

set(violations "")
set(checked 0)
foreach(name IN LISTS layers)
  foreach(dir IN LISTS dirs_${name})
    file(GLOB files ${SOURCE_DIR}/${dir}/*.h ${SOURCE_DIR}/${dir}/*.cc ${SOURCE_DIR}/${dir}/*.c)
    foreach(file IN LISTS files)
      math(EXPR checked "${checked} + 1")
      file(STRINGS ${file} includes REGEX "^[ \t]*#[ \t]*include[ \t]*\"[^\"]+\"")
      foreach(include IN LISTS includes)
        string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*" "\\1" header "${include}")
        get_filename_component(header_dir "${header}" DIRECTORY)
        if(header_dir STREQUAL "")
          continue()  # beside the file, or a generated header
        endif()
        file(RELATIVE_PATH relative ${SOURCE_DIR} ${file})
        if(DEFINED owner_${header_dir})
          set(target_layer ${owner_${header_dir}})
          if(NOT target_layer IN_LIST allowed_${name})
            string(REPLACE ";" ", " may "${allowed_${name}}")
            list(APPEND violations
              "${relative}: includes \"${header}\" of layer '${target_layer}', but layer '${name}' may include only: ${may}")
          endif()
        else()
          string(REGEX REPLACE "/.*" "" top "${header_dir}")
          if(top IN_LIST top_folders)
            list(APPEND violations "${relative}: includes \"${header}\", whose folder belongs to no layer")
          endif()
        endif()
      endforeach()
    endforeach()
  endforeach()
endforeach()

if(violations)
  list(LENGTH violations count)
  string(REPLACE ";" "\n  " text "${violations}")
  message(FATAL_ERROR "layering: ${count} include(s) against the layer order (cmake/layers.cmake):\n  ${text}\n")
endif()
message(STATUS "layering: ${checked} files, no include against the layer order")
if(STAMP)
  file(TOUCH ${STAMP})
endif()
