# Stages the Windows package and zips it (packaging/windows/CMakeLists.txt):
#   cmake -DNAME= -DZIP= -DSTAGE= -DSTRIP= -DPROGRAMS=a;b -DFILES=c;d -P dist.cmake
# The programs and the DLL are stripped of their debug information (the
# build keeps it); the zip holds one folder, NAME, with the files flat in it.
file(REMOVE_RECURSE ${STAGE})
file(MAKE_DIRECTORY ${STAGE}/${NAME})
foreach(f ${PROGRAMS} ${FILES})
  file(COPY ${f} DESTINATION ${STAGE}/${NAME})
endforeach()
if(STRIP)
  foreach(f ${PROGRAMS})
    get_filename_component(base ${f} NAME)
    execute_process(COMMAND ${STRIP} --strip-debug ${STAGE}/${NAME}/${base} RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "strip ${base} failed")
    endif()
  endforeach()
endif()
file(REMOVE ${ZIP})
execute_process(COMMAND ${CMAKE_COMMAND} -E tar cf ${ZIP} --format=zip ${NAME} WORKING_DIRECTORY ${STAGE}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "zipping ${NAME} failed")
endif()
message(STATUS "${ZIP}")
