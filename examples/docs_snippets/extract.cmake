# stategraph_compile_doc(<markdown file> <name> [EXCERPTS_OF <source>] [ONLY_SNIPPETS]
#                        [LIBRARIES <target>...]): makes the C++ in a
# markdown page part of the build, so that a snippet that stops compiling (or a shown
# output that stops being true) fails the build or a test instead of misleading a reader.
# With EXCERPTS_OF, the page's C++ blocks are quotes of <source> (an example's README
# quoting its main.cpp): they are not compiled, and the test docs.<name>.excerpts checks
# that each one still appears, verbatim, in <source>.
# With ONLY_SNIPPETS, only the blocks inside named snippets are compiled (a page whose other
# blocks are fragments); `<!-- end snippet -->` closes a snippet. LIBRARIES are linked into
# the page's units besides stategraph (nlohmann_json for checkpoints).
#
# What the page may contain, read in order:
#   ```cpp ... ```            appended to the current unit (a translation unit of its own)
#   <!-- snippet: NAME        starts the unit NAME; any lines after the first, up to -->,
#   hidden code -->           are code compiled with it but not shown on the page
#   <!-- prelude              code put at the top of every unit of this page (not shown)
#   code -->
#   <!-- output: NAME -->     the next ```text block is what NAME prints, exactly: a test
#                             runs NAME (a unit of this page, or an existing target)
# Code before the first snippet marker belongs to the unit "main". A unit that defines
# `int main(` becomes an executable (target docs_<name>_<unit>) and a test docs.<name>.<unit>
# that runs it; the other units are compiled into one object library, docs_<name>.
#
# The page is parsed with string(FIND) on one string, never as a CMake list, because C++
# is full of the `;` and `[` that list operations would take apart.

set(STATEGRAPH_EXPECT_OUTPUT_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/expect_output.cmake)
set(STATEGRAPH_EXPECT_EXCERPTS_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/expect_excerpts.cmake)

# The line number (1-based) of offset `at` in `text`.
function(stategraph_line_of text at out)
  string(SUBSTRING "${text}" 0 ${at} before)
  string(REGEX MATCHALL "\n" newlines "${before}")
  list(LENGTH newlines n)
  math(EXPR n "${n} + 1")
  set(${out} ${n} PARENT_SCOPE)
endfunction()

