# Checks one compile-fail case (tests/<feature>/fail/sgNNN_*.cpp) with one compiler:
#
#   cmake -DCOMPILER=/usr/bin/g++ -DCOMPILER_ID=gcc -DSOURCE=case.cpp
#         [-DINCLUDE_DIRS="dir1|dir2"] [-DHEAD_LINES=15] [-DOUTPUT_FILE=out.txt] [-DCONTROL=OFF]
#         [-DPCH_DIR=dir] [-DMAX_LINE=400]
#         -P CompileFail.cmake
#
# The case passes only when all of these hold:
#   1. compiled with -DSG_VIOLATION it fails;
#   2. every `// EXPECT: <regex>` line of the file (and every `// EXPECT-<COMPILER_ID>:` one)
#      matches within the first HEAD_LINES lines of the compiler's output;
#   3. the output names no rule ID other than the one in the file name (no cascade into
#      a second rule);
#   4. the output has exactly one error (one mistake gives one error);
#   4b. with MAX_LINE, no line of the output is longer (a misuse_*.cpp case: no type is
#      printed whole);
#   5. compiled without SG_VIOLATION the same file compiles, so the failure comes from the
#      violation and not from some unrelated mistake in the test (unless CONTROL=OFF).
# Only then does it print "rule check passed: ..." (the line CTest looks for).

cmake_minimum_required(VERSION 3.25)

foreach(var COMPILER COMPILER_ID SOURCE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "CompileFail.cmake: pass -D${var}=...")
  endif()
endforeach()
if(NOT DEFINED HEAD_LINES)
  set(HEAD_LINES 15)
endif()

get_filename_component(case_name "${SOURCE}" NAME_WE)
string(REGEX MATCH "^sg([0-9][0-9][0-9])_" id_match "${case_name}")
if(id_match)
  set(rule_id "SG${CMAKE_MATCH_1}")
elseif(case_name MATCHES "^misuse_")
  set(rule_id "")  # a misuse of the API that no rule covers: its output names no rule ID
else()
  message(FATAL_ERROR "${case_name}: the file name must start with sgNNN_ or misuse_")
endif()

# ---- the expectations written in the file ---------------------------------------------
file(STRINGS "${SOURCE}" expect_lines REGEX "^// EXPECT(-[a-z]+)?: ")
set(expectations "")
foreach(line IN LISTS expect_lines)
  if(line MATCHES "^// EXPECT: (.*)$")
    list(APPEND expectations "${CMAKE_MATCH_1}")
  elseif(line MATCHES "^// EXPECT-([a-z]+): (.*)$" AND CMAKE_MATCH_1 STREQUAL COMPILER_ID)
    list(APPEND expectations "${CMAKE_MATCH_2}")
  endif()
endforeach()
if(NOT expectations)
  message(FATAL_ERROR "${case_name}: no `// EXPECT: <regex>` line")
endif()
file(READ "${SOURCE}" source_text)
if(NOT source_text MATCHES "SG_VIOLATION")
  message(FATAL_ERROR "${case_name}: the violation must sit behind #ifdef SG_VIOLATION")
endif()

set(flags -std=c++20 -fsyntax-only -Wall -Wextra -Wpedantic -Wno-missing-field-initializers)
if(DEFINED INCLUDE_DIRS AND NOT INCLUDE_DIRS STREQUAL "")
  string(REPLACE "|" ";" include_list "${INCLUDE_DIRS}")
  foreach(dir IN LISTS include_list)
    list(APPEND flags "-I${dir}")
  endforeach()
endif()

# A precompiled header for the case's first include, when PCH_DIR has one newer than every
# header of the library (tests/compile_fail.cmake builds them): g++ finds DIR/<header>.gch
# ahead of the header itself; clang++ is given DIR/<header>.pch.
if(DEFINED PCH_DIR AND NOT PCH_DIR STREQUAL "" AND include_list)
  string(REGEX MATCH "\n#include <([^>]+)>" first_include "\n${source_text}")
  set(pch_header "${CMAKE_MATCH_1}")
  if(COMPILER_ID STREQUAL "gcc")
    set(pch "${PCH_DIR}/${pch_header}.gch")
  else()
    set(pch "${PCH_DIR}/${pch_header}.pch")
  endif()
  if(first_include AND EXISTS "${pch}")
    list(GET include_list 0 library_dir)
    file(GLOB_RECURSE library_headers "${library_dir}/stategraph/*.hpp")
    set(pch_fresh ON)
    foreach(header IN LISTS library_headers)
      if("${header}" IS_NEWER_THAN "${pch}")
        set(pch_fresh OFF)
        break()
      endif()
    endforeach()
    if(pch_fresh AND COMPILER_ID STREQUAL "gcc")
      list(FIND flags "-I${library_dir}" first_dir)
      list(INSERT flags ${first_dir} "-I${PCH_DIR}")
    elseif(pch_fresh)
      list(APPEND flags -include-pch "${pch}")
    endif()
  endif()
