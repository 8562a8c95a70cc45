# Compile-time rules (contract §5), included from tests/CMakeLists.txt: each
# tests/<feature>/fail/sgNNN_<case>.cpp is one mistake behind `#ifdef SG_VIOLATION`. For each
# case and each compiler, the checker (cmake/CompileFail.cmake) requires that the violation
# fails with the rule ID and the offending names (the file's `// EXPECT:` regexes) in the
# first 15 lines, and that the file compiles without it.
# Only -fsyntax-only runs, so the whole suite stays cheap.

# A function, so that its variables stay its own and `return()` leaves only it.
function(stategraph_add_rule_tests)
  find_program(STATEGRAPH_RULES_GXX NAMES g++-12 g++)
  find_program(STATEGRAPH_RULES_CLANGXX NAMES clang++-14 clang++)

  set(rule_compilers "")
  set(rule_compiler_ids "")
  if(STATEGRAPH_RULES_GXX)
    list(APPEND rule_compilers ${STATEGRAPH_RULES_GXX})
    list(APPEND rule_compiler_ids gcc)
  endif()
  if(STATEGRAPH_RULES_CLANGXX)
    list(APPEND rule_compilers ${STATEGRAPH_RULES_CLANGXX})
    list(APPEND rule_compiler_ids clang)
  endif()
  if(NOT rule_compilers)
    message(WARNING "compile_fail: neither g++ nor clang++ found; the rule tests are not added")
    return()
  endif()

  # The include directories the library needs; the compilers' own system paths are left out
  # (an explicit -I/usr/include would reorder the standard library's include_next chain).
  set(rule_include_dirs ${PROJECT_SOURCE_DIR}/include ${Boost_INCLUDE_DIRS})
  get_target_property(range_v3_dirs range-v3::range-v3 INTERFACE_INCLUDE_DIRECTORIES)
  if(range_v3_dirs)
    list(APPEND rule_include_dirs ${range_v3_dirs})
  endif()
  list(REMOVE_DUPLICATES rule_include_dirs)
  list(FILTER rule_include_dirs EXCLUDE REGEX "^/usr/include/?$")
  list(JOIN rule_include_dirs "|" rule_include_arg)

  list(LENGTH rule_compilers compiler_count)
  math(EXPR last_compiler "${compiler_count} - 1")

  # The headers a case includes first, precompiled once per compiler: nearly all of a case's
  # time is parsing them. CompileFail.cmake uses a header's PCH only while it is newer than
  # every header, so a stale one never decides a case.
  set(rule_pch_flags -std=c++20 -Wall -Wextra -Wpedantic -Wno-missing-field-initializers)
  foreach(dir IN LISTS rule_include_dirs)
    list(APPEND rule_pch_flags "-I${dir}")
  endforeach()
  file(GLOB_RECURSE rule_pch_depends CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/include/stategraph/*.hpp)
  set(rule_pch_root ${CMAKE_CURRENT_BINARY_DIR}/rule_pch)
  set(rule_pch_outputs "")
  foreach(header stategraph/stategraph.hpp stategraph/checkpoint.hpp stategraph/asio.hpp stategraph/checkpoint/asio.hpp)
    string(MAKE_C_IDENTIFIER "${header}" id)
    set(wrapper ${rule_pch_root}/src/${id}.h)
    file(CONFIGURE OUTPUT ${wrapper} CONTENT "#include <${header}>\n")  # rewritten only when changed
    foreach(i RANGE ${last_compiler})
      list(GET rule_compilers ${i} compiler)
      list(GET rule_compiler_ids ${i} compiler_id)
      if(compiler_id STREQUAL "gcc")
        set(output ${rule_pch_root}/${compiler_id}/${header}.gch)  # found beside the header's name
      else()
        set(output ${rule_pch_root}/${compiler_id}/${header}.pch)  # passed with -include-pch
      endif()
      get_filename_component(output_dir ${output} DIRECTORY)
      add_custom_command(OUTPUT ${output}
                         COMMAND ${CMAKE_COMMAND} -E make_directory ${output_dir}
                         COMMAND ${compiler} ${rule_pch_flags} -x c++-header ${wrapper} -o ${output}
                         DEPENDS ${rule_pch_depends} ${wrapper}
                         COMMENT "Precompiling ${header} for the rule tests (${compiler_id})" VERBATIM)
      list(APPEND rule_pch_outputs ${output})
    endforeach()
  endforeach()
  add_custom_target(stategraph_rule_pch ALL DEPENDS ${rule_pch_outputs})

  # Each case sits beside the tests of its feature; the feature is the case's label too, so
  # `ctest -L <feature>` runs a feature's run-time and compile-time tests together.
  # misuse_*.cpp: a mistake no rule covers (an app called with an input of the wrong type),
  # which must still give one error, and in lines of at most 400 characters: a full
  # graph type is thousands, a message naming a few types a few hundred.
  file(GLOB rule_cases CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*/fail/sg[0-9][0-9][0-9]_*.cpp
       ${CMAKE_CURRENT_SOURCE_DIR}/*/fail/misuse_*.cpp)
  foreach(case IN LISTS rule_cases)
    get_filename_component(case_name ${case} NAME_WE)
    get_filename_component(case_dir ${case} DIRECTORY)
    get_filename_component(case_dir ${case_dir} DIRECTORY)
    get_filename_component(case_feature ${case_dir} NAME)
    file(READ ${case} case_text)
    foreach(i RANGE ${last_compiler})
      list(GET rule_compilers ${i} compiler)
      list(GET rule_compiler_ids ${i} compiler_id)
      set(test_name rule.${case_name}.${compiler_id})
      # The case without its violation is compiled by the first compiler only.
      if(i EQUAL 0)
        set(control ON)
      else()
        set(control OFF)
      endif()
      set(max_line "")
      if(case_name MATCHES "^misuse_")
        set(max_line -DMAX_LINE=400)
      endif()
      add_test(NAME ${test_name}
               COMMAND ${CMAKE_COMMAND} -DCOMPILER=${compiler} -DCOMPILER_ID=${compiler_id} -DSOURCE=${case} ${max_line}
                       -DCONTROL=${control} -DPCH_DIR=${rule_pch_root}/${compiler_id}
                       -DINCLUDE_DIRS=${rule_include_arg}
                       -DOUTPUT_FILE=${CMAKE_CURRENT_BINARY_DIR}/compile_fail/${case_name}.${compiler_id}.txt
                       -P ${PROJECT_SOURCE_DIR}/cmake/CompileFail.cmake)
      set_tests_properties(${test_name} PROPERTIES PASS_REGULAR_EXPRESSION "rule check passed: ${case_name} "
                                                   LABELS "compile_fail;${case_feature}")
      # A case whose diagnostic is spoiled by a known bug outside the rules stays visible as
      # "Not Run (Disabled)" until the bug is fixed; its KNOWN-ISSUE line says what to fix.
      if(case_text MATCHES "\n// KNOWN-ISSUE: ")
        set_tests_properties(${test_name} PROPERTIES DISABLED TRUE)
      endif()
    endforeach()
  endforeach()

  # ---- graphs of more than 256 nodes compile with each compiler ------------------------------
  # Clang caps a fold expression at 256 operands; the core suite runs scheduler/large_graphs.cpp
  # with the compiler that builds the project, and here both compilers check that it compiles.
  set(large_graph_flags -std=c++20 -fsyntax-only)
  foreach(dir IN LISTS rule_include_dirs)
    list(APPEND large_graph_flags "-I${dir}")
  endforeach()
  get_target_property(doctest_dirs doctest::doctest INTERFACE_INCLUDE_DIRECTORIES)
  foreach(dir IN LISTS doctest_dirs)
    if(dir AND NOT dir MATCHES "^/usr/include/?$")
      list(APPEND large_graph_flags "-I${dir}")
    endif()
  endforeach()
  foreach(i RANGE ${last_compiler})
    list(GET rule_compilers ${i} compiler)
    list(GET rule_compiler_ids ${i} compiler_id)
    add_test(NAME compiles.large_graphs.${compiler_id}
             COMMAND ${compiler} ${large_graph_flags} ${CMAKE_CURRENT_SOURCE_DIR}/scheduler/large_graphs.cpp)
    set_tests_properties(compiles.large_graphs.${compiler_id} PROPERTIES LABELS "compile_fail;scheduler")
  endforeach()
endfunction()
stategraph_add_rule_tests()
