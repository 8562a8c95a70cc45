# The inspector page of the recorded units run in headless Chromium: what a person would see,
# read from the DOM after the page's script ran (--dump-dom), and a screenshot.
set(flags --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
          --disable-component-update --disable-sync --hide-scrollbars --window-size=1400,900)
execute_process(COMMAND ${INSPECT} units.db line-1 -o browser.html WORKING_DIRECTORY ${DIR} RESULT_VARIABLE rc
  OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "inspect failed: ${out}")
endif()
execute_process(COMMAND ${SQLITE3} ${DIR}/units.db "SELECT count(*) FROM checkpoints WHERE id > 0 AND key >> 32 = (SELECT no FROM threads WHERE name = 'line-1')"
  OUTPUT_VARIABLE checkpoints OUTPUT_STRIP_TRAILING_WHITESPACE)

# Loads the page with `hash` and leaves its DOM in `var`. A fresh profile each time.
function(dump hash var)
  file(REMOVE_RECURSE ${DIR}/profile)
  execute_process(COMMAND ${CHROMIUM} ${flags} --user-data-dir=${DIR}/profile --dump-dom "file://${DIR}/browser.html${hash}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE dom ERROR_VARIABLE err TIMEOUT 60)
  if(NOT rc EQUAL 0 OR NOT dom MATCHES "data-ready=\"1\"")
    message(FATAL_ERROR "Chromium did not run the page (${rc}): ${err}")
  endif()
  set(${var} "${dom}" PARENT_SCOPE)
endfunction()

function(expect dom regex what)
  if(NOT dom MATCHES "${regex}")
    message(FATAL_ERROR "the page does not show ${what} (no match for '${regex}')")
  endif()
endfunction()

# Checkpoint 3: the step where design ran after the human accepted the intel.
dump("#cp=3" dom)
foreach(node research harvester design development review)
  expect("${dom}" "<g class=\"node[^\"]*\" data-name=\"${node}\" data-kind=\"node\">" "node ${node} in the graph")
endforeach()
expect("${dom}" "data-name=\"__start__\"" "__start__")
expect("${dom}" "id=\"timeline\" tabindex=\"0\" data-count=\"${checkpoints}\"" "${checkpoints} checkpoints in the timeline")
expect("${dom}" "<div id=\"selected\" data-id=\"3\"><h2>Checkpoint #3 · step 2 · loop</h2>" "checkpoint 3 selected")
expect("${dom}" "<g class=\"node *ran\" data-name=\"design\"" "design highlighted as run in step 2")
expect("${dom}" "<g class=\"node *next\" data-name=\"development\"" "development highlighted as next")
expect("${dom}" "<div class=\"write add\" data-path=\"outputs\\[2\\]\">\\+ outputs\\[2\\] = \"design: parser rewrite with large-model \\(t=0.7\\) reading \\[repo:src,wiki:parser-bench\\]"
  "design's output among the step's writes")
expect("${dom}" "<div class=\"write chg\" data-path=\"queue\\[0\\].status\">~ queue\\[0\\].status: \"pending\" → \"accepted\"</div>"
  "the intel accepted among the step's writes")

# Checkpoint 2: design asked a human about the intel before it could run.
dump("#cp=2" dom)
expect("${dom}" "<div class=\"interrupt\" data-node=\"design\"><span>design asked: </span>\\{\"intel\":\"benchmark notes\",\"node\":\"design\",\"unit\":\"u1\"\\}  → answered \"accept\"</div>"
  "design's interrupt with its payload and answer")

# Thread line-2 (units fail): its first step failed; research's message is recorded, the
# harvester's write beside it kept.
execute_process(COMMAND ${INSPECT} units.db line-2 -o failed.html WORKING_DIRECTORY ${DIR} RESULT_VARIABLE rc
  OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "inspect failed on line-2: ${out}")
endif()
file(RENAME ${DIR}/failed.html ${DIR}/browser.html)
dump("#cp=1" dom)
expect("${dom}" "<div id=\"selected\" data-id=\"1\"><h2>Checkpoint #1 · step 0 · input</h2>" "checkpoint 1 of line-2 selected")
expect("${dom}" "<div class=\"failure\" data-node=\"research\" data-type=\"std::runtime_error\" title=\"std::runtime_error\">research: unit u2 has no model configured for research</div>"
  "research's failure with its message")
expect("${dom}" "<div class=\"pending\">harvester#result \\[0\\] __result__ = " "the harvester's kept write")
expect("${dom}" "<span class=\"badge fail\">failed</span>" "the failed badge in the timeline")
if(dom MATCHES "<div class=\"failure\" data-node=\"\">")
  message(FATAL_ERROR "the page shows the fallback of a store without failure records")
endif()

file(REMOVE_RECURSE ${DIR}/profile)
file(REMOVE ${DIR}/inspect-units.png)
execute_process(COMMAND ${INSPECT} units.db line-1 -o browser.html WORKING_DIRECTORY ${DIR} RESULT_VARIABLE rc
  OUTPUT_QUIET ERROR_QUIET)
execute_process(COMMAND ${CHROMIUM} ${flags} --user-data-dir=${DIR}/profile --screenshot=${DIR}/inspect-units.png
  "file://${DIR}/browser.html#cp=3" RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET TIMEOUT 60)
if(NOT rc EQUAL 0 OR NOT EXISTS ${DIR}/inspect-units.png)
  message(FATAL_ERROR "Chromium took no screenshot (${rc})")
endif()
file(SIZE ${DIR}/inspect-units.png size)
message(STATUS "screenshot: ${DIR}/inspect-units.png (${size} bytes)")