function(stategraph_compile_doc md name)
  cmake_parse_arguments(PARSE_ARGV 2 arg "ONLY_SNIPPETS" "EXCERPTS_OF" "LIBRARIES")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${md}")
  file(READ "${md}" text)
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/${name}")
  file(REMOVE_RECURSE "${dir}/parts" "${dir}/excerpts")
  set(prelude "")
  set(unit main)
  if(arg_ONLY_SNIPPETS)
    set(unit "")
  endif()
  set(units "")
  set(outputs "")
  set(pending_output "")
  set(excerpts 0)
  set(offset 0)
  string(LENGTH "${text}" size)
  while(offset LESS size)
    string(SUBSTRING "${text}" ${offset} -1 rest)
    string(FIND "${rest}" "<!--" comment_at)
    string(FIND "${rest}" "```cpp\n" cpp_at)
    string(FIND "${rest}" "```text\n" text_at)
    set(next -1)
    foreach(kind comment cpp text)
      if(${kind}_at GREATER -1 AND (next EQUAL -1 OR ${kind}_at LESS next))
        set(next ${${kind}_at})
        set(next_kind ${kind})
      endif()
    endforeach()
    if(next EQUAL -1)
      break()
    endif()
    math(EXPR at "${offset} + ${next}")

    if(next_kind STREQUAL "comment")
      string(SUBSTRING "${text}" ${at} -1 from)
      string(FIND "${from}" "-->" close)
      if(close EQUAL -1)
        message(FATAL_ERROR "${md}: a comment is not closed")
      endif()
      string(SUBSTRING "${from}" 4 ${close} body)
      math(EXPR body_length "${close} - 4")
      string(SUBSTRING "${from}" 4 ${body_length} body)
      string(FIND "${body}" "\n" eol)
      if(eol EQUAL -1)
        set(head "${body}")
        set(hidden "")
      else()
        string(SUBSTRING "${body}" 0 ${eol} head)
        math(EXPR eol "${eol} + 1")
        string(SUBSTRING "${body}" ${eol} -1 hidden)
      endif()
      string(STRIP "${head}" head)
      stategraph_line_of("${text}" ${at} line)
      math(EXPR hidden_line "${line} + 1")
      if(head MATCHES "^snippet: *([A-Za-z0-9_]+)$")
        set(unit ${CMAKE_MATCH_1})
        if(unit IN_LIST units)
          message(FATAL_ERROR "${md}:${line}: the snippet ${unit} is declared twice")
        endif()
        list(APPEND units ${unit})
        file(WRITE "${dir}/parts/${unit}.cpp" "${prelude}")
        if(NOT hidden STREQUAL "")
          file(APPEND "${dir}/parts/${unit}.cpp" "#line ${hidden_line} \"${md}\"\n${hidden}")
        endif()
      elseif(head STREQUAL "end snippet")
        set(unit "")
      elseif(head STREQUAL "prelude")
        set(prelude "#line ${hidden_line} \"${md}\"\n${hidden}")
      elseif(head MATCHES "^output: *([A-Za-z0-9_]+)$")
        set(pending_output ${CMAKE_MATCH_1})
      endif()
      math(EXPR offset "${at} + ${close} + 3")

    else()  # a fenced block
      if(next_kind STREQUAL "cpp")
        math(EXPR start "${at} + 7")
      else()
        math(EXPR start "${at} + 8")
      endif()
      string(SUBSTRING "${text}" ${start} -1 from)
      if(from MATCHES "^```")  # an empty block
        set(close 0)
      else()
        string(FIND "${from}" "\n```" close)
        if(close EQUAL -1)
          message(FATAL_ERROR "${md}: a code block is not closed")
        endif()
        math(EXPR close "${close} + 1")
      endif()
      string(SUBSTRING "${from}" 0 ${close} block)
      if(next_kind STREQUAL "cpp" AND arg_EXCERPTS_OF)
        math(EXPR excerpts "${excerpts} + 1")
        stategraph_line_of("${text}" ${start} line)
        file(WRITE "${dir}/excerpts/line_${line}.txt" "${block}")
      elseif(next_kind STREQUAL "cpp" AND unit STREQUAL "")
        # outside a snippet on an ONLY_SNIPPETS page: shown, not compiled
      elseif(next_kind STREQUAL "cpp")
        if(NOT unit IN_LIST units)  # the unnamed first unit
          list(APPEND units ${unit})
          file(WRITE "${dir}/parts/${unit}.cpp" "${prelude}")
        endif()
        stategraph_line_of("${text}" ${start} line)
        file(APPEND "${dir}/parts/${unit}.cpp" "#line ${line} \"${md}\"\n${block}")
      elseif(NOT pending_output STREQUAL "")
        file(WRITE "${dir}/parts/${pending_output}.expected" "${block}")
        list(APPEND outputs ${pending_output})
        set(pending_output "")
      endif()
      math(EXPR offset "${start} + ${close} + 3")
    endif()
  endwhile()

  # configure_file rewrites a file only when it changed, so re-running CMake does not
  # rebuild every snippet.
  set(library_sources "")
  if(arg_UNITS)
    set(units ${arg_UNITS})
  endif()
  foreach(unit IN LISTS units)
    configure_file("${dir}/parts/${unit}.cpp" "${dir}/${unit}.cpp" COPYONLY)
    file(READ "${dir}/${unit}.cpp" code)
    string(FIND "${code}" "int main(" has_main)
    if(has_main GREATER -1)
      add_executable(docs_${name}_${unit} "${dir}/${unit}.cpp")
      target_link_libraries(docs_${name}_${unit} PRIVATE stategraph::stategraph stategraph_warnings ${arg_LIBRARIES})
      set_target_properties(docs_${name}_${unit} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${dir}")
      if(NOT unit IN_LIST outputs)
        add_test(NAME docs.${name}.${unit} COMMAND docs_${name}_${unit})
      endif()
    else()
      list(APPEND library_sources "${dir}/${unit}.cpp")
    endif()
  endforeach()
  if(library_sources)
    add_library(docs_${name} OBJECT ${library_sources})
    target_link_libraries(docs_${name} PRIVATE stategraph::stategraph stategraph_warnings ${arg_LIBRARIES})
  endif()

  if(excerpts GREATER 0)
    add_test(NAME docs.${name}.excerpts
             COMMAND ${CMAKE_COMMAND} -DSOURCE=${arg_EXCERPTS_OF} -DEXCERPTS=${dir}/excerpts -DPAGE=${md}
                     -P ${STATEGRAPH_EXPECT_EXCERPTS_SCRIPT})
  endif()

  foreach(program IN LISTS outputs)
    if(TARGET docs_${name}_${program})
      set(target docs_${name}_${program})
    elseif(TARGET ${program})
      set(target ${program})
    else()
      message(FATAL_ERROR "${md}: an output is shown for ${program}, which is neither a snippet with main() "
                          "nor a target")
    endif()
    configure_file("${dir}/parts/${program}.expected" "${dir}/${program}.expected" COPYONLY)
    add_test(NAME docs.${name}.${program}
             COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:${target}> -DEXPECTED=${dir}/${program}.expected
                     -P ${STATEGRAPH_EXPECT_OUTPUT_SCRIPT})
  endforeach()
endfunction()
