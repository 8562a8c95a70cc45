# The inspector pages of the recorded units run in headless Chromium: what a person would see,
# read from the DOM after the page's script ran (--dump-dom), and the screenshots in docs/img.
set(flags --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
          --disable-component-update --disable-sync --hide-scrollbars --window-size=1400,900)

# Writes thread's page to DIR/page with `inspect` (extra arguments after page); fails on a
# note (dot missing or failing) unless the arguments pick the renderer.
function(page thread page)
  execute_process(COMMAND ${INSPECT} units.db ${thread} -o ${page} ${ARGN} WORKING_DIRECTORY ${DIR}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0 OR (NOT ARGN AND out MATCHES "note:"))
    message(FATAL_ERROR "inspect did not write the page of ${thread} with dot (is graphviz installed?): ${out}")
  endif()
endfunction()

# Loads DIR/page with `hash` and leaves its DOM in `var`; with a fourth argument, also saves a
# screenshot there (DIR/png), in the same launch. A fresh profile each time.
function(dump page hash var)
  file(REMOVE_RECURSE ${DIR}/profile)
  set(shot)
  if(ARGC GREATER 3)
    file(REMOVE ${DIR}/${ARGV3})
    set(shot --screenshot=${DIR}/${ARGV3})
  endif()
  execute_process(COMMAND ${CHROMIUM} ${flags} --user-data-dir=${DIR}/profile ${shot} --dump-dom
    "file://${DIR}/${page}${hash}" RESULT_VARIABLE rc OUTPUT_VARIABLE dom ERROR_VARIABLE err TIMEOUT 60)
  if(NOT rc EQUAL 0 OR NOT dom MATCHES "data-ready=\"1\"")
    message(FATAL_ERROR "Chromium did not run the page (${rc}): ${err}")
  endif()
  if(shot)
    if(NOT EXISTS ${DIR}/${ARGV3})
      message(FATAL_ERROR "Chromium took no screenshot of ${page}${hash}: ${err}")
    endif()
    file(SIZE ${DIR}/${ARGV3} size)
    message(STATUS "screenshot: ${DIR}/${ARGV3} (${size} bytes)")
  endif()
  set(${var} "${dom}" PARENT_SCOPE)
endfunction()

function(expect dom regex what)
  if(NOT dom MATCHES "${regex}")
    message(FATAL_ERROR "the page does not show ${what} (no match for '${regex}')")
  endif()
endfunction()

page(line-1 browser-line-1.html)
execute_process(COMMAND ${SQLITE3} ${DIR}/units.db "SELECT count(*) FROM checkpoints WHERE id > 0 AND key >> 32 = (SELECT no FROM threads WHERE name = 'line-1')"
  OUTPUT_VARIABLE checkpoints OUTPUT_STRIP_TRAILING_WHITESPACE)

# Checkpoint 3: the step where design ran after the human accepted the intel.
dump(browser-line-1.html "#cp=3" dom inspect-units.png)
# The graph is dot's SVG: each node a <g class="node"> named by its <title>, which the page's
# script found and marked with the node's name.
expect("${dom}" "<div id=\"graph\" data-drawn-by=\"dot\"><svg " "the graph laid out by dot")
foreach(node research harvester design development review)
  expect("${dom}" "<g id=\"node[0-9]+\" class=\"node[^\"]*\" data-name=\"${node}\" data-kind=\"node\">[ \n]*<title>${node}</title>"
    "node ${node} in the graph")
endforeach()
expect("${dom}" "<g id=\"node[0-9]+\" class=\"node\" data-name=\"__start__\" data-kind=\"start\">[ \n]*<title>__start__</title>" "__start__")
expect("${dom}" "<div class=\"note\" id=\"graph-note\">laid out by graphviz version" "the note naming Graphviz")
expect("${dom}" "id=\"timeline\" tabindex=\"0\" data-count=\"${checkpoints}\"" "${checkpoints} checkpoints in the timeline")
expect("${dom}" "<div id=\"selected\" data-id=\"3\"><h2>Checkpoint #3 · step 2 · loop</h2>" "checkpoint 3 selected")
expect("${dom}" "<g id=\"node[0-9]+\" class=\"node ran\" data-name=\"design\"" "design highlighted as run in step 2")
expect("${dom}" "<g id=\"node[0-9]+\" class=\"node next\" data-name=\"development\"" "development highlighted as next")
expect("${dom}" "<g id=\"node[0-9]+\" class=\"node\" data-name=\"research\"" "research not highlighted")
expect("${dom}" "<div class=\"write add\" data-path=\"outputs\\[2\\]\">\\+ outputs\\[2\\] = \"design: parser rewrite with large-model \\(t=0.7\\) reading \\[repo:src,wiki:parser-bench\\]"
  "design's output among the step's writes")
expect("${dom}" "<div class=\"write chg\" data-path=\"queue\\[0\\].status\">~ queue\\[0\\].status: \"pending\" → \"accepted\"</div>"
  "the intel accepted among the step's writes")

# Checkpoint 2: design asked a human about the intel before it could run.
dump(browser-line-1.html "#cp=2" dom)
expect("${dom}" "<div class=\"interrupt\" data-node=\"design\"><span>design asked: </span>\\{\"intel\":\"benchmark notes\",\"node\":\"design\",\"unit\":\"u1\"\\}  → answered \"accept\"</div>"
  "design's interrupt with its payload and answer")

# Thread line-2 (units fail): its first step failed; research's message is recorded, the
# harvester's write beside it kept.
page(line-2 browser-line-2.html)
dump(browser-line-2.html "#cp=1" dom inspect-failed.png)
expect("${dom}" "<div id=\"selected\" data-id=\"1\"><h2>Checkpoint #1 · step 0 · input</h2>" "checkpoint 1 of line-2 selected")
expect("${dom}" "<div class=\"failure\" data-node=\"research\" data-type=\"std::runtime_error\" title=\"std::runtime_error\">research: unit u2 has no model configured for research</div>"
  "research's failure with its message")
expect("${dom}" "<div class=\"pending\">harvester#result \\[0\\] __result__ = " "the harvester's kept write")
expect("${dom}" "<span class=\"badge fail\">failed</span>" "the failed badge in the timeline")
expect("${dom}" "<g id=\"node[0-9]+\" class=\"node next failed\" data-name=\"research\"" "research marked as the node that failed")
if(dom MATCHES "<div class=\"failure\" data-node=\"\">")
  message(FATAL_ERROR "the page shows the fallback of a store without failure records")
endif()

# A renderer that fails: the page lays the graph out itself and says why.
page(line-1 browser-fallback.html --renderer false)
dump(browser-fallback.html "#cp=3" dom)
expect("${dom}" "<div id=\"graph\" data-drawn-by=\"page\"><svg " "the graph laid out by the page")
expect("${dom}" "<g class=\"node ran\" data-name=\"design\" data-kind=\"node\">" "design highlighted in the page's layout")
expect("${dom}" "<div class=\"note\" id=\"graph-note\">laid out by the page: 'false' failed with exit status 1</div>"
  "the reason dot's drawing is missing")
