# Run by CMakeLists.txt after the objects of a kernel set are compiled (cmake -P):
#   -DNM=<nm> -DSET=<set> -DOBJECTS=<object|object|...> -DSTAMP=<file to touch>
# Fails when an object defines an external symbol outside heed::kernels::<SET>: such a
# symbol (an inline function or a template instance the compiler emitted out of line) could
# be the copy the linker keeps for the whole program, and run this set's instructions on a
# CPU that lacks them (kernel_table.h).
string(REPLACE "|" ";" objects "${OBJECTS}")
string(LENGTH "${SET}" set_length)
# Type information (_ZTI, _ZTS: data, which the sanitizers' function checks emit) may be
# shared; code and everything else must be the set's own.
set(allowed "^_Z((N|ZN|GVZN)4heed7kernels${set_length}${SET}|T[IS])")
set(stray "")
foreach(object ${objects})
  execute_process(COMMAND ${NM} --defined-only --extern-only --format=posix ${object}
                  OUTPUT_VARIABLE listing RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${NM} failed on ${object}")
  endif()
  string(REPLACE "\n" ";" lines "${listing}")
  foreach(line ${lines})
    string(REGEX MATCH "^[^ ]+" symbol "${line}")
    if(symbol AND NOT symbol MATCHES "${allowed}")
      list(APPEND stray "${object}: ${symbol}")
    endif()
  endforeach()
endforeach()
if(stray)
  list(JOIN stray "\n  " text)
  message(FATAL_ERROR "the ${SET} kernel set defines symbols outside heed::kernels::${SET} "
          "(the linker could hand them to the rest of the program; keep them inline or in an "
          "unnamed namespace):\n  ${text}")
endif()
file(TOUCH ${STAMP})
