# Compares a plugin's dynamic symbols with the expected list:
#   every defined symbol (nm -D --defined-only) must be listed in EXPECTED (one per line; a name
#   followed by Slurm series, "select_p_job_signal 22.05", is expected only for those), and
#   no undefined symbol may be a C++ symbol of shareq's own (_ZN6shareq...) unless PROVIDER (the
#   shared libshareq_ctld.so the controller plugins link) defines it.
# With LIBRARY=ON, checks PROVIDER-style exports instead: every defined symbol must be a
# shareq::ctld C++ symbol (_ZN6shareq4ctld, or its typeinfo/vtable) or listed in EXPECTED.
# Usage: cmake -DPLUGIN=path.so -DEXPECTED=list.txt [-DPROVIDER=lib.so] [-DLIBRARY=ON]
#              [-DSERIES=24.11] -P check_exports.cmake
cmake_policy(SET CMP0057 NEW)  # if(IN_LIST) in script mode

function(defined_symbols file out)
  execute_process(COMMAND nm -D --defined-only ${file} OUTPUT_VARIABLE text RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "nm failed on ${file}")
  endif()
  string(REPLACE "\n" ";" lines "${text}")
  set(names "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^[0-9a-f]+ [A-Za-z] (.+)$")
      list(APPEND names ${CMAKE_MATCH_1})
    endif()
  endforeach()
  set(${out} ${names} PARENT_SCOPE)
endfunction()

defined_symbols(${PLUGIN} actual)
file(STRINGS ${EXPECTED} listed)
set(expected "")
foreach(line IN LISTS listed)
  string(REPLACE " " ";" fields "${line}")
  list(POP_FRONT fields name)
  if(fields STREQUAL "" OR (SERIES AND SERIES IN_LIST fields))
    list(APPEND expected ${name})
  endif()
endforeach()
if(LIBRARY)
  foreach(name IN LISTS actual)
    if(NOT name MATCHES "^_Z(NK?6shareq4ctld|T[ISV]N6shareq4ctld)")
      list(FIND expected ${name} at)
      if(at EQUAL -1)
        message(FATAL_ERROR "${PLUGIN} exports ${name}, which is not shareq::ctld's API")
      endif()
    endif()
  endforeach()
  return()
endif()

list(SORT actual)
list(SORT expected)
if(NOT actual STREQUAL expected)
  message(FATAL_ERROR "${PLUGIN} exports\n  ${actual}\nexpected\n  ${expected}")
endif()
set(provided "")
if(PROVIDER)
  defined_symbols(${PROVIDER} provided)
endif()
execute_process(COMMAND nm -D --undefined-only ${PLUGIN} OUTPUT_VARIABLE undefined)
string(REPLACE "\n" ";" lines "${undefined}")
foreach(line IN LISTS lines)
  if(line MATCHES "U (_ZN6shareq[^ ]*)$")
    list(FIND provided ${CMAKE_MATCH_1} at)
    if(at EQUAL -1)
      message(FATAL_ERROR "${PLUGIN} leaves ${CMAKE_MATCH_1} unresolved (not in ${PROVIDER})")
    endif()
  endif()
endforeach()