endif()

# ---- 1. the violation does not compile -----------------------------------------------
execute_process(COMMAND "${COMPILER}" ${flags} -DSG_VIOLATION "${SOURCE}"
                RESULT_VARIABLE bad_result OUTPUT_VARIABLE bad_output ERROR_VARIABLE bad_output)
if(DEFINED OUTPUT_FILE)
  file(WRITE "${OUTPUT_FILE}" "${bad_output}")
endif()

# The output as lines. CMake lists split on ';' except inside [...], so both are swapped
# for control characters first and restored line by line.
string(ASCII 29 open_mark)
string(ASCII 30 close_mark)
string(ASCII 31 semicolon_mark)
string(REPLACE ";" "${semicolon_mark}" escaped "${bad_output}")
string(REPLACE "[" "${open_mark}" escaped "${escaped}")
string(REPLACE "]" "${close_mark}" escaped "${escaped}")
string(REPLACE "\n" ";" output_lines "${escaped}")
list(LENGTH output_lines line_count)
if(bad_output MATCHES "\n$")
  math(EXPR line_count "${line_count} - 1")
endif()

set(problems "")
if(bad_result EQUAL 0)
  list(APPEND problems "compiling with -DSG_VIOLATION succeeded; it must fail")
endif()

# ---- 2. each expectation within the first HEAD_LINES lines -----------------------------
set(summary "")
foreach(regex IN LISTS expectations)
  set(found 0)
  set(index 0)
  foreach(line IN LISTS output_lines)
    math(EXPR index "${index} + 1")
    if(index GREATER HEAD_LINES)
      break()
    endif()
    string(REPLACE "${semicolon_mark}" ";" line "${line}")
    string(REPLACE "${open_mark}" "[" line "${line}")
    string(REPLACE "${close_mark}" "]" line "${line}")
    if(line MATCHES "${regex}")
      set(found ${index})
      break()
    endif()
  endforeach()
  if(found EQUAL 0)
    list(APPEND problems "`${regex}` does not match within the first ${HEAD_LINES} lines")
  endif()
  string(APPEND summary " [${regex}]@${found}")
endforeach()

# ---- 3. no other rule in the output -----------------------------------------------------
string(REGEX MATCHALL "SG[0-9][0-9][0-9]" ids_seen "${bad_output}")
list(REMOVE_DUPLICATES ids_seen)
list(REMOVE_ITEM ids_seen "${rule_id}")
if(ids_seen)
  list(APPEND problems "the output also names ${ids_seen} (a cascade or the wrong rule)")
endif()

# ---- 4. one mistake, one error: no follow-on error after the rule's ---------------------
string(REGEX MATCHALL ": (fatal )?error: " errors_seen "${bad_output}")
list(LENGTH errors_seen error_count)
if(NOT error_count EQUAL 1)
  list(APPEND problems "${error_count} errors; one mistake must give one error")
endif()

# ---- 4b. no line longer than MAX_LINE (when given): no type printed whole ----------------
if(DEFINED MAX_LINE)
  set(longest 0)
  foreach(line IN LISTS output_lines)
    string(LENGTH "${line}" length)
    if(length GREATER longest)
      set(longest ${length})
    endif()
  endforeach()
  if(longest GREATER MAX_LINE)
    list(APPEND problems "a line of ${longest} characters; at most ${MAX_LINE} allowed")
  endif()
  string(APPEND summary " longest=${longest}")
endif()

# ---- 5. the same file without the violation compiles -----------------------------------
# CONTROL=OFF skips this: the tests run it with one compiler only, as it checks the case's
# program, not the rule's diagnostic.
if(NOT DEFINED CONTROL OR CONTROL)
  execute_process(COMMAND "${COMPILER}" ${flags} "${SOURCE}"
                  RESULT_VARIABLE good_result OUTPUT_VARIABLE good_output ERROR_VARIABLE good_output)
  if(NOT good_result EQUAL 0)
    list(APPEND problems "without SG_VIOLATION the file does not compile:\n${good_output}")
  endif()
endif()

if(problems)
  string(REPLACE ";" "\n  - " problem_text "${problems}")
  message("${case_name} (${COMPILER_ID}): ${line_count} lines of output\n--- output with -DSG_VIOLATION ---\n"
          "${bad_output}--- end of output ---")
  message(FATAL_ERROR "${case_name} (${COMPILER_ID}) FAILED:\n  - ${problem_text}")
endif()
message("rule check passed: ${case_name} ${COMPILER_ID} lines=${line_count}${summary}")
